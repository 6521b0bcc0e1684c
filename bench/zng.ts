// In-process ZNG throughput on the Zeek sample logs: every log is read from
// JSON into values once, then encoded to ZNG (one stream per log) and decoded
// back batch by batch, with and without LZ4, median of several runs. MB/s
// counts the uncompressed ZNG bytes so the four lines compare directly.

import { ByteInput, TextInput } from "../lib/formats/io.ts";
import { JsonReader } from "../lib/formats/json/reader.ts";
import { ZngDecoder } from "../lib/formats/zng/reader.ts";
import { encodeZng } from "../lib/formats/zng/writer.ts";
import type { Value } from "../lib/zed/value.ts";
import { join } from "./path.ts";
import { median, zeekDir, zeekLog } from "./util.ts";

async function readJson(path: string): Promise<Value[]> {
  const file = await Deno.open(path);
  const reader = new JsonReader(new TextInput(ByteInput.fromFile(file, path)));
  const out: Value[] = [];
  for (let b = await reader.read(); b !== null; b = await reader.read()) {
    for (const v of b) out.push(v);
  }
  return out;
}

async function zeekValues(tmp: string): Promise<Value[][]> {
  const logs: Value[][] = [];
  const names: string[] = [];
  for await (const e of Deno.readDir(zeekDir)) {
    if (e.name.endsWith(".json.gz")) names.push(e.name.slice(0, -".json.gz".length));
  }
  names.sort();
  for (const name of names) logs.push(await readJson(await zeekLog(tmp, name)));
  return logs;
}

function time(runs: number, f: () => void): number {
  f(); // warm-up
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    ts.push((performance.now() - t0) / 1000);
  }
  return median(ts);
}

function line(what: string, seconds: number, bytes: number, records: number): void {
  const mb = bytes / 1e6;
  console.log(
    `zng ${what}: ${seconds.toFixed(3)} s, ${(mb / seconds).toFixed(1)} MB/s, ` +
      `${(records / seconds / 1e6).toFixed(2)} M records/s`,
  );
}

export async function zngBenchmarks(tmp: string, runs: number): Promise<void> {
  const logs = await zeekValues(join(tmp));
  const records = logs.reduce((n, l) => n + l.length, 0);
  const encodeAll = (compress: boolean) => logs.map((l) => encodeZng(l, { compress }));
  const plain = encodeAll(false);
  const lz4 = encodeAll(true);
  const size = plain.reduce((n, b) => n + b.length, 0);
  const lz4Size = lz4.reduce((n, b) => n + b.length, 0);
  console.log(
    `zng on ${logs.length} Zeek logs: ${records} records, ${(size / 1e6).toFixed(1)} MB ZNG, ` +
      `${(lz4Size / 1e6).toFixed(1)} MB with LZ4`,
  );
  line("encode (LZ4)", time(runs, () => encodeAll(true)), size, records);
  line("encode (no compression)", time(runs, () => encodeAll(false)), size, records);
  // Batches are dropped as they come, as a query consumes them.
  let decoded = 0;
  const decodeAll = (streams: Uint8Array[]) => {
    decoded = 0;
    for (const b of streams) {
      const d = new ZngDecoder(b);
      for (let r = d.next(); r !== null && r !== undefined; r = d.next()) {
        if (Array.isArray(r)) decoded += r.length;
      }
    }
  };
  line("decode (LZ4)", time(runs, () => decodeAll(lz4)), size, records);
  line("decode (no compression)", time(runs, () => decodeAll(plain)), size, records);
  if (decoded !== records) throw new Error(`decoded ${decoded} of ${records} records`);
}

if (import.meta.main) {
  const tmp = await Deno.makeTempDir({ prefix: "loch-bench-" });
  try {
    await zngBenchmarks(tmp, Number(Deno.args[0] ?? 5));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
