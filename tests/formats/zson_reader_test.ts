import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { BATCH_SIZE, ByteInput, TextInput } from "../../lib/formats/io.ts";
import { analyzeValue } from "../../lib/formats/zson/analyzer.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { Parser } from "../../lib/formats/zson/parser.ts";
import {
  detectZson,
  parseZsonType,
  parseZsonValue,
  ZsonReader,
} from "../../lib/formats/zson/reader.ts";
import { zctx } from "../../lib/zed/context.ts";
import { formatType } from "../../lib/zed/typetext.ts";
import {
  Kind,
  type Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeFloat32,
  TypeFloat64,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  TypeIP,
  TypeNet,
  TypeNull,
  TypeString,
  TypeTime,
  TypeType,
  TypeUint16,
  TypeUint32,
  TypeUint64,
  TypeUint8,
} from "../../lib/zed/types.ts";
import { type Batch, UnionBody, type Value } from "../../lib/zed/value.ts";

const enc = new TextEncoder();

/** A TextInput over bytes delivered `size` bytes at a time. */
function chunked(text: string, size: number, minChunk = 1): TextInput {
  const bytes = enc.encode(text);
  const it = (async function* () {
    for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
  })();
  return new TextInput(new ByteInput(it, "test"), minChunk);
}

async function readAll(input: TextInput, bindings?: Map<string, Type>): Promise<Value[]> {
  const r = new ZsonReader(input, bindings);
  const out: Value[] = [];
  for (let b = await r.read(); b !== null; b = await r.read()) out.push(...b);
  return out;
}

function readText(text: string): Promise<Value[]> {
  return readAll(new TextInput(ByteInput.fromBytes(enc.encode(text))));
}

/** Each value as one line of ZSON (via the ZSON formatter). */
async function zson(text: string): Promise<string> {
  return (await readText(text)).map((v) => formatZson(v.type, v.body)).join("\n");
}

function typeText(v: Value): string {
  return formatType(v.type);
}

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof LochError, `not a LochError: ${e}`);
    return e.message;
  }
  assert.fail("no error");
}

async function readError(text: string): Promise<string> {
  try {
    await readText(text);
  } catch (e) {
    assert.ok(e instanceof LochError, `not a LochError: ${e}`);
    return e.message;
  }
  assert.fail("no error");
}

Deno.test("implied primitive literals get their types and bodies", () => {
  const cases: [string, Type, unknown][] = [
    ["123", TypeInt64, 123],
    ["-0", TypeInt64, 0],
    ["+7", TypeInt64, 7],
    ["9007199254740993", TypeInt64, 9007199254740993n],
    ["-9223372036854775808", TypeInt64, -9223372036854775808n],
    ["18446744073709551615", TypeUint64, 18446744073709551615n],
    ["18446744073709551616", TypeFloat64, 18446744073709551616],
    ["1.5", TypeFloat64, 1.5],
    ["1.", TypeFloat64, 1],
    ["-2.2e2", TypeFloat64, -220],
    ["+Inf", TypeFloat64, Infinity],
    ["-inf", TypeFloat64, -Infinity],
    ["true", TypeBool, true],
    ["false", TypeBool, false],
    ['"hi"', TypeString, "hi"],
    ["1s", TypeDuration, 1e9],
    ["-1m30s", TypeDuration, -90e9],
    ["1970-01-01T00:00:01Z", TypeTime, 1e9],
    ["2006-01-02T15:04:05.123456789+01:00", TypeTime, 1136210645123456789n],
    ["null", TypeNull, null],
  ];
  for (const [text, type, body] of cases) {
    const v = parseZsonValue(text);
    assert.equal(v.type, type, text);
    assert.deepEqual(v.body, body, text);
  }
  const nan = parseZsonValue("NaN");
  assert.equal(nan.type, TypeFloat64);
  assert.ok(Number.isNaN(nan.body));
  assert.deepEqual(parseZsonValue("0x0aff").body, new Uint8Array([10, 255]));
  assert.deepEqual(parseZsonValue("0x").body, new Uint8Array(0));
  assert.equal(parseZsonValue("0x01").type, TypeBytes);
  assert.deepEqual(parseZsonValue("10.0.0.1").body, new Uint8Array([10, 0, 0, 1]));
  assert.equal(parseZsonValue("::1").type, TypeIP);
  const net = parseZsonValue("10.1.2.3/8");
  assert.equal(net.type, TypeNet);
  assert.deepEqual(net.body, new Uint8Array([10, 0, 0, 0, 255, 0, 0, 0]));
  const tv = parseZsonValue("<[int64]>");
  assert.equal(tv.type, TypeType);
  assert.equal(tv.body, zctx.lookupArray(TypeInt64));
});

