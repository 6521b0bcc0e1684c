import assert from "node:assert/strict";
import { ByteInput, TextInput } from "../../lib/formats/io.ts";
import { JsonReader } from "../../lib/formats/json/reader.ts";
import { JsonWriter, type JsonWriterOptions } from "../../lib/formats/json/writer.ts";
import { zctx } from "../../lib/zed/context.ts";
import { formatJsonFloat } from "../../lib/zed/float.ts";
import { normalizeMap } from "../../lib/zed/normalize.ts";
import { parsePrimitive } from "../../lib/zed/primitive.ts";
import {
  ID_BYTES,
  ID_DURATION,
  ID_FLOAT32,
  ID_IP,
  ID_NET,
  ID_TIME,
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
  TypeUint64,
  TypeUint8,
} from "../../lib/zed/types.ts";
import { type Batch, type Body, UnionBody, Value } from "../../lib/zed/value.ts";

async function writeJson(batches: Batch[], opts?: JsonWriterOptions): Promise<string> {
  const chunks: Uint8Array[] = [];
  const w = new JsonWriter((c) => {
    chunks.push(c.slice());
    return Promise.resolve();
  }, opts);
  for (const b of batches) await w.write(b);
  await w.end();
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.length;
  }
  return new TextDecoder().decode(all);
}

/** The JSON line of one value (without its newline). */
async function json(type: Type, body: Body): Promise<string> {
  const out = await writeJson([[new Value(type, body)]]);
  assert.ok(out.endsWith("\n"));
  return out.slice(0, -1);
}

function rec(fields: [string, Type, Body][]): Value {
  const t = zctx.lookupRecordOf(fields.map((f) => f[0]), fields.map((f) => f[1]));
  return new Value(t, fields.map((f) => f[2]));
}

