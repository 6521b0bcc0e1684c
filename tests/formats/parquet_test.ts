import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { type FileMetaData, parquetMetadata, type SchemaElement } from "hyparquet";
import { ByteWriter, parquetWriteBuffer } from "hyparquet-writer";
import { writeMetadata } from "hyparquet-writer/src/metadata.js";
import { LochError } from "../../lib/errors.ts";
import { ByteInput, TextInput } from "../../lib/formats/io.ts";
import { decodeHybrid } from "../../lib/formats/parquet/pages.ts";
import { ParquetReader } from "../../lib/formats/parquet/reader.ts";
import { ParquetWriter } from "../../lib/formats/parquet/writer.ts";
import { ZsonFormatter } from "../../lib/formats/zson/formatter.ts";
import { ZsonReader } from "../../lib/formats/zson/reader.ts";
import { zctx } from "../../lib/zed/context.ts";
import { formatType } from "../../lib/zed/typetext.ts";
import { type Batch, Value } from "../../lib/zed/value.ts";

// ---------------------------------------------------------------- helpers

async function parseZson(text: string): Promise<Value[]> {
  const r = new ZsonReader(new TextInput(ByteInput.fromBytes(new TextEncoder().encode(text))));
  const out: Value[] = [];
  for (let b = await r.read(); b !== null; b = await r.read()) out.push(...b);
  return out;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

async function writeParquet(values: Value[]): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const w = new ParquetWriter((c) => {
    chunks.push(c);
    return Promise.resolve();
  });
  await w.write(values);
  await w.end();
  return concat(chunks);
}

async function readBatches(bytes: Uint8Array): Promise<Batch[]> {
  const r = new ParquetReader(ByteInput.fromBytes(bytes, "test.parquet"));
  const out: Batch[] = [];
  for (let b = await r.read(); b !== null; b = await r.read()) out.push(b);
  return out;
}

/** The values as `zq -z` (or `-Z` with tab 4) prints them. */
function format(values: Value[], tab = 0): string {
  const f = new ZsonFormatter(tab);
  return values.map((v) => f.format(v.type, v.body) + "\n").join("");
}

async function readZson(bytes: Uint8Array, tab = 0): Promise<string> {
  return format((await readBatches(bytes)).flat(), tab);
}

async function roundTrip(zson: string, tab = 0): Promise<string> {
  return readZson(await writeParquet(await parseZson(zson)), tab);
}

async function writeError(zson: string): Promise<string> {
  const values = await parseZson(zson);
  const err = await writeParquet(values).then(() => null, (e) => e);
  assert.ok(err instanceof LochError, `expected an error writing ${zson}`);
  return err.message;
}

async function readError(bytes: Uint8Array): Promise<string> {
  const err = await readBatches(bytes).then(() => null, (e) => e);
  assert.ok(err instanceof LochError, "expected a read error");
  return err.message;
}

function elements(bytes: Uint8Array): SchemaElement[] {
  return parquetMetadata(bytes).schema;
}

// ------------------------------------------------------- conformance read