Deno.test("primitive decorators cast literals to every primitive type", () => {
  const cases: [string, Type, unknown][] = [
    ["1(uint8)", TypeUint8, 1],
    ["300(uint8)", TypeUint8, 300], // ranges of narrow types are not checked
    ["2(uint16)", TypeUint16, 2],
    ["3(uint32)", TypeUint32, 3],
    ["18446744073709551615(uint64)", TypeUint64, 18446744073709551615n],
    ["-4(int8)", TypeInt8, -4],
    ["5(int16)", TypeInt16, 5],
    ["6(int32)", TypeInt32, 6],
    ["7(int64)", TypeInt64, 7],
    ["1.1(float32)", TypeFloat32, Math.fround(1.1)],
    ["2.5(float64)", TypeFloat64, 2.5],
    ['"x"(string)', TypeString, "x"],
    ["null(int64)", TypeInt64, null],
    ["null(type)", TypeType, null],
  ];
  for (const [text, type, body] of cases) {
    const v = parseZsonValue(text);
    assert.equal(v.type, type, text);
    assert.deepEqual(v.body, body, text);
  }
});

Deno.test("cast rules reject mixed families with the reference's text", () => {
  assert.equal(
    errorOf(() => parseZsonValue("1(float32)")),
    'type mismatch: "int64" cannot be used as "float32"',
  );
  assert.equal(
    errorOf(() => parseZsonValue("1(time)")),
    'type mismatch: "int64" cannot be used as "time"',
  );
  assert.equal(
    errorOf(() => parseZsonValue('"x"(bytes)')),
    'type mismatch: "string" cannot be used as "bytes"',
  );
  assert.equal(errorOf(() => parseZsonValue("-1(uint8)")), "invalid unsigned integer: -1");
  assert.equal(
    errorOf(() => parseZsonValue("9999-12-17T16:37:21.023179Z")),
    "time overflow: 9999-12-17T16:37:21.023179Z (max: 2262-04-11T23:47:16Z)",
  );
  assert.equal(
    errorOf(() => parseZsonValue("{a:1}({a:int64,b:int64})")),
    "record decorator columns (2) mismatched with value columns (1)",
  );
  assert.equal(
    errorOf(() => parseZsonValue("{a:1}(int64)")),
    "record decorator not of type record: *zed.TypeOfInt64",
  );
  assert.equal(
    errorOf(() => parseZsonValue("[1](|[int64]|)")),
    "array decorator not of type array",
  );
  assert.equal(
    errorOf(() => parseZsonValue("[1(int8)]([int16])")),
    'decorator conflict enclosing context "int16" and decorator cast "int8"',
  );
  assert.equal(
    errorOf(() => parseZsonValue("<int64>(int64)")),
    'cannot apply decorator ("int64") to a type value',
  );
  assert.equal(errorOf(() => parseZsonValue("1(foo)")), 'no such type name: "foo"');
  assert.equal(
    errorOf(() => parseZsonValue("{a:1}(=int64)")),
    'bad type name "int64": primitive type name',
  );
});

Deno.test("a build error loses to an analysis error later in the value", () => {
  assert.equal(
    errorOf(() => parseZsonValue("[-1(uint8),%x]")),
    'identifier "x" must be enum and requires decorator',
  );
});

Deno.test("records: field names, duplicates, trailing commas, empty records", () => {
  const v = parseZsonValue('{a:1,"b c":"x",true:6,$d_1:[],}');
  assert.equal(typeText(v), '{a:int64,"b c":string,true:int64,$d_1:[null]}');
  assert.deepEqual(v.body, [1, "x", 6, []]);
  const dup = parseZsonValue("{a:1,b:2,a:3}");
  assert.equal(typeText(dup), "{a:int64,b:int64}");
  assert.deepEqual(dup.body, [1, 2]);
  const empty = parseZsonValue("{}");
  assert.equal(typeText(empty), "{}");
  assert.deepEqual(empty.body, []);
  assert.equal(errorOf(() => parseZsonValue("{a.b:1}")), "malformed identifier");
  assert.equal(
    errorOf(() => parseZsonValue("{a 1}")),
    'parse error: no type name found for field "a"',
  );
});

