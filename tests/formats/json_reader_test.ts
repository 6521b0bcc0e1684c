import assert from "node:assert/strict";
import { ByteInput, TextInput } from "../../lib/formats/io.ts";
import { detectJson, JsonReader } from "../../lib/formats/json/reader.ts";
import { zctx } from "../../lib/zed/context.ts";
import { formatType } from "../../lib/zed/typetext.ts";
import {
  type RecordType,
  TypeBool,
  TypeFloat64,
  TypeInt64,
  TypeNull,
  TypeString,
  type UnionType,
} from "../../lib/zed/types.ts";
import { type Body, UnionBody, type Value } from "../../lib/zed/value.ts";

/** An input delivered `size` bytes at a time. */
function chunked(text: string, size: number): ByteInput {
  const bytes = new TextEncoder().encode(text);
  const it = (async function* () {
    for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
  })();
  return new ByteInput(it, "test");
}

interface ReadOpts {
  chunk?: number;
  minChunk?: number;
}

async function readAll(text: string, opts: ReadOpts = {}): Promise<Value[]> {
  const input = opts.chunk === undefined
    ? ByteInput.fromBytes(new TextEncoder().encode(text))
    : chunked(text, opts.chunk);
  const reader = new JsonReader(new TextInput(input, opts.minChunk));
  const out: Value[] = [];
  for (let b = await reader.read(); b !== null; b = await reader.read()) {
    assert.ok(b.length > 0);
    out.push(...b);
  }
  return out;
}

async function readOne(text: string): Promise<Value> {
  const vals = await readAll(text);
  assert.equal(vals.length, 1);
  return vals[0];
}

/** The type text and body of the one value in text. */
async function typed(text: string): Promise<[string, Body]> {
  const v = await readOne(text);
  return [formatType(v.type), v.body];
}