const CASES = Deno.env.get("LOCH_CONFORMANCE") ?? "/work/shared/conformance/cases.jsonl";
const haveCases = (() => {
  try {
    return Deno.statSync(CASES).isFile;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "conformance zio/parquetio read.yaml: conn.parquet reads as the reference prints it",
  ignore: !haveCases,
  async fn() {
    const lines = Deno.readTextFileSync(CASES).split("\n").filter((l) => l.length > 0);
    const cases = lines.map((l) => JSON.parse(l)).filter((c) => c.category === "zio/parquetio");
    assert.ok(cases.length >= 1);
    for (const c of cases) {
      const bytes = Uint8Array.from(atob(c.input_base64), (ch) => ch.charCodeAt(0));
      assert.equal(await readZson(bytes), c.expected_stdout, c.id);
    }
  },
});

// ------------------------------------------------------ types.yaml round trip

const TYPES_IN = `{u8:8(uint8),u16:16(uint16),u32:32(uint32),u64:64,i8:-8(int8),i16:-16(int16),
i32:-32(int32),i64:-64,dur:0s,tim:1970-01-01T00:00:00Z,f32:32.(float32),f64:64.,boo:false,
byt:0x01020304,str:"1234",ip:1.2.3.4,net:5.6.7.0/24,typ:<int8>,err:error("err"),rec:{a:1}}(=0)
{u8:null,u16:null,u32:null,u64:null,i8:null,i16:null,i32:null,i64:null,dur:null,tim:null,
f32:null,f64:null,boo:null,byt:null,str:null,ip:null,net:null,typ:null,err:null,rec:null}(0)`;

const TYPES_OUT = `{
    u8: 8 (uint8),
    u16: 16 (uint16),
    u32: 32 (uint32),
    u64: 64,
    i8: -8 (int8),
    i16: -16 (int16),
    i32: -32 (int32),
    i64: -64,
    dur: 0,
    tim: 1970-01-01T00:00:00Z,
    f32: 32. (float32),
    f64: 64.,
    boo: false,
    byt: 0x01020304,
    str: "1234",
    ip: "1.2.3.4",
    net: "5.6.7.0/24",
    typ: "int8",
    err: "error(\\"err\\")",
    rec: {
        a: 1
    }
}
{
    u8: null (uint8),
    u16: null (uint16),
    u32: null (uint32),
    u64: null (int64),
    i8: null (int8),
    i16: null (int16),
    i32: null (int32),
    i64: null (int64),
    dur: null (int64),
    tim: null (time),
    f32: null (float32),
    f64: null (float64),
    boo: null (bool),
    byt: null (bytes),
    str: null (string),
    ip: null (string),
    net: null (string),
    typ: null (string),
    err: null (string),
    rec: null ({a:int64})
}
`;

Deno.test("ztest types.yaml: every primitive round-trips as the reference documents", async () => {
  assert.equal(await roundTrip(TYPES_IN, 4), TYPES_OUT);
});

Deno.test("writer schema follows the §7 mapping; every column OPTIONAL, root zq, SNAPPY", async () => {
  const bytes = await writeParquet(await parseZson(TYPES_IN));
  const md = parquetMetadata(bytes);
  const byName = new Map(md.schema.map((e) => [e.name, e]));
  assert.equal(md.schema[0].name, "zq");
  assert.equal(md.schema[0].num_children, 20);
  for (const e of md.schema.slice(1)) assert.equal(e.repetition_type, "OPTIONAL", e.name);
  const check = (name: string, type: string, ct?: string, lt?: unknown) => {
    const e = byName.get(name)!;
    assert.equal(e.type, type, name);
    assert.equal(e.converted_type, ct, name);
    assert.deepEqual(e.logical_type, lt, name);
  };
  // Integers carry their converted type only (schema_write.ts says why).
  check("u8", "INT32", "UINT_8");
  check("u32", "INT32", "UINT_32");
  check("i16", "INT32", "INT_16");
  check("dur", "INT64", "INT_64");
  check("tim", "INT64", undefined, { type: "TIMESTAMP", isAdjustedToUTC: false, unit: "NANOS" });
  check("f32", "FLOAT");
  check("f64", "DOUBLE");
  check("boo", "BOOLEAN");
  check("byt", "BYTE_ARRAY");
  for (const n of ["str", "ip", "net", "typ", "err"]) {
    check(n, "BYTE_ARRAY", "UTF8", { type: "STRING" });
  }
  assert.equal(byName.get("rec")!.num_children, 1);
  assert.equal(byName.get("rec")!.type, undefined);
  for (const rg of md.row_groups) {
    for (const c of rg.columns) assert.equal(c.meta_data?.codec, "SNAPPY");
  }
  assert.equal(md.created_by, "loch");
  assert.equal(Number(md.num_rows), 2);
  assert.equal(md.row_groups.length, 1);
});

Deno.test("uint64 writes as UINT_64 and reads back unsigned", async () => {
  const bytes = await writeParquet(await parseZson("{u:18446744073709551615(uint64)}"));
  assert.equal(elements(bytes)[1].converted_type, "UINT_64");
  assert.equal(await readZson(bytes), "{u:18446744073709551615(uint64)}\n");
});

// ------------------------------------------------- nested values and nulls

const NESTED = [
  `{a:{b:1,c:{d:"x",e:[1,2]}},l:[[1,2],[]([int64]),null([int64]),[3]],` +
  `lr:[{x:1,y:"a"},null({x:int64,y:string}),{x:null(int64),y:"b"}],` +
  `m:|{"k1":{p:1},"k2":{p:null(int64)}}|,ml:|{1:[1.5,null(float64)],2:[]([float64])}|,` +
  `s:|[3,1,2]|,n:null(int64)}`,
  `{a:null({b:int64,c:{d:string,e:[int64]}}),l:null([[int64]]),lr:[]([{x:int64,y:string}]),` +
  `m:|{}|(|{string:{p:int64}}|),ml:null(|{int64:[float64]}|),s:null(|[int64]|),n:3}`,
  `{a:{b:null(int64),c:null({d:string,e:[int64]})},l:[null([int64]),[null(int64)]],` +
  `lr:null([{x:int64,y:string}]),m:null(|{string:{p:int64}}|),ml:|{3:[]([float64])}|,` +
  `s:|[]|(|[int64]|),n:null(int64)}`,
].join("\n");

Deno.test("nested records, lists, lists of records, maps and nulls round-trip", async () => {
  const expected = [
    `{a:{b:1,c:{d:"x",e:[1,2]}},l:[[1,2],[]([int64]),null([int64]),[3]],` +
    `lr:[{x:1,y:"a"},null({x:int64,y:string}),{x:null(int64),y:"b"}],` +
    `m:|{"k1":{p:1},"k2":{p:null(int64)}}|,ml:|{1:[1.5,null(float64)],2:[]([float64])}|,` +
    `s:[1,2,3],n:null(int64)}`,
    `{a:null({b:int64,c:{d:string,e:[int64]}}),l:null([[int64]]),lr:[]([{x:int64,y:string}]),` +
    `m:|{}|(|{string:{p:int64}}|),ml:null(|{int64:[float64]}|),s:null([int64]),n:3}`,
    `{a:{b:null(int64),c:null({d:string,e:[int64]})},l:[null([int64]),[null(int64)]],` +
    `lr:null([{x:int64,y:string}]),m:null(|{string:{p:int64}}|),ml:|{3:[]([float64])}|,` +
    `s:[]([int64]),n:null(int64)}`,
  ].join("\n") + "\n";
  assert.equal(await roundTrip(NESTED), expected);
});

Deno.test("lists and maps use the 3-level LIST and MAP layouts", async () => {
  const els = elements(await writeParquet(await parseZson(NESTED)));
  const shape = els.map((e) => [e.name, e.repetition_type, e.converted_type ?? ""].join(" "));
  const at = (name: string) => shape.findIndex((s) => s.startsWith(name + " "));
  const l = at("l");
  assert.deepEqual(shape.slice(l, l + 5), [
    "l OPTIONAL LIST",
    "list REPEATED ",
    "element OPTIONAL LIST",
    "list REPEATED ",
    "element OPTIONAL INT_64",
  ]);
  const m = at("m");
  assert.deepEqual(shape.slice(m, m + 5), [
    "m OPTIONAL MAP",
    "key_value REPEATED MAP_KEY_VALUE",
    "key REQUIRED UTF8",
    "value REQUIRED ",
    "p OPTIONAL INT_64",
  ]);
  assert.deepEqual(els[m].logical_type, { type: "MAP" });
  assert.deepEqual(els[l].logical_type, { type: "LIST" });
});

Deno.test("a null record writes a row of nulls; outer type names are ignored", async () => {
  const text = `{a:1,b:"x"}(=foo)\n{a:2,b:"y"}\nnull({a:int64,b:string})`;
  assert.equal(
    await roundTrip(text),
    `{a:1,b:"x"}\n{a:2,b:"y"}\n{a:null(int64),b:null(string)}\n`,
  );
});

Deno.test("special type names map to Parquet annotations and read back", async () => {
  const text = `{d:19000(date=int32),tm:1000(time_millis=int32),time_micros:5(x=int64),` +
    `time_nanos:6(x2=int64),timestamp_millis:7(y=int64),timestamp_micros:8(y2=int64),` +
    `j:"{\\"a\\": 1.0}"(json=string),bs:0x0102(bson=bytes),fl:1.5(float=float64),` +
    `i96:0x0102030405060708090a0b0c(int96=bytes)}`;
  const bytes = await writeParquet(await parseZson(text));
  const els = new Map(elements(bytes).map((e) => [e.name, e]));
  const ann = (n: string) => {
    const e = els.get(n)!;
    return [e.type, e.converted_type ?? "-", e.logical_type?.type ?? "-"].join(" ");
  };
  assert.equal(ann("d"), "INT32 DATE DATE");
  assert.equal(ann("tm"), "INT32 TIME_MILLIS TIME");
  assert.equal(ann("time_micros"), "INT64 TIME_MICROS TIME");
  assert.equal(ann("time_nanos"), "INT64 - TIME");
  assert.equal(ann("timestamp_millis"), "INT64 TIMESTAMP_MILLIS TIMESTAMP");
  assert.equal(ann("timestamp_micros"), "INT64 TIMESTAMP_MICROS TIMESTAMP");
  assert.equal(ann("j"), "BYTE_ARRAY JSON JSON");
  assert.equal(ann("bs"), "BYTE_ARRAY BSON BSON");
  assert.equal(ann("fl"), "FLOAT - -");
  assert.equal(ann("i96"), "INT96 - -");
  assert.equal(
    await readZson(bytes),
    `{d:19000(date=int32),tm:1000(time_millis=int32),time_micros:5(=time_micros),` +
      `time_nanos:6(=time_nanos),timestamp_millis:7(=timestamp_millis),` +
      `timestamp_micros:8(=timestamp_micros),j:"{\\"a\\": 1.0}"(=json),bs:0x0102(=bson),` +
      `fl:1.5(float32),i96:0x0102030405060708090a0b0c(=int96)}\n`,
  );
});

Deno.test("the field-name quirk: a time_micros type under another field name is plain int64", async () => {
  const bytes = await writeParquet(await parseZson(`{t:5(time_micros=int64)}`));
  const e = elements(bytes)[1];
  assert.equal(e.converted_type, "INT_64");
  assert.equal(await readZson(bytes), "{t:5}\n");
});

Deno.test("enums write as ENUM strings and read back as the named type enum", async () => {
  const et = zctx.lookupEnum(["lo", "hi"]);
  const rt = zctx.lookupRecordOf(["e"], [et]);
  const bytes = await writeParquet([new Value(rt, [1]), new Value(rt, [null])]);
  const e = elements(bytes)[1];
  assert.equal(e.converted_type, "ENUM");
  assert.deepEqual(e.logical_type, { type: "ENUM" });
  assert.equal(await readZson(bytes), `{e:"hi"(=enum)}\n{e:null(enum=string)}\n`);
  const err = await writeParquet([new Value(rt, [5])]).then(() => null, (x) => x);
  assert.equal(err?.message, "enum index out of range");
});

Deno.test("edge values survive: extreme ints and times, NaN, unicode, empty bytes", async () => {
  const text = `{i:-9223372036854775808,u32:4294967295(uint32),u8:255(uint8),i8:-128(int8),` +
    `t:1677-09-21T00:12:43.145224192Z,t2:2262-04-11T23:47:16.854775807Z,f:NaN(float32),` +
    `g:-Inf,s:"h\u00e9llo \u2603 \u{1d11e}",b:0x,ip6:::1,n6:fe80::/10,e:error({x:1})}`;
  assert.equal(
    await roundTrip(text),
    `{i:-9223372036854775808,u32:4294967295(uint32),u8:255(uint8),i8:-128(int8),` +
      `t:1677-09-21T00:12:43.145224192Z,t2:2262-04-11T23:47:16.854775807Z,f:NaN(float32),` +
      `g:-Inf,s:"h\u00e9llo \u2603 \u{1d11e}",b:0x,ip6:"::1",n6:"fe80::/10",e:"error({x:1})"}\n`,
  );
});

// ------------------------------------------------------------ writer errors

Deno.test("no values written means no output at all", async () => {
  let calls = 0;
  const w = new ParquetWriter(() => {
    calls++;
    return Promise.resolve();
  });
  await w.write([]);
  await w.end();
  assert.equal(calls, 0);
});

Deno.test("writer errors use the reference's texts", async () => {
  assert.equal(await writeError("1\n2"), "Parquet output encountered non-record value: 1");
  assert.equal(
    await writeError(`"a"(=s)`),
    `Parquet output encountered non-record value: "a"(=s)`,
  );
  assert.equal(
    await writeError("{a:1}\n{b:2}"),
    "Parquet output requires uniform records but multiple types encountered (consider 'fuse')",
  );
  assert.equal(await writeError("{a:null}"), "null type unimplemented");
  assert.equal(await writeError("{a:{b:[null]}}"), "null type unimplemented");
  assert.equal(await writeError("{a:1((int64,string))}"), "union type unsupported");
  assert.equal(await writeError('{a:[1,"x"]}'), "union type unsupported");
  assert.equal(await writeError("{}"), "empty record type unsupported");
  assert.equal(await writeError("{a:{}}"), "empty record type unsupported");
  assert.equal(await writeError(`{"":1}`), "column has no name");
  assert.equal(
    await writeError("{iv:0x01(interval=bytes)}"),
    "field iv is annotated as INTERVAL but element type is BYTE_ARRAY, not fixed_len_byte_array(12)",
  );
  assert.equal(
    await writeError("{uuid:0x01(u=bytes)}"),
    "field uuid is annotated as UUID but is not a fixed_len_byte_array(16)",
  );
  assert.equal(
    await writeError(`{m:|{"a":null(int64)}|}`),
    `the value "m.key_value.value" is required`,
  );
});

Deno.test("records before a failing value are still written", async () => {
  const chunks: Uint8Array[] = [];
  const w = new ParquetWriter((c) => {
    chunks.push(c);
    return Promise.resolve();
  });
  const values = await parseZson("{a:1}\n{a:2}\n{b:3}");
  await assert.rejects(() => w.write(values), /uniform records/);
  await w.end();
  assert.equal(await readZson(concat(chunks)), "{a:1}\n{a:2}\n");
});

// ------------------------------------------------------------ reader mapping

type Col = { name: string; data: unknown[] };

function hyparquetFile(
  schema: SchemaElement[],
  columnData: Col[],
  opts: Record<string, unknown> = {},
): Uint8Array {
  // deno-lint-ignore no-explicit-any
  const buf = parquetWriteBuffer({ schema, columnData: columnData as any, ...opts });
  return new Uint8Array(buf);
}

const root = (n: number): SchemaElement => ({ name: "root", num_children: n });

/** An OPTIONAL primitive schema element. */
const col = (name: string, type: string, extra: Partial<SchemaElement> = {}): SchemaElement =>
  ({ name, type, repetition_type: "OPTIONAL", ...extra }) as SchemaElement;

Deno.test("reader maps INT32/INT64/FIXED_LEN annotations to Zed types (§7)", async () => {
  const ts = (unit: "MILLIS" | "NANOS") => ({ isAdjustedToUTC: true, unit });
  const schema: SchemaElement[] = [
    root(12),
    col("u8", "INT32", { converted_type: "UINT_8" }),
    col("u32", "INT32", { logical_type: { type: "INTEGER", bitWidth: 32, isSigned: false } }),
    col("i16", "INT32", { converted_type: "INT_16" }),
    col("dl", "INT32", { logical_type: { type: "DATE" } }),
    col("tsm", "INT64", { logical_type: { type: "TIMESTAMP", ...ts("MILLIS") } }),
    col("tsc", "INT64", { converted_type: "TIMESTAMP_MILLIS" }),
    col("tn", "INT64", { logical_type: { type: "TIME", ...ts("NANOS") } }),
    col("u64", "INT64", { converted_type: "UINT_64" }),
    col("id", "FIXED_LEN_BYTE_ARRAY", { type_length: 16, logical_type: { type: "UUID" } }),
    col("iv", "FIXED_LEN_BYTE_ARRAY", { type_length: 12, converted_type: "INTERVAL" }),
    col("fx", "FIXED_LEN_BYTE_ARRAY", { type_length: 3 }),
    col("raw", "BYTE_ARRAY"),
  ];
  const uuid = new Uint8Array(16).fill(0xab);
  const bytes = hyparquetFile(schema, [
    { name: "u8", data: [200] },
    { name: "u32", data: [4000000000] },
    { name: "i16", data: [-3] },
    { name: "dl", data: [19000] },
    { name: "tsm", data: [1000n] },
    { name: "tsc", data: [2000n] },
    { name: "tn", data: [3n] },
    { name: "u64", data: [18446744073709551615n] },
    { name: "id", data: [uuid] },
    { name: "iv", data: [new Uint8Array(12)] },
    { name: "fx", data: [new Uint8Array([1, 2, 3])] },
    { name: "raw", data: [new Uint8Array([0xff])] },
  ]);
  assert.equal(
    await readZson(bytes),
    `{u8:200(uint8),u32:4000000000(uint32),i16:-3(int16),dl:19000(int32),` +
      `tsm:1000(=timestamp_millis),tsc:2000(timestamp_millis=int32),` +
      `tn:3(=time_nanos),u64:18446744073709551615(uint64),` +
      `id:0x${"ab".repeat(16)}(=uuid),iv:0x${"00".repeat(12)}(=interval),` +
      `fx:0x010203(=fixed_len_byte_array_3),raw:0xff}\n`,
  );
});

Deno.test("reader: DECIMAL is unimplemented, with the reference's column prefixes", async () => {
  const dec = (name: string) =>
    col(name, "INT32", { converted_type: "DECIMAL", scale: 2, precision: 5 });
  const flat = hyparquetFile([root(1), dec("amount")], [{ name: "amount", data: [1.5] }]);
  assert.equal(await readError(flat), "amount: DECIMAL type is unimplemented");
  const nested = hyparquetFile(
    [root(1), { name: "r", repetition_type: "OPTIONAL", num_children: 1 }, dec("amount")],
    [{ name: "r", data: [{ amount: 1.5 }] }],
  );
  assert.equal(await readError(nested), "r: amount: DECIMAL type is unimplemented");
  const map = hyparquetFile(
    [
      root(1),
      { name: "m", repetition_type: "OPTIONAL", num_children: 1, converted_type: "MAP" },
      { name: "key_value", repetition_type: "REPEATED", num_children: 2 },
      { ...dec("key"), repetition_type: "REQUIRED" },
      col("value", "INT32"),
    ],
    [{ name: "m", data: [[{ key: 1.5, value: 1 }]] }],
  );
  assert.equal(await readError(map), "m: m: map key: DECIMAL type is unimplemented");
});

Deno.test("reader: several row groups, pages and dictionaries; batches per group", async () => {
  const n = 2500;
  const bytes = hyparquetFile(
    [
      root(3),
      col("i", "INT64"),
      col("s", "BYTE_ARRAY", { converted_type: "UTF8" }),
      col("b", "BOOLEAN", { repetition_type: "REQUIRED" }),
    ],
    [
      { name: "i", data: Array.from({ length: n }, (_, k) => k % 7 === 0 ? null : BigInt(k)) },
      { name: "s", data: Array.from({ length: n }, (_, k) => "v" + (k % 5)) },
      { name: "b", data: Array.from({ length: n }, (_, k) => k % 3 === 0) },
    ],
    { rowGroupSize: 1000, pageSize: 512 },
  );
  const batches = await readBatches(bytes);
  assert.deepEqual(batches.map((b) => b.length), [1000, 1000, 500]);
  const md = parquetMetadata(bytes);
  assert.equal(md.row_groups.length, 3);
  assert.ok(md.row_groups[0].columns[1].meta_data?.encodings.includes("RLE_DICTIONARY"));
  const rows = batches.flat();
  assert.equal(formatType(rows[0].type), "{i:int64,s:string,b:bool}");
  assert.equal(rows[0].type, rows[2499].type);
  for (const k of [0, 1, 999, 1000, 1001, 2496, 2499]) {
    assert.deepEqual(rows[k].body, [k % 7 === 0 ? null : k, "v" + (k % 5), k % 3 === 0]);
  }
});

/**
 * Rewrites a file's footer. hyparquet-writer cannot write repeated leaves, but
 * a REQUIRED leaf alone in a repeated group has the same levels as the group
 * made a repeated leaf, so a file is written one way and relabeled the other.
 */
function rewriteFooter(bytes: Uint8Array, edit: (md: FileMetaData) => void): Uint8Array {
  const md = parquetMetadata(bytes);
  const body = bytes.subarray(0, bytes.length - 8 - md.metadata_length);
  edit(md);
  const w = new ByteWriter();
  w.appendBytes(body);
  writeMetadata(w, md);
  w.appendUint32(0x31524150); // PAR1
  return new Uint8Array(w.getBuffer());
}

/** Makes `group` (a repeated group holding one leaf) the repeated leaf itself. */
function collapse(md: FileMetaData, group: string): void {
  const i = md.schema.findIndex((e) => e.name === group);
  const leaf = md.schema[i + 1];
  md.schema.splice(i, 2, { ...leaf, name: group, repetition_type: "REPEATED" });
  for (const rg of md.row_groups) {
    for (const c of rg.columns) {
      const p = c.meta_data!.path_in_schema;
      const k = p.indexOf(group);
      if (k >= 0) p.splice(k + 1, 1);
    }
  }
}

Deno.test("reader: 2-level lists and bare repeated fields become arrays", async () => {
  const made = hyparquetFile(
    [
      root(2),
      { name: "old", repetition_type: "OPTIONAL", num_children: 1, converted_type: "LIST" },
      { name: "array", repetition_type: "REPEATED", num_children: 1 },
      { name: "x", type: "INT32", repetition_type: "REQUIRED" },
      { name: "rep", repetition_type: "REPEATED", num_children: 1 },
      col("y", "BYTE_ARRAY", { repetition_type: "REQUIRED", converted_type: "UTF8" }),
    ],
    [
      { name: "old", data: [[1, 2], [], null] },
      // hyparquet-writer takes a repeated group's items as its one child's values.
      { name: "rep", data: [["a"], [], ["b", "c"]] },
    ],
    { statistics: false },
  );
  // As written: a 3-level list of int32, and a repeated group of records.
  assert.equal(
    await readZson(made),
    `{old:[1(int32),2(int32)],rep:[{y:"a"}]}\n{old:[]([int32]),rep:[]([{y:string}])}\n` +
      `{old:null([int32]),rep:[{y:"b"},{y:"c"}]}\n`,
  );
  const bytes = rewriteFooter(made, (md) => {
    collapse(md, "array");
    collapse(md, "rep");
    md.schema[0].num_children = 2;
  });
  assert.equal(elements(bytes)[2].repetition_type, "REPEATED");
  assert.equal(elements(bytes)[2].type, "INT32");
  assert.equal(
    await readZson(bytes),
    `{old:[1(int32),2(int32)],rep:["a"]}\n{old:[]([int32]),rep:[]([string])}\n` +
      `{old:null([int32]),rep:["b","c"]}\n`,
  );
});

Deno.test("reader: GZIP-compressed pages", async () => {
  const bytes = hyparquetFile(
    [root(1), col("s", "BYTE_ARRAY", { converted_type: "UTF8" })],
    [{ name: "s", data: ["gz", null, "ip"] }],
    { codec: "GZIP", compressors: { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)) } },
  );
  assert.equal(parquetMetadata(bytes).row_groups[0].columns[0].meta_data?.codec, "GZIP");
  assert.equal(await readZson(bytes), `{s:"gz"}\n{s:null(string)}\n{s:"ip"}\n`);
});