Deno.test("short-form and long-form named types", () => {
  const short = parseZsonValue("{x:1}(=point)");
  assert.equal(short.type.kind, Kind.Named);
  assert.equal(typeText(short), "point={x:int64}");
  const long = parseZsonValue("80(port=uint16)");
  assert.equal(typeText(long), "port=uint16");
  assert.equal(long.body, 80);
  const quoted = parseZsonValue('{s:"a"}(="github.com/acme/foo.Bar")');
  assert.equal(quoted.type.kind, Kind.Named);
  assert.equal((quoted.type as { name: string }).name, "github.com/acme/foo.Bar");
  // A name bound inside a value is usable later in the same value.
  const inner = parseZsonValue("[1(foo=uint8),2(foo)]");
  assert.equal(typeText(inner), "[foo=uint8]");
  assert.deepEqual(inner.body, [1, 2]);
  assert.equal(
    errorOf(() => parseZsonValue("1(=)")),
    "parse error: bad short-form type definition",
  );
});

Deno.test("names carry across values of a stream and can be redefined", async () => {
  const vals = await readText('{x:1}(=foo)\n{x:2}(foo)\n{x:"s"}(=foo)\n{x:"t"}(foo)\n');
  assert.deepEqual(vals.map(typeText), [
    "foo={x:int64}",
    "foo={x:int64}",
    "foo={x:string}",
    "foo={x:string}",
  ]);
  assert.equal(vals[0].type, vals[1].type);
  assert.notEqual(vals[1].type, vals[2].type);
  assert.equal(
    await readError("{a:1} (=0)\n{b:2} (1)\n"),
    'no such type name: "1"',
  );
});

Deno.test("numeric names are temporary bindings, not named types", async () => {
  const vals = await readText("{x:3(uint8)}(=0)\n{x:4}(0)\n");
  assert.deepEqual(vals.map(typeText), ["{x:uint8}", "{x:uint8}"]);
  assert.deepEqual(vals[1].body, [4]);
  const nested = parseZsonValue("{a:[[](2=[null])(3=(2,int64)),1(3)](=4)}(=5)");
  assert.equal(typeText(nested), "{a:[(int64,[null])]}");
});

Deno.test("bindings passed in are used and receive definitions", async () => {
  const bindings = new Map<string, Type>([["port", zctx.lookupNamed("port", TypeUint16)]]);
  const v = parseZsonValue("{p:80(port)}(=conn)", bindings);
  assert.equal(typeText(v), "conn={p:port=uint16}");
  assert.equal(bindings.get("conn"), v.type);
  const vals = await readAll(
    new TextInput(ByteInput.fromBytes(enc.encode("{p:1}(conn)"))),
    bindings,
  );
  assert.equal(vals[0].type, v.type);
});

Deno.test("mixed arrays and sets infer unions; nulls stay null", () => {
  const mixed = parseZsonValue('[1,"a",null]');
  assert.equal(typeText(mixed), "[(int64,string)]");
  assert.deepEqual(mixed.body, [new UnionBody(0, 1), new UnionBody(1, "a"), null]);
  const withNull = parseZsonValue("[1,null]");
  assert.equal(typeText(withNull), "[int64]");
  assert.deepEqual(withNull.body, [1, null]);
  assert.equal(typeText(parseZsonValue("[null,null]")), "[null]");
  const named = parseZsonValue("[1(=foo),2]");
  assert.equal(typeText(named), "[(foo=int64,int64)]");
  const set = parseZsonValue('|[1.5,"foo",1.5]|');
  assert.equal(typeText(set), "|[(float64,string)]|");
  assert.deepEqual(set.body, [new UnionBody(1, "foo"), new UnionBody(0, 1.5)]);
  const map = parseZsonValue('|{3:2,"foo":"bar"}|');
  assert.equal(typeText(map), "|{(int64,string):(int64,string)}|");
});

