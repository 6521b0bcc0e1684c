import assert from "node:assert/strict";
import { formatZson, ZsonFormatter } from "../../lib/formats/zson/formatter.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { ByteBuffer } from "../../lib/formats/json/bytebuf.ts";
import { RecordPlan } from "../../lib/formats/zson/plan.ts";
import { Field, Kind, type Type, TypeFloat32, TypeInt64, TypeString } from "../../lib/zed/types.ts";
import { zctx } from "../../lib/zed/context.ts";
import { type Body, Value } from "../../lib/zed/value.ts";
import { rng } from "./zng_helpers.ts";
import { ValueGen } from "./zng_random.ts";

/** Reads ZSON and formats it again. */
function roundTrip(text: string, tab = 0): string {
  const v = parseZsonValue(text);
  return new ZsonFormatter(tab).format(v.type, v.body);
}

Deno.test("decoration follows the reference formatter (formats.md §2.8)", () => {
  const cases: [string, string][] = [
    ["1", "1"],
    ["1(uint8)", "1(uint8)"],
    ["18446744073709551615", "18446744073709551615(uint64)"],
    ["null", "null"],
    ["null(int64)", "null(int64)"],
    ["{a:null(int64)}", "{a:null(int64)}"],
    ["{a:null}", "{a:null}"],
    ["[1,null(int64)]", "[1,null(int64)]"],
    ["[null,null]", "[null,null]"],
    ["|[null,127.0.0.1]|", "|[null(ip),127.0.0.1]|"],
    ['|[1.5,"foo",1.5]|', '|["foo",1.5]|'],
    ['[1,"b",2]', '[1,"b",2]'],
    ["[8((int64,string)),3((int64,string))]", "[8,3]([(int64,string)])"],
    [
      '[null((int64,string,null)),"foo"((int64,string,null)),3((int64,string,null))]',
      '[null,"foo",3]([(int64,string,null)])',
    ],
    ["1(int32)((int32,string))", "1(int32)((int32,string))"],
    ['""((int32,string))', '""((int32,string))'],
    ["null(string)((string,int32))", "null(string)((int32,string))"],
    ["null((int64,string))", "null((int64,string))"],
    ['{a:"a"((int64,string))}', '{a:"a"((int64,string))}'],
    ["{version:[]([null])}", "{version:[]([null])}"],
    ["[]", "[]"],
    ["[]([uint8])", "[]"],
    ["{a:[]([uint8])}", "{a:[]([uint8])}"],
    ["{a:[1(uint8),2(uint8)]}", "{a:[1(uint8),2(uint8)]}"],
    ["{a:|{}|}", "{a:|{}|(|{null:null}|)}"],
    [
      '|{"a":"foo"(named=(int64,string)),"b":1(named=(int64,string))}|',
      '|{"a":"foo","b":1}|(|{string:named=(int64,string)}|)',
    ],
    ["{x:1}(=foo)", "{x:1}(=foo)"],
    ["{a:1(=foo),b:2(foo),c:[3(foo),4(foo)]}", "{a:1(=foo),b:2(foo),c:[3(foo),4(foo)]}"],
    ["[1(foo=uint8),2(foo)]", "[1(foo=uint8),2(foo)]"],
    ["{x:null(=n)}", "{x:null(n=null)}"],
    ["{x:null(n=int64),y:null(n)}", "{x:null(n=int64),y:null(n)}"],
    ["{x:error(1(uint8))}", "{x:error(1)(error(uint8))}"],
    ['error("x")', 'error("x")'],
    ["{x:<foo=int64>,y:1(foo)}", "{x:<foo=int64>,y:1(=foo)}"],
    ["%b(enum(a,b))", "%b(enum(a,b))"],
    ["{a:{x:1}(=foo),b:{x:2(uint8)}(=foo)}", "{a:{x:1}(=foo),b:{x:2}(=foo)}"],
    ["|{::1 :::1}|", "|{::1 :::1}|"],
    [
      '{"a b":1,"1a":2,$x:3,_:4,é:5,true:6,"a.b":7,"":8}',
      '{"a b":1,"1a":2,$x:3,_:4,é:5,true:6,"a.b":7,"":8}',
    ],
    ['{x:1}(="github.com/acme/foo.Bar")', '{x:1}(="github.com/acme/foo.Bar")'],
    ["{x:1}(=a.b)", "{x:1}(=a.b)"],
  ];
  for (const [input, want] of cases) assert.equal(roundTrip(input), want, input);
});