async function readError(text: string): Promise<string> {
  try {
    await readAll(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`no error reading ${JSON.stringify(text)}`);
}

Deno.test("json reader: strings, bools and null", async () => {
  assert.deepEqual(await typed('"hi"'), ["string", "hi"]);
  assert.deepEqual(await typed('""'), ["string", ""]);
  assert.deepEqual(await typed("true"), ["bool", true]);
  assert.deepEqual(await typed("false"), ["bool", false]);
  assert.deepEqual(await typed("null"), ["null", null]);
  assert.deepEqual(await typed(String.raw`"a\"b\\c\/d\'e\b\f\n\r\t"`), [
    "string",
    "a\"b\\c/d'e\b\f\n\r\t",
  ]);
  assert.deepEqual(await typed(String.raw`"\u00e9\u0041"`), ["string", "éA"]);
});

Deno.test("json reader: strings are NFC-normalized, keys are not", async () => {
  // zio/jsonio/ztests/unicode-nfc.yaml
  const vals = await readAll('"Å"\n"\\u00c5"\n"\\u212b"\n"A\\u030a"\n');
  assert.deepEqual(vals.map((v) => v.body), ["\u00c5", "\u00c5", "\u00c5", "\u00c5"]);
  const rec = await readOne('{"\u212b":"\u212b"}');
  assert.equal((rec.type as RecordType).fields[0].name, "\u212b");
  assert.deepEqual(rec.body, ["\u00c5"]);
});

Deno.test("json reader: lone surrogates become U+FFFD", async () => {
  assert.deepEqual(await typed(String.raw`"\ud800"`), ["string", "\ufffd"]);
  assert.deepEqual(await typed(String.raw`"\udc00\ud800x"`), ["string", "\ufffd\ufffdx"]);
  assert.deepEqual(await typed(String.raw`"\ud800\u0041"`), ["string", "\ufffdA"]);
  assert.deepEqual(await typed(String.raw`"\ud83d\ude00"`), ["string", "😀"]);
  assert.deepEqual(await typed('"😀"'), ["string", "😀"]);
});

Deno.test("json reader: integers are int64, everything else float64", async () => {
  assert.deepEqual(await typed("1"), ["int64", 1]);
  assert.deepEqual(await typed("-12"), ["int64", -12]);
  const zero = await readOne("-0");
  assert.equal(zero.type, TypeInt64);
  assert.ok(Object.is(zero.body, 0));
  assert.deepEqual(await typed("007"), ["int64", 7]);
  assert.deepEqual(await typed("123456789012345"), ["int64", 123456789012345]);
  assert.deepEqual(await typed("9007199254740993"), ["int64", 9007199254740993n]);
  assert.deepEqual(await typed("4611686018427387904"), ["int64", 4611686018427387904n]);
  assert.deepEqual(await typed("9223372036854775807"), ["int64", 9223372036854775807n]);
  assert.deepEqual(await typed("-9223372036854775808"), ["int64", -9223372036854775808n]);
  assert.deepEqual(await typed("9223372036854775808"), ["float64", 9223372036854775808]);
  assert.deepEqual(await typed("1.0"), ["float64", 1]);
  assert.deepEqual(await typed("2230.0"), ["float64", 2230]);
  assert.deepEqual(await typed("1521911721.926018012"), ["float64", 1521911721.926018]);
  assert.deepEqual(await typed("0.0008699893951416016"), ["float64", 0.0008699893951416016]);
  assert.deepEqual(await typed("-1.5"), ["float64", -1.5]);
  assert.deepEqual(await typed("1e3"), ["float64", 1000]);
  assert.deepEqual(await typed("1.5E+2"), ["float64", 150]);
  assert.deepEqual(await typed("-.5"), ["float64", -0.5]);
  assert.deepEqual(await typed("1."), ["float64", 1]);
  assert.deepEqual(await typed("1e-400"), ["float64", 0]);
  const negZero = await readOne("-0.0");
  assert.equal(negZero.type, TypeFloat64);
  assert.ok(Object.is(negZero.body, -0));
});

Deno.test("json reader: fractions parse exactly like Number()", async () => {
  const texts = [
    "0.1",
    "0.3",
    "123.456",
    "999999999999.999",
    "0.000001",
    "3.14159",
    "1.7976931348623157",
  ];
  for (const t of texts) assert.equal((await readOne(t)).body, Number(t), t);
});

Deno.test("json reader: objects become records in input order", async () => {
  // zio/jsonio/ztests/json.yaml
  const vals = await readAll(
    '{ "string1": "value1", "string2": "value1", "int1": 4, "bool1": true }\n' +
      '{ "int1": 4, "bool1": true, "string2": "value2", "string1": "value2" }\n\n' +
      '{ "obj1": { "null1": null } }\n',
  );
  assert.deepEqual(vals.map((v) => formatType(v.type)), [
    "{string1:string,string2:string,int1:int64,bool1:bool}",
    "{int1:int64,bool1:bool,string2:string,string1:string}",
    "{obj1:{null1:null}}",
  ]);
  assert.deepEqual(vals.map((v) => v.body), [
    ["value1", "value1", 4, true],
    [4, true, "value2", "value2"],
    [[null]],
  ]);
  assert.deepEqual(await typed("{}"), ["{}", []]);
  assert.deepEqual(await typed('{"ja3s":{}}'), ["{ja3s:{}}", [[]]]);
  // Records of the same shape share one interned type.
  const [a, b] = await readAll('{"x":1,"y":"a"}{"x":2,"y":"b"}');
  assert.equal(a.type, b.type);
  assert.equal(a.type, zctx.lookupRecordOf(["x", "y"], [TypeInt64, TypeString]));
});

Deno.test("json reader: the same key with different value types makes different records", async () => {
  const vals = await readAll('{"a":1}{"a":"x"}{"a":null}{"a":1}{"b":1,"a":1}');
  assert.deepEqual(vals.map((v) => formatType(v.type)), [
    "{a:int64}",
    "{a:string}",
    "{a:null}",
    "{a:int64}",
    "{b:int64,a:int64}",
  ]);
  assert.equal(vals[0].type, vals[3].type);
});

Deno.test("json reader: duplicate keys keep the last value at the first position", async () => {
  // zio/jsonio/ztests/duplicate-field.yaml
  assert.deepEqual(await typed('{"b":null,"a":1,"a":2,"b":"3"}'), ["{b:string,a:int64}", [
    "3",
    2,
  ]]);
  assert.deepEqual(await typed('{"a":1,"b":2,"a":"x","a":true}'), ["{a:bool,b:int64}", [true, 2]]);
  // The same duplicate shape again takes the cached path.
  const vals = await readAll('{"a":1,"a":2}{"a":3,"a":4}');
  assert.deepEqual(vals.map((v) => v.body), [[2], [4]]);
});

Deno.test("json reader: arrays infer their element type", async () => {
  assert.deepEqual(await typed("[]"), ["[null]", []]);
  assert.deepEqual(await typed("[null]"), ["[null]", [null]]);
  assert.deepEqual(await typed('["a",null]'), ["[string]", ["a", null]]);
  assert.deepEqual(await typed("[1,2,3]"), ["[int64]", [1, 2, 3]]);
  assert.deepEqual(await typed("[1.0,2]"), ["[(int64,float64)]", [
    new UnionBody(1, 1),
    new UnionBody(0, 2),
  ]]);
  const v = await readOne('[1,"a",null,true,{"a":1},[1]]');
  assert.equal(formatType(v.type), "[(int64,bool,string,{a:int64},[int64])]");
  assert.deepEqual(v.body, [
    new UnionBody(0, 1),
    new UnionBody(2, "a"),
    null,
    new UnionBody(1, true),
    new UnionBody(3, [1]),
    new UnionBody(4, [1]),
  ]);
});

Deno.test("json reader: union arrays (union-array.yaml)", async () => {
  const vals = await readAll(
    '[]\n[null]\n["a", null]\n["b", 2]\n["c", 100, 200]\n["d", null, 200]\n["e", [1, 2]]\n' +
      '["f", false, ["foo", 2], {"dd": ["foo", 2, true]}]\n' +
      '["g", false, ["foo", 2], {"d.d": ["foo", 2, true]}]\n',
  );
  assert.deepEqual(vals.map((v) => formatType(v.type)), [
    "[null]",
    "[null]",
    "[string]",
    "[(int64,string)]",
    "[(int64,string)]",
    "[(int64,string)]",
    "[(string,[int64])]",
    "[(bool,string,{dd:[(int64,bool,string)]},[(int64,string)])]",
    '[(bool,string,{"d.d":[(int64,bool,string)]},[(int64,string)])]',
  ]);
  assert.deepEqual(vals[3].body, [new UnionBody(1, "b"), new UnionBody(0, 2)]);
  assert.deepEqual(vals[5].body, [new UnionBody(1, "d"), null, new UnionBody(0, 200)]);
  const f = vals[7];
  const union = (f.type as { elem: UnionType }).elem;
  assert.deepEqual(union.types.map(formatType), [
    "bool",
    "string",
    "{dd:[(int64,bool,string)]}",
    "[(int64,string)]",
  ]);
  assert.deepEqual(f.body, [
    new UnionBody(1, "f"),
    new UnionBody(0, false),
    new UnionBody(3, [new UnionBody(1, "foo"), new UnionBody(0, 2)]),
    new UnionBody(2, [[new UnionBody(2, "foo"), new UnionBody(0, 2), new UnionBody(1, true)]]),
  ]);
  assert.equal(union.types[0], TypeBool);
  assert.equal(union.types[1], TypeString);
});

Deno.test("json reader: a top-level array is one value", async () => {
  // zio/anyio/ztests/json-array.yaml
  const v = await readOne('[{"a":1,"b":2},{"b":3,"a":4}]');
  assert.equal(formatType(v.type), "[({a:int64,b:int64},{b:int64,a:int64})]");
  assert.deepEqual(v.body, [new UnionBody(0, [1, 2]), new UnionBody(1, [3, 4])]);
});

Deno.test("json reader: pretty, concatenated and whitespace-separated values", async () => {
  // zio/jsonio/ztests/reader.yaml
  const vals = await readAll(
    '{\n  "ts": 1521911721.926018012,\n  "a": "hello, world",\n  "b": {\n' +
      '    "z": "&, <, and > should not be escaped",\n    "x": 4611686018427387904,\n' +
      '    "y": "127.0.0.1"\n  }\n}\n[ {"a":1}, {"b":"hello"}, {"c":true} ]\n[ "foo", 1, {"a":1} ]\n',
  );
  assert.equal(vals.length, 3);
  assert.equal(formatType(vals[0].type), "{ts:float64,a:string,b:{z:string,x:int64,y:string}}");
  assert.deepEqual(vals[0].body, [1521911721.926018, "hello, world", [
    "&, <, and > should not be escaped",
    4611686018427387904n,
    "127.0.0.1",
  ]]);
  assert.equal(formatType(vals[2].type), "[(int64,string,{a:int64})]");
  const many = await readAll('{"a":1}{"b":2} 3\t"x"\r\n"y""z"true false null[]');
  assert.deepEqual(many.map((v) => v.body), [[1], [2], 3, "x", "y", "z", true, false, null, []]);
  assert.deepEqual(await readAll(""), []);
  assert.deepEqual(await readAll(" \n\t\r "), []);
});

Deno.test("json reader: error texts follow the reference", async () => {
  const cases: [string, string][] = [
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["{1:2}", "invalid character '1' looking for beginning of object key string"],
    ["{a:1}", "invalid character 'a' looking for beginning of value"],
    ["[1 2]", "invalid character '2' after array value"],
    ["[1:2]", "invalid character ':' after array value"],
    ['["a" "b\\q"]', `invalid character '"' after array value`],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ["[,1]", "invalid character ',' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a"}', "invalid character '}' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key`],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ["x", "invalid character 'x' looking for beginning of value"],
    ["]", "invalid character ']' looking for beginning of value"],
    ['{"a":1},{"b":2}', "invalid character ',' looking for beginning of value"],
    ["é", "invalid character 'Ã' looking for beginning of value"],
    ["\u0001", "invalid character '\\x01' looking for beginning of value"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ["truex", "bad literal name"],
    ["nul,", "bad literal name"],
    ["[true:1]", "bad literal name"],
    ['{"a":tru', "EOF"],
    ['{"a":1', "EOF"],
    ["[1,2", "EOF"],
    ['["abc', "EOF"],
    ["{", "EOF"],
    ["1e400", 'strconv.ParseFloat: parsing "1e400": value out of range'],
    ["-1e400", 'strconv.ParseFloat: parsing "-1e400": value out of range'],
    [
      "1" + "0".repeat(400),
      `strconv.ParseFloat: parsing "1${"0".repeat(400)}": value out of range`,
    ],
    ["1.2.3", 'strconv.ParseFloat: parsing "1.2.3": invalid syntax'],
    ["-", 'strconv.ParseFloat: parsing "-": invalid syntax'],
    ["1e", 'strconv.ParseFloat: parsing "1e": invalid syntax'],
    ["1-2", 'strconv.ParseFloat: parsing "1-2": invalid syntax'],
    ['"a\\qb"', 'invalid JSON string "\\"a\\\\qb\\""'],
    ['"a\tb"', 'invalid JSON string "\\"a\\tb\\""'],
    ['"\\u12"', 'invalid JSON string "\\"\\\\u12\\""'],
    ['{"a\\q":1}', 'invalid string "\\"a\\\\q\\""'],
  ];
  for (const [text, msg] of cases) assert.equal(await readError(text), msg, text);
});

Deno.test("json reader: input that ends in a top-level string or literal just ends", async () => {
  assert.deepEqual((await readAll('{"a":1}\n"abc')).map((v) => v.body), [[1]]);
  assert.deepEqual(await readAll("tru"), []);
  assert.deepEqual((await readAll("1 fals")).map((v) => v.body), [1]);
});

Deno.test("json reader: values before an error are delivered first", async () => {
  const reader = new JsonReader(
    new TextInput(ByteInput.fromBytes(new TextEncoder().encode('{"a":1}\n{"b":2}\n}\n'))),
  );
  const batch = await reader.read();
  assert.deepEqual(batch?.map((v) => v.body), [[1], [2]]);
  await assert.rejects(() => reader.read(), {
    message: "invalid character '}' looking for beginning of value",
  });
});

/** Text exercising every token kind, escapes and multi-byte characters. */
function sample(): string {
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    lines.push(
      `{"id":${i},"name":"n\\u00e9\\"${i}\\"","f":${i}.25,"big":${9007199254740993n + BigInt(i)},` +
        `"neg":-${i}e-2,"ok":${i % 2 === 0},"none":null,"tags":["x",${i},null,{"k":"v"}],` +
        `"nested":{"a":{"b":[]}},"emoji":"😀é${i}","key ${i % 3}":"v"}`,
    );
  }
  return lines.join("\n \t") + "\n";
}