Deno.test("union decorators wrap values and null unions", () => {
  const u = parseZsonValue("1(int32)((int32,string))");
  assert.equal(typeText(u), "(int32,string)");
  assert.deepEqual(u.body, new UnionBody(0, 1));
  assert.deepEqual(parseZsonValue('"x"((int64,string))').body, new UnionBody(1, "x"));
  assert.equal(parseZsonValue("null((int64,string))").body, null);
  assert.deepEqual(parseZsonValue("null(string)((int64,string))").body, new UnionBody(1, null));
  const chain = parseZsonValue("123. (float32) ((int64,float32,float64))");
  assert.deepEqual(chain.body, new UnionBody(1, 123));
  const named = parseZsonValue('""(=sn)(un=(int64,sn))');
  assert.equal(typeText(named), "un=(int64,sn=string)");
  assert.deepEqual(named.body, new UnionBody(1, ""));
  const arr = parseZsonValue('[1,"b"]([(int64,string)])');
  assert.deepEqual(arr.body, [new UnionBody(0, 1), new UnionBody(1, "b")]);
  assert.equal(
    errorOf(() => parseZsonValue("1.5((int64,string))")),
    'type "float64" is not in union type "(int64,string)"',
  );
  assert.equal(
    errorOf(() => parseZsonValue("1((int64))")),
    "parse error: type list not found parsing union type at '('",
  );
});

Deno.test("enums from symbols and from strings", () => {
  const e = parseZsonValue("%TAILS(enum(HEADS,TAILS))");
  assert.equal(typeText(e), "enum(HEADS,TAILS)");
  assert.equal(e.body, 1);
  assert.equal(parseZsonValue('"a"(enum(a,b))').body, 0);
  assert.equal(
    errorOf(() => parseZsonValue("{e:%bang (enum(foo,bar,baz))}")),
    'symbol "bang" not a member of type "enum(foo,bar,baz)"',
  );
  assert.equal(
    errorOf(() => parseZsonValue("%foo")),
    'identifier "foo" must be enum and requires decorator',
  );
  assert.equal(
    errorOf(() => parseZsonValue("%a(int64)")),
    'identifier "a" is enum and incompatible with type "int64"',
  );
  assert.equal(errorOf(() => parseZsonValue("%a(foo=enum(a))")), "enum value is not of type enum");
  assert.equal(errorOf(() => parseZsonValue("1(enum())")), "enum body is empty");
  assert.equal(errorOf(() => parseZsonValue('%"a b"(enum(a))')), "ZSON syntax error");
});

Deno.test("error values", () => {
  const e = parseZsonValue('error("x")');
  assert.equal(typeText(e), "error(string)");
  assert.equal(e.body, "x");
  const rec = parseZsonValue("error({a:1})");
  assert.equal(typeText(rec), "error({a:int64})");
  const cast = parseZsonValue("error(1)(error(int8))");
  assert.equal(typeText(cast), "error(int8)");
  assert.equal(typeText(parseZsonValue('error("")(=myerror)')), "myerror=error(string)");
  assert.equal(errorOf(() => parseZsonValue("error()")), "unknown value ast type: <nil>");
  assert.equal(
    errorOf(() => parseZsonValue("error(1)(int64)")),
    "error decorator not of type error",
  );
});

Deno.test("type values", () => {
  const t = parseZsonValue("<{a:int64,b:[string],c:|{ip:net}|,d:(int64,string)}>");
  assert.equal(t.type, TypeType);
  assert.equal(formatType(t.body as Type), "{a:int64,b:[string],c:|{ip:net}|,d:(int64,string)}");
  assert.equal(formatType(parseZsonValue("<{}>").body as Type), "{}");
  assert.equal(formatType(parseZsonValue('<{"foo bar":{}}>').body as Type), '{"foo bar":{}}');
  assert.equal(formatType(parseZsonValue("<enum(a,b)>").body as Type), "enum(a,b)");
  assert.equal(formatType(parseZsonValue("<error(string)>").body as Type), "error(string)");
  // Definitions inside type values bind names.
  const bindings = new Map<string, Type>();
  parseZsonValue("<tv=uint8>", bindings);
  assert.equal(typeText(parseZsonValue("1(tv)", bindings)), "tv=uint8");
});

Deno.test("typed nulls and empty containers", () => {
  const cases: [string, string, unknown][] = [
    ["null(|{string:int32}|)", "|{string:int32}|", null],
    ["null([string])", "[string]", null],
    ["null({a:string})", "{a:string}", null],
    ["null(|[string]|)", "|[string]|", null],
    ["[]", "[null]", []],
    ["|[]|", "|[null]|", []],
    ["|{}|", "|{null:null}|", []],
    ["[]([uint8])", "[uint8]", []],
    ["{b:null([{a:string}])}", "{b:[{a:string}]}", [null]],
  ];
  for (const [text, type, body] of cases) {
    const v = parseZsonValue(text);
    assert.equal(typeText(v), type, text);
    assert.deepEqual(v.body, body, text);
  }
});