Deno.test("reader: input that is not Parquet is an input error", async () => {
  const msg = await readError(new TextEncoder().encode("{a:1}\n"));
  assert.match(msg, /parquet/);
});

Deno.test("reader: run-length data is cut at the count asked for, and must hold that many", () => {
  // A run of 2^31 values (header 2^32 as a uvarint) of 1, asked for 5.
  const huge = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x10, 1]);
  assert.deepEqual([...decodeHybrid(huge, 0, huge.length, 1, 5)], [1, 1, 1, 1, 1]);
  // Bit-packed: one group of 8 3-bit values 0..7.
  const packed = Uint8Array.from([3, 0b10001000, 0b11000110, 0b11111010]);
  assert.deepEqual([...decodeHybrid(packed, 0, 4, 3, 8)], [0, 1, 2, 3, 4, 5, 6, 7]);
  // Runs: 3 x 2, then 2 x 9 (width 4: one byte each).
  assert.deepEqual([...decodeHybrid(Uint8Array.from([6, 2, 4, 9]), 0, 4, 4, 5)], [2, 2, 2, 9, 9]);
  for (
    const [bytes, width, count] of [
      [Uint8Array.from([6, 2]), 4, 5], // ends after 3 of 5
      [Uint8Array.from([3, 0xff]), 3, 8], // a group needs 3 bytes
      [Uint8Array.from([0x80, 0x80]), 1, 1], // a header cut short
      [Uint8Array.from([2, 1]), 33, 1], // no such width
    ] as const
  ) {
    assert.throws(() => decodeHybrid(bytes, 0, bytes.length, width, count), LochError);
  }
  assert.throws(() => decodeHybrid(Uint8Array.from([2, 1]), 0, 9, 1, 1), /out of bounds/);
});
