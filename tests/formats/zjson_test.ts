import assert from "node:assert/strict";
import { zctx } from "../../lib/zed/context.ts";
import {
  type Type,
  TypeBool,
  TypeBytes,
  TypeDuration,
  TypeFloat32,
  TypeFloat64,
  TypeInt32,
  TypeInt64,
  TypeIP,
  TypeNet,
  TypeNull,
  TypeString,
  TypeTime,
  TypeType,
  TypeUint16,
  TypeUint64,
} from "../../lib/zed/types.ts";
import { type Batch, type Body, UnionBody, Value } from "../../lib/zed/value.ts";
import { ByteInput, TextInput } from "../../lib/formats/io.ts";
import { ZjsonWriter } from "../../lib/formats/zjson/writer.ts";
import { detectZjson, ZjsonReader } from "../../lib/formats/zjson/reader.ts";
import { goJsonString } from "../../lib/formats/zjson/gojson.ts";
import { encodeUtf8 } from "../../lib/zed/utf8.ts";

const rec = (names: string[], types: Type[]) => zctx.lookupRecordOf(names, types);
const union = (...types: Type[]) => zctx.lookupUnion(types);

async function writeAll(values: Value[], chunk = values.length): Promise<string> {
  const parts: Uint8Array[] = [];
  const w = new ZjsonWriter((c) => {
    parts.push(c);
    return Promise.resolve();
  });
  for (let i = 0; i < values.length; i += chunk) await w.write(values.slice(i, i + chunk));
  await w.end();
  return new TextDecoder().decode(concat(parts));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function textInput(s: string, chunk = 0): TextInput {
  const bytes = encodeUtf8(s);
  if (chunk === 0) return new TextInput(ByteInput.fromBytes(bytes), 16);
  const it = (async function* () {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.slice(i, i + chunk);
  })();
  return new TextInput(new ByteInput(it, "test"), 8);
}

async function readAll(s: string, chunk = 0): Promise<Value[]> {
  const r = new ZjsonReader(textInput(s, chunk));
  const out: Value[] = [];
  for (let b: Batch | null; (b = await r.read()) !== null;) out.push(...b);
  return out;
}

async function readError(s: string): Promise<string> {
  try {
    await readAll(s);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("no error");
}

// The zjson.md example (formats.md §3.3, verified output).
const rAB = rec(["a", "b"], [TypeInt64, TypeInt64]);
const t1 = rec(["s", "r"], [TypeString, rAB]);
const t2 = rec(["s", "r"], [TypeString, rec(["a"], [zctx.lookupArray(TypeInt64)])]);
const u = union(TypeString, TypeInt64);
const t3 = rec(["s", "r"], [TypeString, rec(["x"], [rec(["u"], [u])])]);
const exampleValues = [
  new Value(t1, ["hello", [1, 2]]),
  new Value(t1, ["world", [3, 4]]),
  new Value(t2, ["hello", [[1, 2, 3]]]),
  new Value(t3, ["goodnight", [[new UnionBody(1, "foo")]]]),
  new Value(t3, ["gracie", [[new UnionBody(0, 12)]]]),
];
const exampleOutput = [
  '{"type":{"kind":"record","id":31,"fields":[{"name":"s","type":{"kind":"primitive","name":"string"}},{"name":"r","type":{"kind":"record","id":30,"fields":[{"name":"a","type":{"kind":"primitive","name":"int64"}},{"name":"b","type":{"kind":"primitive","name":"int64"}}]}}]},"value":["hello",["1","2"]]}',
  '{"type":{"kind":"ref","id":31},"value":["world",["3","4"]]}',
  '{"type":{"kind":"record","id":34,"fields":[{"name":"s","type":{"kind":"primitive","name":"string"}},{"name":"r","type":{"kind":"record","id":33,"fields":[{"name":"a","type":{"kind":"array","id":32,"type":{"kind":"primitive","name":"int64"}}}]}}]},"value":["hello",[["1","2","3"]]]}',
  '{"type":{"kind":"record","id":38,"fields":[{"name":"s","type":{"kind":"primitive","name":"string"}},{"name":"r","type":{"kind":"record","id":37,"fields":[{"name":"x","type":{"kind":"record","id":36,"fields":[{"name":"u","type":{"kind":"union","id":35,"types":[{"kind":"primitive","name":"int64"},{"kind":"primitive","name":"string"}]}}]}}]}}]},"value":["goodnight",[[["1","foo"]]]]}',
  '{"type":{"kind":"ref","id":38},"value":["gracie",[[["0","12"]]]]}',
  "",
].join("\n");

Deno.test("writer: the zjson.md example, ids post-order, refs after first use", async () => {
  assert.equal(await writeAll(exampleValues), exampleOutput);
  // Batch boundaries do not matter.
  assert.equal(await writeAll(exampleValues, 1), exampleOutput);
});

Deno.test("writer: named types and type values share the definitions", async () => {
  const fooInt = zctx.lookupNamed("foo", rec(["a"], [TypeInt64]));
  const fooStr = zctx.lookupNamed("foo", rec(["a"], [TypeString]));
  const out = await writeAll([
    new Value(rec(["x"], [fooInt]), [[1]]),
    new Value(rec(["y"], [TypeType]), [fooInt]),
    new Value(rec(["x"], [fooStr]), [["s"]]),
  ]);
  assert.equal(
    out,
    '{"type":{"kind":"record","id":32,"fields":[{"name":"x","type":{"kind":"named","id":31,"name":"foo","type":{"kind":"record","id":30,"fields":[{"name":"a","type":{"kind":"primitive","name":"int64"}}]}}}]},"value":[["1"]]}\n' +
      '{"type":{"kind":"record","id":33,"fields":[{"name":"y","type":{"kind":"primitive","name":"type"}}]},"value":[{"kind":"ref","id":31}]}\n' +
      '{"type":{"kind":"record","id":36,"fields":[{"name":"x","type":{"kind":"named","id":35,"name":"foo","type":{"kind":"record","id":34,"fields":[{"name":"a","type":{"kind":"primitive","name":"string"}}]}}}]},"value":[["s"]]}\n',
  );
});

Deno.test("writer: a type first seen in a type value is defined there", async () => {
  const myrecord = zctx.lookupNamed("myrecord", rec(["a"], [TypeInt64]));
  const t = rec(["typeof", "count"], [TypeType, TypeUint64]);
  const out = await writeAll([new Value(t, [myrecord, 1]), new Value(myrecord, [100])]);
  assert.equal(
    out,
    '{"type":{"kind":"record","id":30,"fields":[{"name":"typeof","type":{"kind":"primitive","name":"type"}},{"name":"count","type":{"kind":"primitive","name":"uint64"}}]},"value":[{"kind":"named","id":32,"name":"myrecord","type":{"kind":"record","id":31,"fields":[{"name":"a","type":{"kind":"primitive","name":"int64"}}]}},"1"]}\n' +
      '{"type":{"kind":"ref","id":32},"value":["100"]}\n',
  );
});

Deno.test("writer: empty record, null field, empty map, enum, error, null type", async () => {
  const out = await writeAll([
    new Value(rec([], []), []),
    new Value(rec(["ja3s"], [TypeInt32]), [null]),
    new Value(rec(["a"], [zctx.lookupMap(TypeString, TypeInt64)]), [[]]),
    new Value(zctx.lookupEnum(["a", "b"]), 1),
    new Value(zctx.lookupError(TypeString), "e"),
    new Value(TypeType, null),
    new Value(TypeNull, null),
  ]);
  assert.deepEqual(out.split("\n"), [
    '{"type":{"kind":"record","id":30,"fields":null},"value":[]}',
    '{"type":{"kind":"record","id":31,"fields":[{"name":"ja3s","type":{"kind":"primitive","name":"int32"}}]},"value":[null]}',
    '{"type":{"kind":"record","id":33,"fields":[{"name":"a","type":{"kind":"map","id":32,"key_type":{"kind":"primitive","name":"string"},"val_type":{"kind":"primitive","name":"int64"}}}]},"value":[null]}',
    '{"type":{"kind":"enum","id":34,"symbols":["a","b"]},"value":"1"}',
    '{"type":{"kind":"error","id":35,"type":{"kind":"primitive","name":"string"}},"value":"e"}',
    '{"type":{"kind":"primitive","name":"type"},"value":null}',
    '{"type":{"kind":"primitive","name":"null"},"value":null}',
    "",
  ]);
});

Deno.test("writer: primitive texts, sets, maps, unions at top level", async () => {
  const m = zctx.lookupMap(TypeString, TypeInt64);
  const out = await writeAll([
    new Value(TypeFloat64, 1),
    new Value(TypeFloat64, 1e20),
    new Value(TypeFloat32, Math.fround(0.1)),
    new Value(TypeTime, 500_000_000),
    new Value(TypeDuration, 3_600_000_000_000),
    new Value(TypeBytes, new Uint8Array([1])),
    new Value(TypeIP, new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
    new Value(TypeNet, new Uint8Array([10, 0, 0, 0, 255, 0, 0, 0])),
    new Value(TypeBool, true),
    new Value(TypeUint64, 18446744073709551615n),
    new Value(zctx.lookupSet(TypeInt64), [1, 2]),
    new Value(m, ["a", 1, "b", 2]),
    new Value(union(TypeInt64, TypeString), new UnionBody(0, 1)),
    new Value(union(TypeInt64, TypeString), new UnionBody(1, null)),
    new Value(union(TypeInt64, TypeString), null),
  ]);
  const values = out.trimEnd().split("\n").map((l) => l.slice(l.indexOf(',"value":') + 9, -1));
  assert.deepEqual(values, [
    '"1."',
    '"1e+20"',
    '"0.1"',
    '"1970-01-01T00:00:00.5Z"',
    '"1h"',
    '"0x01"',
    '"::1"',
    '"10.0.0.0/8"',
    '"true"',
    '"18446744073709551615"',
    '["1","2"]',
    '[["a","1"],["b","2"]]',
    '["0","1"]',
    '["1",null]',
    "null",
  ]);
});

Deno.test("writer: strings use json.Marshal escaping", async () => {
  const out = await writeAll([new Value(TypeString, "<>&\u2028\u0001é")]);
  assert.equal(
    out,
    '{"type":{"kind":"primitive","name":"string"},"value":"\\u003c\\u003e\\u0026\\u2028\\u0001é"}\n',
  );
  assert.equal(
    goJsonString('a"b\\c\n\r\t\b\f\u007f/'),
    '"a\\"b\\\\c\\n\\r\\t\\u0008\\u000c\u007f/"',
  );
  assert.equal(goJsonString("x\ud800y\u{1f600}"), '"x\\ufffdy\u{1f600}"');
  assert.equal(goJsonString("\u2029"), '"\\u2029"');
  assert.equal(goJsonString("plain"), '"plain"');
});

Deno.test("writer: field names, symbols and type names are escaped too", async () => {
  const t = rec(["<a>"], [zctx.lookupNamed("x&y", zctx.lookupEnum(["é", "<"]))]);
  const out = await writeAll([new Value(t, [1])]);
  assert.equal(
    out,
    '{"type":{"kind":"record","id":32,"fields":[{"name":"\\u003ca\\u003e","type":{"kind":"named","id":31,"name":"x\\u0026y","type":{"kind":"enum","id":30,"symbols":["é","\\u003c"]}}}]},"value":["1"]}\n',
  );
});

Deno.test("writer: control messages interleave in order (api/queryio zjson_test)", async () => {
  const parts: Uint8Array[] = [];
  const w = new ZjsonWriter((c) => {
    parts.push(c);
    return Promise.resolve();
  });
  await w.writeControl("QueryChannelSet", { channel_id: 1 });
  await w.write([new Value(rec(["x"], [TypeInt64]), [1])]);
  await w.writeControl("QueryChannelEnd", { channel_id: 1 });
  await w.writeControl("QueryError", { error: "test.err <&>" });
  await w.end();
  assert.equal(
    new TextDecoder().decode(concat(parts)),
    '{"type":"QueryChannelSet","value":{"channel_id":1}}\n' +
      '{"type":{"kind":"record","id":30,"fields":[{"name":"x","type":{"kind":"primitive","name":"int64"}}]},"value":["1"]}\n' +
      '{"type":"QueryChannelEnd","value":{"channel_id":1}}\n' +
      '{"type":"QueryError","value":{"error":"test.err \\u003c\\u0026\\u003e"}}\n',
  );
});

function assertSameValues(got: Value[], want: Value[]): void {
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    assert.equal(got[i].type, want[i].type, `type of value ${i}`);
    assert.deepEqual(got[i].body, want[i].body, `body of value ${i}`);
  }
}

Deno.test("reader: the zjson.md example reads back to the same values", async () => {
  assertSameValues(await readAll(exampleOutput), exampleValues);
  // Split into tiny chunks, lines span reads.
  assertSameValues(await readAll(exampleOutput, 7), exampleValues);
});

Deno.test("reader: round trips of every kind of value", async () => {
  const myrecord = zctx.lookupNamed("myrecord", rec(["a"], [TypeInt64]));
  const e = zctx.lookupEnum(["foo", "bar", "baz"]);
  const values = [
    new Value(TypeInt64, 1),
    new Value(TypeString, "hello"),
    new Value(zctx.lookupArray(TypeInt64), [3, 4]),
    new Value(rec(["a"], [TypeInt64]), [1]),
    new Value(TypeBool, false),
    new Value(union(TypeInt64, TypeString), new UnionBody(0, 1)),
    new Value(union(TypeInt64, TypeString), new UnionBody(1, "foo")),
    new Value(TypeType, TypeInt64),
    new Value(zctx.lookupSet(TypeInt64), [1, 2, 3]),
    new Value(TypeInt64, null),
    new Value(TypeString, null),
    new Value(TypeType, null),
    new Value(rec(["e"], [e]), [2]),
    new Value(rec(["t", "n"], [TypeType, TypeUint64]), [myrecord, 1]),
    new Value(rec(["m"], [myrecord]), [[5]]),
    new Value(
      rec(["m"], [zctx.lookupMap(TypeString, rec(["a", "b"], [TypeInt32, TypeInt32]))]),
      [["a", [1, 2], "b", [2, 3]]],
    ),
    new Value(TypeUint64, 18446744073709551615n),
    new Value(TypeTime, -1),
    new Value(TypeFloat32, Math.fround(0.1)),
    new Value(TypeIP, new Uint8Array([10, 0, 0, 1])),
    new Value(TypeString, '<>&\u2028\u0001é"\\'),
    new Value(zctx.lookupError(TypeString), "e"),
    new Value(rec([], []), []),
  ];
  assertSameValues(await readAll(await writeAll(values)), values);
});

Deno.test("reader: union members are re-sorted and tags follow the sorted order", async () => {
  // ztest zio/zjsonio/ztests/union-nested.yaml
  const input =
    '{"type":{"kind":"record","id":34,"fields":[{"name":"a","type":{"kind":"union","id":33,"types":[{"kind":"primitive","name":"string"},{"kind":"array","id":30,"type":{"kind":"primitive","name":"int32"}},{"kind":"array","id":31,"type":{"kind":"primitive","name":"string"}},{"kind":"union","id":32,"types":[{"kind":"primitive","name":"string"},{"kind":"primitive","name":"int32"}]}]}}]},"value":[["0","\\"hello\\""]]}\n' +
    '{"type":{"kind":"ref","id":34},"value":[["1",["1","2"]]]}\n' +
    '{"type":{"kind":"ref","id":34},"value":[["2",["\\"a\\"","\\"b\\""]]]}\n' +
    '{"type":{"kind":"ref","id":34},"value":[["3",["0","123"]]]}\n';
  const inner = union(TypeInt32, TypeString);
  const outer = union(
    TypeString,
    zctx.lookupArray(TypeInt32),
    zctx.lookupArray(TypeString),
    inner,
  );
  assert.equal(inner.types[0], TypeInt32);
  const t = rec(["a"], [outer]);
  assertSameValues(await readAll(input), [
    new Value(t, [new UnionBody(0, '"hello"')]),
    new Value(t, [new UnionBody(1, [1, 2])]),
    new Value(t, [new UnionBody(2, ['"a"', '"b"'])]),
    new Value(t, [new UnionBody(3, new UnionBody(0, 123))]),
  ]);
});

Deno.test("reader: unions in arrays and null unions (union-array, union-simple)", async () => {
  const input =
    '{"type":{"kind":"record","id":32,"fields":[{"name":"a","type":{"kind":"array","id":31,"type":{"kind":"union","id":30,"types":[{"kind":"primitive","name":"int32"},{"kind":"primitive","name":"string"}]}}}]},"value":[[["1","asdfasdf"],null,["0","100"]]]}\n' +
    '{"type":{"kind":"ref","id":32},"value":[null]}\n';
  const t = rec(["a"], [zctx.lookupArray(union(TypeInt32, TypeString))]);
  assertSameValues(await readAll(input), [
    new Value(t, [[new UnionBody(1, "asdfasdf"), null, new UnionBody(0, 100)]]),
    new Value(t, [null]),
  ]);
});

Deno.test("reader: named types by ref and case-insensitive top-level keys (anyio zjson)", async () => {
  const input =
    '{"type":{"kind":"record","id":31,"fields":[{"name":"orig_p","type":{"kind":"named","id":30,"name":"port","type":{"kind":"primitive","name":"uint16"}}},{"name":"resp_p","type":{"kind":"ref","id":30}}]},"value":["51913","443"]}\r\n' +
    "\n" +
    '{"TYPE":{"kind":"ref","id":31},"Value":["1",null]}';
  const port = zctx.lookupNamed("port", TypeUint16);
  const t = rec(["orig_p", "resp_p"], [port, port]);
  assertSameValues(await readAll(input), [new Value(t, [51913, 443]), new Value(t, [1, null])]);
});

Deno.test("reader: sets are normalized, strings NFC, maps kept as given", async () => {
  const input =
    '{"type":{"kind":"set","id":30,"type":{"kind":"primitive","name":"int64"}},"value":["3","1","3"]}\n' +
    '{"type":{"kind":"primitive","name":"string"},"value":"e\\u0301"}\n' +
    '{"type":{"kind":"map","id":31,"key_type":{"kind":"primitive","name":"string"},"val_type":{"kind":"primitive","name":"int64"}},"value":[["b","1"],["a","2"]]}\n';
  const vals = await readAll(input);
  assert.deepEqual(vals.map((v) => v.body), [[1, 3], "é", ["b", 1, "a", 2]]);
});

Deno.test("reader: error texts", async () => {
  const prim = (name: string) => `{"kind":"primitive","name":"${name}"}`;
  const cases: [string, string][] = [
    ["Garbage!\n", "line 1: invalid character 'G' looking for beginning of value"],
    [
      '\n\n{"type":1,}\n',
      "line 3: invalid character '}' looking for beginning of object key string",
    ],
    ['{"a":1}\n', "line 1: cannot unpack non-object JSON value"],
    ['{"type":null,"value":1}\n', "line 1: cannot unpack non-object JSON value"],
    [
      "[1]\n",
      'line 1: json: cannot unmarshal array into Go value of type struct { Type interface {} "json:\\"type\\""; Value interface {} "json:\\"value\\"" }',
    ],
    ['{"type":{"kind":"ref","id":7},"value":null}\n', "ZJSON unknown type reference: 7"],
    [`{"type":${prim("int128")},"value":"1"}\n`, "ZJSON unknown type: int128"],
    [`{"type":${prim("int64")},"value":1}\n`, "line 1: ZJSON primitive value is not a JSON string"],
    [`{"type":${prim("int64")},"value":"x"}\n`, "line 1: invalid integer: x"],
    [
      `{"type":{"kind":"union","id":30,"types":[${prim("int64")},${
        prim("string")
      }]},"value":["1"]}\n`,
      "line 1: ZJSON union value not an array of two elements",
    ],
    [
      `{"type":{"kind":"union","id":30,"types":[${prim("int64")},${
        prim("string")
      }]},"value":["2","x"]}\n`,
      "line 1: bad tag for ZJSON union value: invalid union tag",
    ],
    [
      `{"type":{"kind":"union","id":30,"types":[${prim("int64")},${
        prim("string")
      }]},"value":["x","x"]}\n`,
      'line 1: bad tag for ZJSON union value: strconv.Atoi: parsing "x": invalid syntax',
    ],
    [
      `{"type":{"kind":"record","id":30,"fields":[{"name":"a","type":${
        prim("int64")
      }}]},"value":["1","2"]}\n`,
      "line 1: record with extra field",
    ],
    [
      `{"type":{"kind":"record","id":30,"fields":[{"name":"a","type":${
        prim("int64")
      }}]},"value":null}\n`,
      "line 1: ZJSON record value must be a JSON array",
    ],
    [
      `{"type":{"kind":"enum","id":30,"symbols":["a"]},"value":"x"}\n`,
      "line 1: ZJSON enum index value is not a string integer",
    ],
    [
      `{"type":{"kind":"map","id":30,"key_type":${prim("int64")},"val_type":${
        prim("int64")
      }},"value":[["1"]]}\n`,
      "line 1: ZJSON map value must be an array of two-element arrays",
    ],
    [`{"type":${prim("type")},"value":"int64"}\n`, "line 1: cannot unpack non-object JSON value"],
    [`{"type":${prim("type")},"value":{}}\n`, "line 1: type value is not a valid ZJSON type"],
    [
      `{"type":${prim("type")},"value":{"kind":"ref","id":99}}\n`,
      "line 1: ZJSON unknown type reference: 99",
    ],
    [
      '{"type":{},"value":null}\n',
      'line 1: ZJSON types object is not a type: {"type":{},"value":null}\n',
    ],
    [
      '{"type":{"kind":"foo","b":[1.5,"<"],"a":1},"value":null}\n',
      'line 1: unpack: JSON object found with candidate key(s) having no template match\n{"a":1,"b":[1.5,"\\u003c"],"kind":"foo"}',
    ],
    [
      '{"type":{"kind":5},"value":null}\n',
      `line 1: unpack key in JSON field "kind" is not a string: 'float64'`,
    ],
    [
      '{"type":{"kind":"array","id":30,"type":"int64"},"value":null}\n',
      'line 1: JSON field "type": value for interface "zType" unknown inside of struct type "zArray"',
    ],
    [
      '{"type":{"kind":"record","id":30,"fields":{}},"value":null}\n',
      'line 1: JSON field "fields": attempting to decode non-array JSON into a Go slice',
    ],
    [
      '{"type":{"kind":"record","id":"x","fields":[]},"value":null}\n',
      "line 1: json: cannot unmarshal string into Go struct field zRecord.id of type int",
    ],
    [
      `{"type":{"kind":"record","id":30,"fields":[{"name":"a","type":{"kind":"primitive","name":5}}]},"value":null}\n`,
      "line 1: json: cannot unmarshal number into Go struct field zPrimitive.fields.type.name of type string",
    ],
    [
      `{"type":{"kind":"array","id":30},"value":null}\n`,
      "ZJSON unknown type: <nil>",
    ],
    [
      `{"type":{"kind":"record","id":30,"fields":[{"name":"a","type":${
        prim("int64")
      }},{"name":"a","type":${prim("int64")}}]},"value":null}\n`,
      'duplicate field: "a"',
    ],
    [
      `{"type":{"kind":"named","id":30,"name":"int64","type":${prim("int64")}},"value":null}\n`,
      'bad type name "int64": primitive type name',
    ],
  ];
  for (const [input, want] of cases) assert.equal(await readError(input), want, input);
});

Deno.test("reader: values before a bad line are delivered before the error", async () => {
  const good = '{"type":{"kind":"primitive","name":"int64"},"value":"1"}\n';
  const r = new ZjsonReader(
    textInput(good + good + '{"type":{"kind":"ref","id":1},"value":null}\n'),
  );
  const b = await r.read();
  assert.equal(b?.length, 2);
  await assert.rejects(() => r.read(), { message: "ZJSON unknown type reference: 1" });
});

Deno.test("reader: blank lines count toward line numbers, one-byte last line is blank", async () => {
  assert.equal(
    await readError('\r\n\n{"type":{"kind":"primitive","name":"int64"},"value":"1"}\nx\n'),
    "line 4: invalid character 'x' looking for beginning of value",
  );
  const vals = await readAll('{"type":{"kind":"primitive","name":"int64"},"value":"1"}\nx');
  assert.equal(vals.length, 1);
  assert.equal(await readError(" \n"), "line 1: unexpected end of JSON input");
});

Deno.test("detection", () => {
  const good = '{"type":{"kind":"primitive","name":"int64"},"value":"1"}\n';
  assert.deepEqual(detectZjson(good, true), { ok: true });
  assert.deepEqual(detectZjson(good + "garbage", false), { ok: true });
  assert.deepEqual(detectZjson("", true), { ok: true });
  assert.deepEqual(detectZjson("\n\n", true), { ok: true });
  assert.deepEqual(detectZjson(good.slice(0, 20), false), { ok: "more" });
  assert.deepEqual(detectZjson("", false), { ok: "more" });
  assert.deepEqual(detectZjson("Garbage!\n", true), {
    ok: false,
    error: "line 1: invalid character 'G' looking for beginning of value",
  });
  // Garbage is rejected before the line ends.
  assert.deepEqual(detectZjson("TTT", false), {
    ok: false,
    error: "line 1: invalid character 'T' looking for beginning of value",
  });
  assert.deepEqual(detectZjson('{"a":1}\n{"a":2}\n', true), {
    ok: false,
    error: "line 1: cannot unpack non-object JSON value",
  });
  assert.deepEqual(detectZjson("{a:1}\n", true), {
    ok: false,
    error: "line 1: invalid character 'a' looking for beginning of object key string",
  });
  assert.deepEqual(detectZjson('{"type":{"kind":"ref","id":3},"value":null}', true), {
    ok: false,
    error: "ZJSON unknown type reference: 3",
  });
});

Deno.test("writer: large output is flushed in chunks and stays exact", async () => {
  const t = rec(["i", "s"], [TypeInt64, TypeString]);
  const values: Value[] = [];
  for (let i = 0; i < 5000; i++) values.push(new Value(t, [i, "x" + i]));
  const chunks: number[] = [];
  const parts: Uint8Array[] = [];
  const w = new ZjsonWriter((c) => {
    chunks.push(c.length);
    parts.push(c);
    return Promise.resolve();
  });
  for (let i = 0; i < values.length; i += 1000) await w.write(values.slice(i, i + 1000));
  await w.end();
  assert.ok(chunks.length > 1);
  const text = new TextDecoder().decode(concat(parts));
  const lines = text.trimEnd().split("\n");
  assert.equal(lines.length, 5000);
  assert.equal(lines[4999], '{"type":{"kind":"ref","id":30},"value":["4999","x4999"]}');
  const back = await readAll(text);
  assert.deepEqual(back[1234].body as Body, [1234, "x1234"]);
});