Deno.test("sets are normalized unless decorated; maps always are", () => {
  assert.deepEqual(parseZsonValue("|[3,2,1,1,2,3]|").body, [1, 2, 3]);
  assert.deepEqual(parseZsonValue("|[null,127.0.0.1]|").body, [
    null,
    new Uint8Array([127, 0, 0, 1]),
  ]);
  // The reference stores a decorated set literal in input order.
  assert.deepEqual(parseZsonValue("|[3,1,2,1]|(|[int64]|)").body, [3, 1, 2, 1]);
  assert.deepEqual(parseZsonValue('|{2:"2",1:"1",3:"3"}|').body, [1, "1", 2, "2", 3, "3"]);
  assert.deepEqual(
    parseZsonValue('|{2:"b",1:"a"}|(|{int64:string}|)').body,
    [1, "a", 2, "b"],
  );
  const ipKeys = parseZsonValue("|{::1 :::1,3.3.3.3:4.4.4.4}|");
  assert.equal(typeText(ipKeys), "|{ip:ip}|");
  assert.deepEqual((ipKeys.body as Uint8Array[])[0], new Uint8Array([3, 3, 3, 3]));
});

Deno.test("comments and whitespace between and inside values", async () => {
  const text = "// leading\n{a:1, /* inline */ b:2} // trailing\n/* block\n */ 3\u00a0\u2003 4";
  assert.equal(await zson(text), "{a:1,b:2}\n3\n4");
  assert.equal(await zson("{a:1}{b:2}1 2"), "{a:1}\n{b:2}\n1\n2");
  assert.equal(await zson("{\n  a: 1 (\n int8 ) ,\n}\n"), "{a:1(int8)}");
  assert.equal(await zson("1 /* unterminated comment"), "1");
  assert.equal(await zson(""), "");
  assert.equal(await zson("  \n// only a comment"), "");
});

Deno.test("strings: escapes, surrogate pairs, NFC, backticks", () => {
  const s = (t: string) => parseZsonValue(t).body;
  assert.equal(s(String.raw`"\"\\//\b\f\n\r\t"`), '"\\//\b\f\n\r\t');
  assert.equal(s(String.raw`"\u0000\u000A\u000b"`), "\u0000\n\u000b");
  assert.equal(s(String.raw`"\ud83d\ude00"`), "😀");
  assert.equal(s(String.raw`"\uD83D\uDE00x"`), "😀x");
  assert.equal(s('"smile😁smile"'), "smile😁smile");
  assert.equal(s(String.raw`"é\'"`), "é'"); // accepted once past the ASCII path
  assert.equal(s(String.raw`"\ud83d"`), "\ufffd"); // lone surrogates become U+FFFD
  assert.equal(s('"tab\there"'), "tab\there"); // raw controls pass on the ASCII path
  // NFC normalization of string values (not field names).
  assert.equal(s(String.raw`"A\u030a"`), "Å");
  assert.equal(s('"A\u030a"'), "Å");
  assert.deepEqual(
    parseZsonValue('{"A\u030a":1}').type,
    zctx.lookupRecordOf(["A\u030a"], [TypeInt64]),
  );
  // Backtick strings as v1.3.0 parses them: a second closing backtick is required.
  assert.equal(s("`abc``"), "abc");
  assert.equal(s("=> `a\n  b``"), "a\n  b");
  assert.equal(s("`\n  a\n  b``"), "a\nb");
  assert.equal(errorOf(() => parseZsonValue("`abc`")), "parse error: mismatched string backticks");
});

Deno.test("string literal errors use the reference's texts", () => {
  const cases: [string, string][] = [
    [' "\n" ', "parse error: string literal: unescaped line break"],
    [' "', "parse error: string literal: EOF"],
    [' "abc', "parse error: string literal: EOF"],
    [' "\\', "parse error: string literal: no end quote"],
    [' "\\u', "parse error: string literal: EOF"],
    [' "\\u" ', "parse error: string literal: short \\u escape"],
    [' "\\u00" ', "parse error: string literal: short \\u escape"],
    [' "\\u000g" ', "parse error: string literal: invalid hex digits in \\u escape"],
    [' "\\U00000000" ', "parse error: string literal: illegal escape (\\U)"],
    [' "\\x00" ', "parse error: string literal: illegal escape (\\x)"],
    [' "\\a" ', "parse error: string literal: illegal escape (\\a)"],
    [' "\\v" ', "parse error: string literal: illegal escape (\\v)"],
    [' "é\\x" ', "parse error: string literal: illegal escape (\\x) in string"],
    [' "é\nx" ', "parse error: string literal: illegal control code"],
  ];
  for (const [text, msg] of cases) assert.equal(errorOf(() => parseZsonValue(text)), msg, text);
});