Deno.test("primitive text edge cases print exactly", () => {
  const cases: [string, string][] = [
    ["1.", "1."],
    ["-0.", "0."],
    ["1e20", "1e+20"],
    ["0.1(float32)", "0.1(float32)"],
    ["16777216.(float32)", "16777216.(float32)"],
    ["NaN", "NaN"],
    ["-Inf", "-Inf"],
    ["2020-11-24T08:44:09.586441-08:00", "2020-11-24T16:44:09.586441Z"],
    ["1970-01-01T00:00:00.000000001Z", "1970-01-01T00:00:00.000000001Z"],
    ["8w", "56d"],
    ["-292y171d23h47m16.854775808s", "-292y171d23h47m16.854775808s"],
    [
      '"a\\u0000b\\u0001\\u001f\\b\\f\\n\\r\\t\\"\\\\\\/"',
      '"a\\u0000b\\u0001\\u001f\\b\\f\\n\\r\\t\\"\\\\/"',
    ],
    ['"A\\u030a"', '"Å"'],
    ["0x", "0x"],
    ["0xdeadbeef", "0xdeadbeef"],
    ["10.0.0.1/8", "10.0.0.0/8"],
    ["-9223372036854775808", "-9223372036854775808"],
    ["300(uint8)", "300(uint8)"],
    ["<{a:int64,b:[string]}>", "<{a:int64,b:[string]}>"],
    ["<(string,int64)>", "<(int64,string)>"],
  ];
  for (const [input, want] of cases) assert.equal(roundTrip(input), want, input);
});

Deno.test("pretty layout matches -Z (formats.md §2.10)", () => {
  const input = '{a:1(uint8),b:[1(int8),2(int8)],c:{d:"x"}(=foo),e:{d:"y"}(foo),' +
    'f:|{"k":{x:1}}|,g:[]([null]),h:1((int64,string)),i:<foo={a:int64}>,k:<enum(a,b)>,m:<{}>,' +
    'n:error({m:"x"}),o:null({a:int64})}';
  const want = `{
    a: 1 (uint8),
    b: [
        1 (int8),
        2 (int8)
    ],
    c: {
        d: "x"
    } (=foo),
    e: {
        d: "y"
    } (foo),
    f: |{
        "k": {
            x: 1
        }
    }|,
    g: [] ([null]),
    h: 1 ((int64,string)),
    i: <foo={
        a: int64
    }>,
    k: <enum(a,b)>,
    m: <{}>,
    n: error({
        m: "x"
    }),
    o: null ({a:int64})
}`;
  assert.equal(roundTrip(input, 4), want);
  assert.equal(roundTrip("{d:|{}|}", 4), "{\n    d: |{\n    }| (|{null:null}|)\n}");
  assert.equal(roundTrip("0 (myuint8=uint8)", 2), "0 (myuint8=uint8)");
  assert.equal(
    roundTrip("<({foo:int64},{bar:string},uint64)>", 4),
    "<(\n    uint64,\n    {\n        bar: string\n    },\n    {\n        foo: int64\n    }\n)>",
  );
  assert.equal(roundTrip("{x:<|{string:int64}|>}", 4), "{\n    x: <|{    string: int64}|>\n}");
});

Deno.test("named types are redefined in each top-level value", async () => {
  const chunks: Uint8Array[] = [];
  const w = new ZsonWriter((c) => {
    chunks.push(c);
    return Promise.resolve();
  });
  const port = zctx.lookupNamed("port", zctx.lookupRecordOf(["x"], [TypeInt64]));
  await w.write([new Value(port, [1]), new Value(port, [2])]);
  await w.end();
  const text = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  assert.equal(text, "{x:1}(=port)\n{x:2}(=port)\n");
});

Deno.test("persist keeps matching definitions across values", () => {
  const f = new ZsonFormatter(0, /^p/);
  const port = zctx.lookupNamed("port", TypeString);
  assert.equal(f.format(port, "a"), '"a"(=port)');
  assert.equal(f.format(port, "b"), '"b"(port)');
});

Deno.test("formatZson decorates non-implied values", () => {
  assert.equal(formatZson(TypeFloat32, Math.fround(1.5)), "1.5(float32)");
  assert.equal(formatZson(TypeInt64, null), "null(int64)");
});

Deno.test("zson: records of primitive fields, formatted from a plan per type, as any value is", () => {
  for (
    const text of [
      '{a:1,b:"x"}',
      "{p:80(uint16)}",
      "{s:null(string)}",
      "{n:null}",
      '{"a b":1,"":2}',
      "{f:1.5(float32)}",
      "{t:2024-01-01T00:00:00Z,d:1h,ip:10.0.0.1,net:10.0.0.0/8,b:0x01,bo:true,y:+Inf}",
      '{i8:null(int8),u:18446744073709551615(uint64),q:"\\"quote\\"\\n"}',
      "{ts:null(time),p:null(ip)}",
      // Errors of implied primitives (cut's error("missing")), and their nulls.
      '{q:error("missing"),r:null(error(string))}',
      "{q:error(1),z:null(error(string))}",
      // Not flat: a type value, a named type, an error (the general formatter).
      "{ty:<int64>}",
      "{port:80(port=uint16)}",
      '{e:error("x")}',
      "{q:error(80)(error(uint16))}",
    ]
  ) {
    const v = parseZsonValue(text);
    assert.equal(formatZson(v.type, v.body), text);
    // The same value twice: the plan, once made, gives the same text.
    assert.equal(formatZson(v.type, v.body), text);
  }
});