Deno.test("json reader: values spanning chunks read the same", async () => {
  const text = sample();
  const whole = await readAll(text);
  assert.equal(whole.length, 40);
  for (const [chunk, minChunk] of [[1, 1], [3, 2], [7, 16], [64, 5], [1000, 1]]) {
    const parts = await readAll(text, { chunk, minChunk });
    assert.equal(parts.length, whole.length);
    for (let i = 0; i < parts.length; i++) {
      assert.equal(parts[i].type, whole[i].type, `chunk ${chunk} value ${i}`);
      assert.deepEqual(parts[i].body, whole[i].body, `chunk ${chunk} value ${i}`);
    }
  }
  // Numbers and literals at a chunk boundary are not cut short.
  const nums = await readAll("12345 67890 true 1.5", { chunk: 2, minChunk: 1 });
  assert.deepEqual(nums.map((v) => v.body), [12345, 67890, true, 1.5]);
  assert.deepEqual(nums.map((v) => v.type), [TypeInt64, TypeInt64, TypeBool, TypeFloat64]);
  // Truncation is still detected when the end arrives in a small chunk.
  await assert.rejects(() => readAll('{"a":[1,2', { chunk: 1, minChunk: 1 }), { message: "EOF" });
});

Deno.test("json reader: large inputs come in batches", async () => {
  const text = '{"a":1}\n'.repeat(2500);
  const reader = new JsonReader(new TextInput(ByteInput.fromBytes(new TextEncoder().encode(text))));
  const sizes: number[] = [];
  for (let b = await reader.read(); b !== null; b = await reader.read()) sizes.push(b.length);
  assert.deepEqual(sizes, [1000, 1000, 500]);
  assert.equal(await reader.read(), null);
});