Deno.test("syntax errors and truncated input", async () => {
  const cases: [string, string][] = [
    ["Garbage!\n", "ZSON syntax error"],
    ["foo", "ZSON syntax error"],
    ["1e400", "ZSON syntax error"],
    ["1_000", "ZSON syntax error"],
    ["Inf", "ZSON syntax error"],
    ["::ffff:1.2.3.4", "ZSON syntax error"],
    ["{a:}", "ZSON syntax error"],
    ["0x1", "encoding/hex: odd length hex string"],
    ["{a:1", "parse error: mismatched braces while parsing record type"],
    ["{a:", "parse error: mismatched braces while parsing record type"],
    ["[1,2", "parse error: mismatched brackets while parsing array type"],
    ["[1,2}", "parse error: mismatched brackets while parsing array type"],
    ["|[1", "parse error: mismatched set value brackets"],
    ["|[1]", "parse error: mismatched closing bracket while parsing set value"],
    ["|{1:2", "parse error: mismatched map value brackets"],
    ["|{1 2}|", "parse error: no colon found after map key while parsing map entry"],
    ["|(1)", "parse error: no '|[' or '|{' type bracket at '|' character"],
    ["<int64", "parse error: mismatched parentheses while parsing type value"],
    ["<>", "parse error: couldn't parse type"],
    ["1(int8", "parse error: mismatched parentheses while parsing type decorator"],
    ["1(|[int8]", 'parse error: mismatched closing bracket while parsing type "set"'],
    ["1({a int8})", 'parse error: no type name found for field "a"'],
    ["1(enum a)", "no opening parenthesis in enum type"],
    ["error(1", "ZSON syntax error"],
    ["1(int8)(=foo)", "internal error: unknown ast type in Analyzer.convertAny(): <nil>"],
  ];
  for (const [text, msg] of cases) {
    assert.equal(errorOf(() => parseZsonValue(text)), msg, text);
    assert.equal(await readError(text), msg, text);
  }
  assert.equal(errorOf(() => parseZsonValue("1 2")), "ZSON syntax error");
  assert.equal(errorOf(() => parseZsonValue("")), "ZSON syntax error");
});

Deno.test("absurd nesting is an error, not a crash", async () => {
  const deep = "[".repeat(100000) + "]".repeat(100000);
  assert.match(errorOf(() => parseZsonValue(deep)), /nesting too deep/);
  assert.match(await readError(deep), /nesting too deep/);
});

Deno.test("values split across tiny chunks parse as the whole text does", async () => {
  const text = [
    '{_path:"conn",ts:2018-03-24T17:15:20.600725Z,id:{orig_h:10.47.1.152,',
    "orig_p:49562(port=uint16),resp_h:23.217.103.245,resp_p:80(port)}(=flow),",
    'proto:"tcp"(=zenum)}',
    "{flows:[{orig_h:10.47.1.152,orig_p:1,resp_h:::1,resp_p:2}(flow)]} // c",
    '"smile😁smile \\ud83d\\ude00 é" 12345678901234567890 1.5e10 -1m30s',
    "|{1:2,0:1}|(|{int8:int8}|) <{a:[int64]}> %b(enum(a,b)) error(1) null",
    '`abc`` /* x */ "A\\u030a"',
  ].join("\n");
  const whole = (await readText(text)).map((v) => formatZson(v.type, v.body));
  assert.equal(whole.length, 13);
  for (const size of [1, 2, 3, 7]) {
    const got = (await readAll(chunked(text, size))).map((v) => formatZson(v.type, v.body));
    assert.deepEqual(got, whole, `chunk size ${size}`);
  }
});

Deno.test("errors surface after the values before them", async () => {
  const r = new ZsonReader(chunked("1 2 {a:", 100));
  assert.deepEqual((await r.read())!.map((v) => v.body), [1, 2]);
  await assert.rejects(() => r.read(), /mismatched braces/);
  assert.equal(await r.read(), null);
});

