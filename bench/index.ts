// Index benchmark: the 10x Zeek pool (bench/lake.ts makes it), a selective
// equality query on `uid` without and with a field index on uid. Reports the
// objects and bytes each run reads, the latency ratio, and what building the
// index cost. Two uids: one from a small log (ssh) and one from the largest
// (dns), whose ten copies are spread through its object, so the index can
// skip the other objects but must read most of that one.

import { Lake } from "../lib/lake/lake.ts";
import { load } from "../lib/lake/load.ts";
import { createPool } from "../lib/lake/pools.ts";
import { runLakeQuery } from "../lib/lake/query.ts";
import { addRules } from "../lib/lake/rules.ts";
import { updateIndex } from "../lib/lake/index/apply.ts";
import type { ScanStats } from "../lib/lake/scan.ts";
import { openReader } from "../lib/formats/detect.ts";
import { ByteInput, type ValueWriter } from "../lib/formats/io.ts";
import type { Batch } from "../lib/zed/value.ts";
import { replicate, tsSpan, zeekFiles } from "./lake.ts";
import { join } from "./path.ts";
import { median } from "./util.ts";

const POOL = "zeek";

/** Counts what a query writes. */
class Count implements ValueWriter {
  n = 0;
  write(batch: Batch): Promise<void> {
    this.n += batch.length;
    return Promise.resolve();
  }
  end(): Promise<void> {
    return Promise.resolve();
  }
}

interface Run {
  ms: number;
  records: number;
  stats: ScanStats;
}

/** Median latency over runs (after a warm-up run), the output size and the last run's counters. */
async function timeQuery(lake: Lake, q: string, runs: number): Promise<Run> {
  let last: { records: number; stats: ScanStats } | undefined;
  const once = async () => {
    const w = new Count();
    const stats = await runLakeQuery(lake, q, w);
    last = { records: w.n, stats };
  };
  await once();
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await once();
    ts.push(performance.now() - t0);
  }
  return { ms: median(ts), ...last! };
}

/** The uid of the first record of a log file. */
async function firstUid(files: string[], log: string): Promise<string> {
  const f = files.find((f) => f.endsWith(`/${log}.json`))!;
  const m = (await Deno.readTextFile(f)).match(/"uid":"([^"]+)"/);
  if (m === null) throw new Error(`${log}: no uid`);
  return m[1];
}

function read(r: Run): string {
  const s = r.stats;
  return `${s.objectsRead} object(s) read, ${s.objectsSkippedByIndex} skipped by index, ` +
    `${(s.bytesFetched / 1e6).toFixed(2)} MB fetched, ${s.recordsRead} records decoded`;
}

export async function indexBenchmarks(tmp: string, runs: number): Promise<void> {
  const files = await zeekFiles(tmp);
  const [lo, hi] = await tsSpan(files);
  const work = await Deno.makeTempDir({ dir: tmp, prefix: "index-" });
  try {
    const tenFiles = await replicate(files, join(work, "10x"), hi - lo + 1e6);
    const lake = await Lake.open(join(work, "lake"));
    try {
      const pool = createPool(lake, { name: POOL, layout: { order: "desc", keys: [["ts"]] } });
      for (const f of tenFiles) {
        await load(lake, pool, "main", await openReader(ByteInput.fromFile(await Deno.open(f), f)));
      }
      const queries = [
        { log: "ssh", q: `from ${POOL} | uid == "${await firstUid(tenFiles, "ssh")}"` },
        { log: "dns", q: `from ${POOL} | uid == "${await firstUid(tenFiles, "dns")}"` },
      ];
      const before = [];
      for (const { q } of queries) before.push(await timeQuery(lake, q, runs));
      addRules(lake.catalog, [{ name: "uid", kind: "field", fields: [["uid"]] }]);
      const t0 = performance.now();
      await updateIndex(lake, pool, "main", ["uid"]);
      const buildS = (performance.now() - t0) / 1000;
      const sizes = lake.catalog.get<{ n: number; size: number }>(
        "SELECT count(*) AS n, sum(size) AS size FROM index_objects WHERE pool_id = ?",
        pool.id,
      )!;
      const data = lake.catalog.get<{ size: number }>(
        "SELECT sum(size) AS size FROM objects WHERE pool_id = ?",
        pool.id,
      )!;
      console.log(
        `index 10x Zeek (${tenFiles.length} objects, ${(data.size / 1e6).toFixed(1)} MB): ` +
          `field index on uid built in ${buildS.toFixed(2)} s, ${sizes.n} index objects, ` +
          `${(sizes.size / 1e6).toFixed(2)} MB; median of ${runs} run(s) after a warm-up`,
      );
      for (let i = 0; i < queries.length; i++) {
        const { log, q } = queries[i];
        const without = before[i], withIndex = await timeQuery(lake, q, runs);
        if (withIndex.records !== without.records) {
          throw new Error(
            `${q}: ${withIndex.records} records with the index, ${without.records} without`,
          );
        }
        console.log(`  uid == (a ${log} uid), ${without.records} records:`);
        console.log(`    without index: ${without.ms.toFixed(1)} ms; ${read(without)}`);
        console.log(`    with index:    ${withIndex.ms.toFixed(1)} ms; ${read(withIndex)}`);
        console.log(
          `    latency ratio (with/without) ${(withIndex.ms / without.ms).toPrecision(3)} ` +
            `(${(without.ms / withIndex.ms).toFixed(1)}x faster)`,
        );
      }
    } finally {
      lake.close();
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

if (import.meta.main) {
  const tmp = await Deno.makeTempDir({ prefix: "loch-bench-" });
  try {
    await indexBenchmarks(tmp, Number(Deno.args[0] ?? 5));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