async function writeError(type: Type, body: Body): Promise<string> {
  try {
    await writeJson([[new Value(type, body)]]);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("no error");
}

Deno.test("json writer: null of any type is null", async () => {
  assert.equal(await json(TypeNull, null), "null");
  assert.equal(await json(TypeInt64, null), "null");
  assert.equal(await json(TypeString, null), "null");
  assert.equal(await json(zctx.lookupRecordOf(["a"], [TypeString]), null), "null");
  assert.equal(await json(zctx.lookupArray(TypeInt64), null), "null");
  assert.equal(await json(zctx.lookupMap(TypeInt64, TypeString), null), "null");
  assert.equal(await json(zctx.lookupUnion([TypeInt64, TypeString]), null), "null");
  assert.equal(await json(zctx.lookupError(TypeString), null), "null");
});

Deno.test("json writer: integers with all their digits", async () => {
  assert.equal(await json(TypeInt64, 0), "0");
  assert.equal(await json(TypeInt64, 7), "7");
  assert.equal(await json(TypeInt64, 1234567890), "1234567890");
  assert.equal(await json(TypeInt64, -42), "-42");
  assert.equal(await json(TypeInt64, 9007199254740991), "9007199254740991");
  assert.equal(await json(TypeInt64, -9223372036854775808n), "-9223372036854775808");
  assert.equal(await json(TypeUint64, 18446744073709551615n), "18446744073709551615");
  assert.equal(await json(TypeInt8, -128), "-128");
  assert.equal(await json(TypeUint8, 300), "300");
  assert.equal(await json(TypeInt16, 2147483648), "2147483648");
  assert.equal(await json(TypeUint16, 443), "443");
});

Deno.test("json writer: floats as encoding/json writes them", async () => {
  // The verified multi-type example of formats.md §5.2.
  const v = rec([
    ["f", TypeFloat64, 1],
    ["g", TypeFloat64, 1.5],
    ["h", TypeFloat64, 1e20],
    ["h2", TypeFloat64, 1e21],
    ["h3", TypeFloat64, 1e-6],
    ["h4", TypeFloat64, 1e-7],
    ["h5", TypeFloat64, 123456789.123],
    ["j", TypeFloat32, parsePrimitive(ID_FLOAT32, "0.1")],
    ["k", TypeFloat32, 16777216],
    ["l", TypeFloat64, -0],
  ]);
  assert.equal(
    await json(v.type, v.body),
    '{"f":1,"g":1.5,"h":100000000000000000000,"h2":1e+21,"h3":0.000001,"h4":1e-7,' +
      '"h5":123456789.123,"j":0.1,"k":16777216,"l":-0}',
  );
  assert.equal(await json(TypeFloat64, 0), "0");
  assert.equal(await json(TypeFloat64, 4.315376281738281e-05), "0.00004315376281738281");
  assert.equal(await json(TypeFloat64, 1.5e-7), "1.5e-7");
  assert.equal(await json(TypeFloat64, 1e-10), "1e-10");
  assert.equal(await json(TypeFloat64, -2.5e300), "-2.5e+300");
  assert.equal(await json(TypeFloat64, 5e-324), "5e-324");
  assert.equal(await json(TypeFloat64, 1.7976931348623157e308), "1.7976931348623157e+308");
  assert.equal(
    await json(TypeFloat32, parsePrimitive(ID_FLOAT32, "3.4028235e+38")),
    "3.4028235e+38",
  );
});

Deno.test("json writer: bools, bytes and formatted primitives", async () => {
  assert.equal(await json(TypeBool, true), "true");
  assert.equal(await json(TypeBool, false), "false");
  assert.equal(await json(TypeBytes, parsePrimitive(ID_BYTES, "0x0102")), '"0x0102"');
  assert.equal(await json(TypeBytes, new Uint8Array()), '"0x"');
  // zio/jsonio/ztests/time.yaml
  const times: [string, string][] = [
    ["2001-09-09T01:46:40Z", "31y259d1h46m40s"],
    ["1970-01-01T00:00:01Z", "-1s"],
    ["1970-01-01T00:00:01Z", "1s"],
    ["1973-07-23T18:26:40Z", "3y204d18h26m40s"],
    ["1970-01-01T00:00:00.00000001Z", "10ns"],
  ];
  for (const [ts, d] of times) {
    const v = rec([
      ["_path", TypeString, "conn"],
      ["ts", TypeTime, parsePrimitive(ID_TIME, ts)],
      ["d", TypeDuration, parsePrimitive(ID_DURATION, d)],
    ]);
    assert.equal(await json(v.type, v.body), `{"_path":"conn","ts":"${ts}","d":"${d}"}`);
  }
  assert.equal(await json(TypeDuration, parsePrimitive(ID_DURATION, "1h")), '"1h"');
  assert.equal(await json(TypeIP, parsePrimitive(ID_IP, "10.1.1.1")), '"10.1.1.1"');
  assert.equal(
    await json(TypeIP, parsePrimitive(ID_IP, "fe80::eef4:bbff:fe51:89ec")),
    '"fe80::eef4:bbff:fe51:89ec"',
  );
  assert.equal(await json(TypeNet, parsePrimitive(ID_NET, "10.0.0.0/8")), '"10.0.0.0/8"');
  assert.equal(await json(TypeType, TypeInt64), '"<int64>"');
  assert.equal(await json(TypeType, zctx.lookupRecordOf(["a"], [TypeInt64])), '"<{a:int64}>"');
  assert.equal(
    await json(TypeType, zctx.lookupRecordOf(["a b"], [TypeInt64])),
    '"<{\\"a b\\":int64}>"',
  );
});

Deno.test("json writer: every type of types.yaml", async () => {
  const v = rec([
    ["a", TypeIP, parsePrimitive(ID_IP, "10.1.1.1")],
    ["a2", TypeIP, parsePrimitive(ID_IP, "fe80::eef4:bbff:fe51:89ec")],
    ["b", TypeBool, true],
    ["c", TypeUint64, 517],
    ["f", TypeFloat64, 3.14159],
    ["i", TypeInt32, 18],
    ["interval", TypeDuration, 60e9],
    ["p", TypeUint16, 443],
    ["s", TypeString, "Hello, world!"],
    ["t", TypeTime, parsePrimitive(ID_TIME, "2020-01-07T14:36:23.487Z")],
    ["type", TypeType, TypeInt64],
  ]);
  assert.equal(
    await json(v.type, v.body),
    '{"a":"10.1.1.1","a2":"fe80::eef4:bbff:fe51:89ec","b":true,"c":517,"f":3.14159,"i":18,' +
      '"interval":"1m","p":443,"s":"Hello, world!","t":"2020-01-07T14:36:23.487Z","type":"<int64>"}',
  );
});

Deno.test("json writer: strings are escaped as Go does without HTML escaping", async () => {
  assert.equal(await json(TypeString, "<>&"), '"<>&"');
  assert.equal(await json(TypeString, 'a"b\\c/d'), '"a\\"b\\\\c/d"');
  assert.equal(await json(TypeString, "\n\r\t"), '"\\n\\r\\t"');
  assert.equal(await json(TypeString, "\b\f"), '"\\u0008\\u000c"');
  assert.equal(await json(TypeString, "\u0000\u0001\u001f"), '"\\u0000\\u0001\\u001f"');
  assert.equal(await json(TypeString, "\u007f"), '"\u007f"');
  assert.equal(await json(TypeString, "a\u2028b\u2029c"), '"a\\u2028b\\u2029c"');
  assert.equal(await json(TypeString, "x\ud800y\udc00"), '"x\\ufffdy\\ufffd"');
  assert.equal(await json(TypeString, "é😀中"), '"é😀中"');
  assert.equal(await json(TypeString, ""), '""');
  // Field names are escaped the same way.
  const v = rec([["<>&\n", TypeString, "<>&"]]);
  assert.equal(await json(v.type, v.body), '{"<>&\\n":"<>&"}');
});

Deno.test("json writer: containers", async () => {
  // zio/jsonio/ztests/empty-containers.yaml and null-containers.yaml
  const strings = zctx.lookupArray(TypeString);
  const v = rec([
    ["dns", strings, ["google.com"]],
    ["uri", strings, []],
    ["email", zctx.lookupSet(TypeString), []],
    ["ip", zctx.lookupArray(TypeIP), null],
  ]);
  assert.equal(await json(v.type, v.body), '{"dns":["google.com"],"uri":[],"email":[],"ip":null}');
  const m = zctx.lookupMap(TypeInt64, TypeString);
  const w = rec([
    ["m", m, normalizeMap(TypeInt64, [2, "b", 1, "a"])],
    ["m2", m, []],
    ["s", zctx.lookupSet(TypeInt64), [1, 2]],
    ["s2", zctx.lookupSet(TypeInt64), []],
    ["a", zctx.lookupArray(TypeNull), []],
    ["a2", zctx.lookupArray(TypeInt64), null],
  ]);
  assert.equal(
    await json(w.type, w.body),
    '{"m":[{"key":1,"value":"a"},{"key":2,"value":"b"}],"m2":null,"s":[1,2],"s2":[],"a":[],' +
      '"a2":null}',
  );
  assert.equal(await json(zctx.lookupRecordOf([], []), []), "{}");
  const nested = rec([["a", zctx.lookupRecordOf(["b"], [TypeString]), ["1"]]]);
  assert.equal(await json(nested.type, nested.body), '{"a":{"b":"1"}}');
});

Deno.test("json writer: unions, enums, errors and named types", async () => {
  // zio/jsonio/ztests/union-output.yaml
  const u = zctx.lookupUnion([TypeInt64, TypeString]);
  assert.equal(await json(u, new UnionBody(0, 1)), "1");
  assert.equal(await json(u, new UnionBody(1, "one")), '"one"');
  assert.equal(await json(u, new UnionBody(1, null)), "null");
  const e = zctx.lookupEnum(["foo", "bar"]);
  assert.equal(await json(e, 1), '"bar"');
  assert.equal(await json(e, 5), '"<bad enum>"');
  const v = rec([
    ["x", zctx.lookupError(TypeString), "e"],
    ["y", zctx.lookupError(zctx.lookupRecordOf(["a"], [TypeInt64])), [1]],
  ]);
  assert.equal(await json(v.type, v.body), '{"x":{"error":"e"},"y":{"error":{"a":1}}}');
  assert.equal(
    await json(zctx.lookupError(TypeString), "divide by zero"),
    '{"error":"divide by zero"}',
  );
  // zio/jsonio/ztests/typedef.yaml
  const named = zctx.lookupNamed("custom", zctx.lookupRecordOf(["a"], [TypeInt64]));
  assert.equal(await json(named, [1]), '{"a":1}');
  assert.equal(await json(zctx.lookupArray(zctx.lookupNamed("port", TypeUint16)), [80]), "[80]");
});

Deno.test("json writer: NaN and infinities fail with Go's texts", async () => {
  assert.equal(await writeError(TypeFloat64, NaN), "json: unsupported value: NaN");
  assert.equal(await writeError(TypeFloat64, Infinity), "json: unsupported value: +Inf");
  assert.equal(await writeError(TypeFloat32, -Infinity), "json: unsupported value: -Inf");
  const prefix = "json: error calling MarshalJSON for type jsonio.record: ";
  const r = rec([["a", TypeString, "x"], ["b", TypeFloat64, NaN]]);
  assert.equal(await writeError(r.type, r.body), prefix + "json: unsupported value: NaN");
  const inner = zctx.lookupRecordOf(["f"], [TypeFloat64]);
  const outer = rec([["r", inner, [Infinity]]]);
  assert.equal(
    await writeError(outer.type, outer.body),
    prefix + prefix + "json: unsupported value: +Inf",
  );
  assert.equal(
    await writeError(zctx.lookupArray(TypeFloat64), [1, NaN]),
    "json: unsupported value: NaN",
  );
  // The values before the bad one are written.
  const chunks: string[] = [];
  const w = new JsonWriter((c) => {
    chunks.push(new TextDecoder().decode(c));
    return Promise.resolve();
  });
  await assert.rejects(
    () => w.write([new Value(TypeInt64, 1), new Value(TypeFloat64, NaN), new Value(TypeInt64, 2)]),
    { message: "json: unsupported value: NaN" },
  );
  assert.equal(chunks.join(""), "1\n");
});

Deno.test("json writer: one value per line across batches", async () => {
  const out = await writeJson([
    [new Value(TypeString, "a"), new Value(TypeInt64, 1)],
    [],
    [new Value(TypeNull, null)],
  ]);
  assert.equal(out, '"a"\n1\nnull\n');
  assert.equal(await writeJson([]), "");
});

Deno.test("json writer: the array form", async () => {
  assert.equal(await writeJson([], { array: true }), "[]\n");
  assert.equal(await writeJson([[]], { array: true }), "[]\n");
  const inner = zctx.lookupRecordOf(["c", "d"], [TypeString, TypeString]);
  const a = rec([["a", TypeString, "hello"], ["b", inner, ["world", "goodbye"]]]);
  const b = rec([["a", TypeString, "one"], ["b", inner, ["two", "three"]]]);
  assert.equal(
    await writeJson([[a], [b]], { array: true }),
    '[{"a":"hello","b":{"c":"world","d":"goodbye"}},{"a":"one","b":{"c":"two","d":"three"}}]\n',
  );
  assert.equal(await writeJson([[rec([["ts", TypeInt64, 0]])]], { array: true }), '[{"ts":0}]\n');
});

Deno.test("json writer: large output arrives in several chunks", async () => {
  const s = "x".repeat(1000);
  const batch = Array.from({ length: 300 }, () => new Value(TypeString, s));
  let chunks = 0;
  let size = 0;
  const w = new JsonWriter((c) => {
    chunks++;
    size += c.length;
    return Promise.resolve();
  });
  await w.write(batch);
  await w.write(batch);
  await w.end();
  assert.ok(chunks >= 2);
  assert.equal(size, 600 * 1003);
});

Deno.test("json writer: JSON input round-trips", async () => {
  // The inputs of html-escaping-disabled.yaml, hyphen.yaml, nested-empties.yaml and more.
  const text = '"<>&"\n{"<>&":"<>&"}\n{"Hyphen":"-"}\n' +
    '{"san":{"dns":["google.com"],"email":null,"ip":null,"uri":null}}\n' +
    '{}\n{"ja3s":{}}\n""\n' +
    '{"ts":"2018-03-24T17:15:20.865716Z","n":-3,"f":0.0008699893951416016,"TTLs":[2230,41830]}\n' +
    '[1,"a",null,true,{"a":1},[1]]\n{"big":9223372036854775807,"é":"😀","u":"\\u2028"}\n';
  const reader = new JsonReader(new TextInput(ByteInput.fromBytes(new TextEncoder().encode(text))));
  const batches: Batch[] = [];
  for (let b = await reader.read(); b !== null; b = await reader.read()) batches.push(b);
  assert.equal(await writeJson(batches), text);
  // Floats that look integral print without a fraction, as Go does.
  const floats = new JsonReader(
    new TextInput(ByteInput.fromBytes(new TextEncoder().encode("[2230.0,1.5]"))),
  );
  assert.equal(await writeJson([(await floats.read())!]), "[2230,1.5]\n");
});

Deno.test("json writer: float64 text agrees with Go's algorithm everywhere", async () => {
  const values = [1e-6, 9.999999999999999e-7, 1e21, 9.999999999999999e20, 123e-20, 0.1, 1 / 3];
  const bits = new DataView(new ArrayBuffer(8));
  for (let i = 0; i < 2000; i++) {
    bits.setUint32(0, Math.floor(Math.random() * 2 ** 32));
    bits.setUint32(4, Math.floor(Math.random() * 2 ** 32));
    const f = bits.getFloat64(0);
    if (Number.isFinite(f)) values.push(f);
    values.push(Math.random() * 10 ** Math.floor(Math.random() * 50 - 25));
  }
  const batch = values.map((f) => new Value(TypeFloat64, f));
  const lines = (await writeJson([batch])).split("\n");
  for (let i = 0; i < values.length; i++) {
    assert.equal(lines[i], formatJsonFloat(values[i], false), String(values[i]));
  }
});

Deno.test("json writer: types not otherwise covered", async () => {
  assert.equal(await json(TypeFloat64, 2230), "2230");
  assert.equal(await json(zctx.lookupSet(TypeString), ["a", "b"]), '["a","b"]');
});