Deno.test("detectJson reads 10 values", () => {
  assert.deepEqual(detectJson('{"a":1}', true), { ok: true });
  assert.deepEqual(detectJson("", true), { ok: true });
  assert.deepEqual(detectJson("1 2 3", false), { ok: "more" });
  assert.deepEqual(detectJson("1 2 3 4 5 6 7 8 9 10 ", false), { ok: true });
  assert.deepEqual(detectJson("1 2 3 4 5 6 7 8 9 10 }", false), { ok: true });
  assert.deepEqual(detectJson("1 2 3 4 5 6 7 8 9 10 11", false), { ok: true });
  assert.deepEqual(detectJson('{"a":1}\n{"b"', false), { ok: "more" });
  assert.deepEqual(detectJson('{"a":1}\n{"b"', true), { ok: false, error: "EOF" });
  assert.deepEqual(detectJson("12", false), { ok: "more" });
  assert.deepEqual(detectJson("Garbage!\n", true), {
    ok: false,
    error: "invalid character 'G' looking for beginning of value",
  });
  assert.deepEqual(detectJson("TS\n", false), {
    ok: false,
    error: "invalid character 'T' looking for beginning of value",
  });
  // The lexer rejects `a` before the parser asks for a key.
  assert.deepEqual(detectJson("{a:1}\n", true), {
    ok: false,
    error: "invalid character 'a' looking for beginning of value",
  });
  assert.deepEqual(detectJson("#separator \\x09\n", true), {
    ok: false,
    error: "invalid character '#' looking for beginning of value",
  });
  // The eleventh value is not looked at.
  assert.deepEqual(detectJson("1 2 3 4 5 6 7 8 9 10 }", true), { ok: true });
  assert.deepEqual(detectJson("1 2 3 4 5 6 7 8 9 }", true), {
    ok: false,
    error: "invalid character '}' looking for beginning of value",
  });
});

Deno.test("json reader: types of simple values", async () => {
  const vals = await readAll('1 1.5 "s" true null');
  assert.deepEqual(vals.map((v) => v.type), [
    TypeInt64,
    TypeFloat64,
    TypeString,
    TypeBool,
    TypeNull,
  ]);
});