Deno.test("the reader batches up to BATCH_SIZE values", async () => {
  const n = BATCH_SIZE * 2 + 5;
  const text = Array.from({ length: n }, (_, i) => `{a:${i}}`).join("\n");
  const r = new ZsonReader(new TextInput(ByteInput.fromBytes(enc.encode(text))));
  const sizes: number[] = [];
  let last: Batch | null = null;
  for (let b = await r.read(); b !== null; b = await r.read()) {
    sizes.push(b.length);
    last = b;
  }
  assert.deepEqual(sizes, [BATCH_SIZE, BATCH_SIZE, 5]);
  assert.deepEqual(last![4].body, [n - 1]);
});

Deno.test("detectZson reads one value", () => {
  assert.deepEqual(detectZson("{a:1}\n{b:", true), { ok: true });
  assert.deepEqual(detectZson("", true), { ok: true });
  assert.deepEqual(detectZson("{a:1}", false), { ok: "more" });
  assert.deepEqual(detectZson('{a:"x', false), { ok: "more" });
  assert.deepEqual(detectZson("Garbage!\n", true), { ok: false, error: "ZSON syntax error" });
  assert.deepEqual(detectZson("1(foo)", true), { ok: false, error: 'no such type name: "foo"' });
});

Deno.test("parseZsonType reads ZSON type syntax", () => {
  assert.equal(parseZsonType("int64"), TypeInt64);
  assert.equal(
    formatType(parseZsonType("{a:int64,b:foo=(string,int64),c:[foo],d:|{ip:error(string)}|}")),
    "{a:int64,b:foo=(int64,string),c:[foo],d:|{ip:error(string)}|}",
  );
  assert.equal(formatType(parseZsonType(' enum(a,"b c") ')), 'enum(a,"b c")');
  const bindings = new Map<string, Type>([["port", zctx.lookupNamed("port", TypeUint16)]]);
  assert.equal(formatType(parseZsonType("[port]", bindings)), "[port=uint16]");
  assert.equal(errorOf(() => parseZsonType("nope")), 'no such type name: "nope"');
  assert.equal(errorOf(() => parseZsonType("{}x")), "ZSON syntax error");
  assert.equal(errorOf(() => parseZsonType("")), "parse error: couldn't parse type");
  assert.equal(
    errorOf(() => parseZsonType("{a:int64,a:string}")),
    'duplicate field: "a"',
  );
});

Deno.test("the analyzer can be driven with a parsed AST", () => {
  const p = new Parser();
  p.reset("{a:1(x=int8)} {b:2(x)}", 0, true);
  const bindings = new Map<string, Type>();
  const a = analyzeValue(p.parseValue()!, bindings);
  const b = analyzeValue(p.parseValue()!, bindings);
  assert.equal(typeText(a), "{a:x=int8}");
  assert.equal(typeText(b), "{b:x=int8}");
  assert.equal(p.parseValue(), null);
});

Deno.test("round trip of the reference's container and map ztests", async () => {
  const input = [
    "null(string)((string,int32))",
    "1(int32)((int32,string))",
    '|{"a":"foo"(named=(int64,string)),"b":1(named=(int64,string))}|',
    '|{"a"((int64,string)):"foo","b"((int64,string)):"bar"}|',
    "{a:|{}|}",
    "|{1ns:1ns,8w:8w,9y:9y}|",
    "|{-2.2e2:-2.2e2,-3.:-3.,4.:4.,5.5e5:5.5e5}|",
    '[null((int64,string,null)),"foo"((int64,string,null)),3((int64,string,null))]',
    "{f32:-3.4028235e+38(float32),f64:-1.7976931348623157e+308}",
  ].join("\n");
  assert.equal(
    await zson(input),
    [
      "null(string)((int32,string))",
      "1(int32)((int32,string))",
      '|{"a":"foo","b":1}|(|{string:named=(int64,string)}|)',
      '|{"a":"foo","b":"bar"}|(|{(int64,string):string}|)',
      "{a:|{}|(|{null:null}|)}",
      "|{1ns:1ns,56d:56d,9y:9y}|",
      "|{-3.:-3.,4.:4.,-220.:-220.,550000.:550000.}|",
      '[null,"foo",3]([(int64,string,null)])',
      "{f32:-3.4028235e+38(float32),f64:-1.7976931348623157e+308}",
    ].join("\n"),
  );
});