Deno.test("zson: records of primitive fields indented as the reference's -Z writes them", () => {
  // Texts from zq v1.3.0 -Z (and -pretty 2 for the last).
  const cases: [string, number, string][] = [
    ['{a:1,b:"x"}', 4, '{\n    a: 1,\n    b: "x"\n}'],
    ["{p:80(uint16),f:1.5(float32)}", 4, "{\n    p: 80 (uint16),\n    f: 1.5 (float32)\n}"],
    ["{s:null(string),n:null}", 4, "{\n    s: null (string),\n    n: null\n}"],
    [
      '{q:error("missing"),r:null(error(string))}',
      4,
      '{\n    q: error("missing"),\n    r: null (error(string))\n}',
    ],
    ["{q:error(1),z:null(error(string))}", 2, "{\n  q: error(1),\n  z: null (error(string))\n}"],
  ];
  for (const [text, tab, want] of cases) {
    const v = parseZsonValue(text);
    const f = new ZsonFormatter(tab);
    assert.equal(f.format(v.type, v.body), want);
    const out = new ByteBuffer();
    f.formatInto(v.type, v.body, out);
    assert.equal(new TextDecoder().decode(out.take()), want);
    // One line still, from the same type's one-line plan.
    assert.equal(formatZson(v.type, v.body), text);
  }
});

Deno.test("zson writer: the bytes written are the formatter's text in UTF-8, in chunks", async () => {
  const texts = [
    '{a:1,s:"plain"}',
    '{a:2,s:"needs \\"escapes\\"\\n\\t\\\\"}',
    '{a:3,s:"héllo wörld ✓ 😀"}',
    '{a:4,s:"\\u0001\\u001f"}',
    '{a:5,s:null(string),q:error("missing")}',
    '{a:6,nested:{s:"ünïcödé"},l:["x","ÿ"]}',
    '"top-level ✓"',
    "{t:2024-01-01T00:00:00Z,ip:10.0.0.1,b:0x01ff}",
  ];
  const values = texts.map((t) => parseZsonValue(t));
  // A lone surrogate reads as U+FFFD's escape.
  values.push(new Value(zctx.lookupRecordOf(["s"], [TypeString]), ["a\ud800b"]));
  const want = values.map((v) => formatZson(v.type, v.body) + "\n").join("");
  assert.ok(want.includes("\\ufffd") && want.includes("😀"));
  for (const times of [1, 500]) {
    const chunks: Uint8Array[] = [];
    const w = new ZsonWriter((c) => {
      chunks.push(c);
      return Promise.resolve();
    });
    for (let i = 0; i < times; i++) await w.write(values);
    await w.end();
    const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    chunks.reduce((at, c) => (bytes.set(c, at), at + c.length), 0);
    assert.equal(new TextDecoder().decode(bytes), want.repeat(times));
    if (times > 1) assert.ok(chunks.length > 1, "large output is sent in several chunks");
  }
});

Deno.test("zson: planned records are written as the general formatter writes them (random values)", () => {
  let planned = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const r = rng(seed);
    const gen = new ValueGen(r, { zsonSafe: false });
    for (let k = 0; k < 60; k++) {
      const inner = gen.type();
      // As a record's field (the plans are per record type), and as it is.
      const t = zctx.lookupRecord([new Field("x", inner), new Field("y", TypeString)]);
      for (let i = 0; i < 5; i++) {
        const v = gen.value(inner);
        const values: [Type, Body][] = [[t, [v.body, i % 2 === 0 ? "s" : null]], [v.type, v.body]];
        for (const [vt, vb] of values) {
          for (const tab of [0, 2, 4]) {
            const f = new ZsonFormatter(tab);
            const want = f.general(vt, vb);
            assert.equal(f.format(vt, vb), want, `seed ${seed}: ${want}`);
            const out = new ByteBuffer();
            f.formatInto(vt, vb, out);
            assert.equal(new TextDecoder().decode(out.take()), want, `seed ${seed}: ${want}`);
          }
          if (
            vt.kind === Kind.Record && vb !== null && RecordPlan.of(vt, 0, new ZsonFormatter(0))
          ) {
            planned++;
          }
        }
      }
    }
  }
  assert.ok(planned > 1000, `${planned} planned`);
});
