// Arrow IPC stream output (`arrows`): record batches any Arrow reader opens,
// with each Zed type as its Arrow type and values (times at full nanosecond
// precision), read back here with apache-arrow's reader.

import assert from "node:assert/strict";
import { tableFromIPC } from "apache-arrow";
import { LochError } from "../../lib/errors.ts";
import { openReader } from "../../lib/formats/detect.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { openWriter } from "../../lib/formats/registry.ts";
import { encodeAs } from "./encode_helpers.ts";

const arrows = (zson: string) => encodeAs("arrows", zson);

Deno.test("arrows: every type as its Arrow type, values and nulls", async () => {
  const t = tableFromIPC(
    await arrows(
      '{i8:-8(int8),u16:16(uint16),i64:-64,u64:18446744073709551615(uint64),f32:1.5(float32),f:2.25,b:true,s:"é€",by:0x01ff,t:2024-03-24T17:00:00.123456789Z,d:1m30s,ip:10.0.0.1,net:10.0.0.0/8,r:{x:1,t:1970-01-01T00:00:00.000000001Z},arr:[1,2],st:|["a"]|,m:|{"k":1}|,n:null}\n' +
        "{i8:null(int8),u16:null(uint16),i64:null(int64),u64:null(uint64),f32:null(float32),f:null(float64),b:null(bool),s:null(string),by:null(bytes),t:null(time),d:null(duration),ip:null(ip),net:null(net),r:null({x:int64,t:time}),arr:null([int64]),st:null(|[string]|),m:null(|{string:int64}|),n:null}",
    ),
  );
  assert.deepEqual(
    t.schema.fields.map((f) => `${f.name}:${f.type}`),
    [
      "i8:Int8",
      "u16:Uint16",
      "i64:Int64",
      "u64:Uint64",
      "f32:Float32",
      "f:Float64",
      "b:Bool",
      "s:Utf8",
      "by:Binary",
      "t:Timestamp<NANOSECOND>",
      "d:Duration<NANOSECOND>",
      "ip:Utf8",
      "net:Utf8",
      "r:Struct<{x:Int64, t:Timestamp<NANOSECOND>}>",
      "arr:List<Int64>",
      "st:List<Utf8>",
      "m:Map<{key:Utf8, value:Int64}>",
      "n:Null",
    ],
  );
  assert.equal(t.numRows, 2);
  const row = t.get(0)!.toJSON();
  assert.equal(row.i8, -8);
  assert.equal(row.u16, 16);
  assert.equal(row.i64, -64n);
  assert.equal(row.u64, 18446744073709551615n);
  assert.equal(row.f32, 1.5);
  assert.equal(row.b, true);
  assert.equal(row.s, "é€");
  assert.deepEqual([...(row.by as Uint8Array)], [1, 255]);
  assert.equal(row.d, 90_000_000_000n);
  assert.equal(row.ip, "10.0.0.1");
  assert.equal(row.net, "10.0.0.0/8");
  assert.deepEqual([...(row.arr as { toArray(): bigint[] }).toArray()], [1n, 2n]);
  // Times keep every nanosecond (the reader's own getter rounds to milliseconds).
  const ns = t.getChild("t")!.data[0].values as BigInt64Array;
  assert.equal(ns[0], 1711299600123456789n);
  const inner = t.getChild("r")!.data[0].children[1].values as BigInt64Array;
  assert.equal(inner[0], 1n);
  for (const [k, v] of Object.entries(t.get(1)!.toJSON())) assert.equal(v, null, k);
});

Deno.test("arrows: batches of 65,536 rows in one stream; one type of record only", async () => {
  const rows = Array.from({ length: 70000 }, (_, i) => `{i:${i}}`).join("\n");
  const t = tableFromIPC(await arrows(rows));
  assert.equal(t.numRows, 70000);
  assert.equal(t.batches.length, 2);
  assert.equal(t.get(69999)!.toJSON().i, 69999n);
  await assert.rejects(() => arrows("{a:1}\n{b:2}"), (e: unknown) => {
    assert.ok(e instanceof LochError && e.kind === "invalid");
    assert.match(e.message, /uniform records/);
    return true;
  });
  await assert.rejects(() => arrows("{u:1((int64,string))}"), /union/);
  await assert.rejects(() => arrows("1"), /non-record/);
});

Deno.test("arrows: read back as written, times to the nanosecond", async () => {
  const zson =
    '{a:1,s:"x",t:2024-03-24T17:00:00.123456789Z,d:1m,by:0x01,r:{x:1(int32)},arr:[1,2],m:|{"k":1}|,u:7(uint8)}\n' +
    "{a:null(int64),s:null(string),t:null(time),d:null(duration),by:null(bytes),r:null({x:int32}),arr:null([int64]),m:null(|{string:int64}|),u:null(uint8)}";
  const reader = await openReader(ByteInput.fromBytes(await arrows(zson)), "arrows");
  const out: string[] = [];
  const w = openWriter("zson", (c) => {
    out.push(new TextDecoder().decode(c));
    return Promise.resolve();
  }, { pretty: 0 });
  for (let b = await reader.read(); b !== null; b = await reader.read()) await w.write(b);
  await w.end();
  assert.equal(out.join(""), zson + "\n");
  await assert.rejects(
    async () =>
      await (await openReader(ByteInput.fromBytes(new Uint8Array([1, 2, 3])), "arrows")).read(),
    (e: unknown) => e instanceof LochError && e.kind === "invalid",
  );
});
