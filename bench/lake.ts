// Lake benchmark: the Zeek sample logs (and a 10x replica with shifted ts)
// loaded into a loch pool keyed on ts and into an on-disk DuckDB table, then
// five queries on each. Prints load MB/s and median query latencies with the
// loch/DuckDB ratios against the goals of the lake issue. Both systems keep
// `ts` as the ISO-8601 string the JSON holds (ISO strings of one width sort in
// time order), so the key compares as a string on both sides.

// DuckDB is a dev-only dependency: pinned here, locked in bench/deno.lock
// (the bench task's lockfile), so the project's own lockfile and tests never
// fetch it. (That is why it is not in deno.json's imports.)
// deno-lint-ignore no-import-prefix
import { DuckDBConnection, DuckDBInstance } from "npm:@duckdb/node-api@1.5.5-r.5";
import { openReader } from "../lib/formats/detect.ts";
import { ByteInput, type ValueWriter } from "../lib/formats/io.ts";
import { Lake } from "../lib/lake/lake.ts";
import { load } from "../lib/lake/load.ts";
import { createPool } from "../lib/lake/pools.ts";
import { runLakeQuery } from "../lib/lake/query.ts";
import type { ScanStats } from "../lib/lake/scan.ts";
import type { RecordType } from "../lib/zed/types.ts";
import type { Batch, Body, Value } from "../lib/zed/value.ts";
import { join } from "./path.ts";
import { median, zeekDir, zeekLog } from "./util.ts";

interface Dataset {
  name: string;
  files: string[];
  /** Uncompressed NDJSON bytes. */
  bytes: number;
  /** Timed runs of each query (after one warm-up). */
  runs: number;
}

/** A query in both languages, and how to reduce either system's output to a comparable string. */
interface Query {
  name: string;
  goal: "3x" | "faster";
  zed: string;
  sql: string;
  fromZed: (vals: Value[]) => string;
  fromSql: (rows: unknown[][]) => string;
}

const TS_RE = /"ts":"([^"]+)"/g;
export const KEYWORD = "10.47.8.208"; // an IP in ~3.4% of the records
const POOL = "zeek";

/** Microseconds since the epoch of a Zeek ISO-8601 time (`…SS.ffffffZ`). */
function micros(iso: string): number {
  return Date.parse(iso.slice(0, 23) + "Z") * 1000 + Number(iso.slice(23, 26));
}

/** The Zeek form of a time in microseconds, so shifted values keep the strings' width. */
export function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  return new Date(ms).toISOString().slice(0, 23) + String(us - ms * 1000).padStart(3, "0") + "Z";
}

/** Total size of the files, after flushing them to disk (they may have just been written). */
export async function settledBytes(files: string[]): Promise<number> {
  let n = 0;
  for (const f of files) {
    const fh = await Deno.open(f);
    try {
      await fh.sync();
      n += (await fh.stat()).size;
    } finally {
      fh.close();
    }
  }
  return n;
}

export async function zeekFiles(tmp: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(zeekDir)) {
    if (e.name.endsWith(".json.gz")) names.push(e.name.slice(0, -".json.gz".length));
  }
  names.sort();
  const files: string[] = [];
  for (const name of names) files.push(await zeekLog(tmp, name));
  return files;
}

/** The smallest and largest ts (in microseconds) over the files. */
export async function tsSpan(files: string[]): Promise<[number, number]> {
  let lo = Infinity, hi = -Infinity;
  for (const f of files) {
    for (const m of (await Deno.readTextFile(f)).matchAll(TS_RE)) {
      const us = micros(m[1]);
      if (us < lo) lo = us;
      if (us > hi) hi = us;
    }
  }
  return [lo, hi];
}

/**
 * Writes each log 10 times into dir, copy k with every ts moved by k × (span + 1 s).
 * The text is edited in place (not re-serialized) so numbers keep their JSON form.
 */
export async function replicate(files: string[], dir: string, shiftUs: number): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const enc = new TextEncoder();
  const out: string[] = [];
  for (const f of files) {
    const text = await Deno.readTextFile(f);
    const dst = join(dir, f.slice(f.lastIndexOf("/") + 1));
    const fh = await Deno.open(dst, { write: true, create: true, truncate: true });
    try {
      for (let k = 0; k < 10; k++) {
        const copy = k === 0
          ? text
          : text.replace(TS_RE, (_, ts: string) => `"ts":"${isoMicros(micros(ts) + k * shiftUs)}"`);
        const bytes = enc.encode(copy);
        for (let off = 0; off < bytes.length;) off += await fh.write(bytes.subarray(off));
      }
      // On disk now, so write-back does not run into the timed loads.
      await fh.sync();
    } finally {
      fh.close();
    }
    out.push(dst);
  }
  return out;
}

/** Keeps what a query writes (no formatting) so results can be checked after timing. */
class Collect implements ValueWriter {
  values: Value[] = [];
  write(batch: Batch): Promise<void> {
    for (const v of batch) this.values.push(v);
    return Promise.resolve();
  }
  end(): Promise<void> {
    return Promise.resolve();
  }
}

function field(v: Value, name: string): Body {
  return (v.body as Body[])[(v.type as RecordType).indexOf(name)];
}

const countOf = (vals: Value[]) => String(vals.length === 1 ? field(vals[0], "count") : vals);
const countRow = (rows: unknown[][]) => String(rows[0][0]);

function queries(rangeLo: string, rangeHi: string, stringCols: string[]): Query[] {
  // Zed's keyword search matches any string value containing the term,
  // case-insensitively (and field names, which an IP never matches); numbers
  // are not searched. The closest SQL tests every string-bearing column
  // (VARCHAR, VARCHAR[], JSON) with a case-insensitive substring test: a
  // whole-row cast (`CAST(logs AS VARCHAR)`) would also search numbers and
  // every NULL column's name and is ~15x slower on this 246-column table.
  const search = stringCols.map((c) => `contains(lower(CAST(${c} AS VARCHAR)), '${KEYWORD}')`);
  return [
    {
      name: "count()",
      goal: "3x",
      zed: "count()",
      sql: "SELECT count(*) FROM logs",
      fromZed: countOf,
      fromSql: countRow,
    },
    {
      name: "count() by _path",
      goal: "3x",
      zed: "count() by _path",
      sql: "SELECT _path, count(*) FROM logs GROUP BY _path",
      fromZed: (vals) => vals.map((v) => `${field(v, "_path")}=${field(v, "count")}`).sort().join(),
      fromSql: (rows) => rows.map((r) => `${r[0]}=${r[1]}`).sort().join(),
    },
    {
      name: "ts range (1 min) | count()",
      goal: "faster",
      zed: `ts >= "${rangeLo}" and ts < "${rangeHi}" | count()`,
      sql: `SELECT count(*) FROM logs WHERE ts >= '${rangeLo}' AND ts < '${rangeHi}'`,
      fromZed: countOf,
      fromSql: countRow,
    },
    {
      name: "sort -r ts | head 10",
      goal: "faster",
      zed: "sort -r ts | head 10",
      // ts first so the check finds it; the rest is every column, as loch returns.
      sql: "SELECT ts, * FROM logs ORDER BY ts DESC LIMIT 10",
      fromZed: (vals) => vals.map((v) => field(v, "ts")).join(),
      fromSql: (rows) => rows.map((r) => r[0]).join(),
    },
    {
      name: `keyword "${KEYWORD}" | count()`,
      goal: "3x",
      zed: `"${KEYWORD}" | count()`,
      sql: `SELECT count(*) FROM logs WHERE ${search.join(" OR ")}`,
      fromZed: countOf,
      fromSql: countRow,
    },
  ];
}

/**
 * Runs f once to warm up (timed too: a query's first run over fresh objects
 * includes building the columns it reads), then runs times for the median.
 */
async function timed<T>(
  runs: number,
  f: () => Promise<T>,
): Promise<{ seconds: number; first: number; last: T }> {
  const c0 = performance.now();
  let last = await f();
  const first = (performance.now() - c0) / 1000;
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    last = await f();
    ts.push((performance.now() - t0) / 1000);
  }
  return { seconds: median(ts), first, last };
}

interface Side {
  load: number;
  query: Map<string, { seconds: number; first: number; result: string }>;
}

async function benchLoch(ds: Dataset, dir: string, qs: Query[]): Promise<Side> {
  const lake = await Lake.open(dir);
  try {
    // Order desc on ts, as the reference CLI's default pool key.
    const pool = createPool(lake, { name: POOL, layout: { order: "desc", keys: [["ts"]] } });
    const t0 = performance.now();
    for (const f of ds.files) {
      await load(lake, pool, "main", await openReader(ByteInput.fromFile(await Deno.open(f), f)));
    }
    const side: Side = { load: (performance.now() - t0) / 1000, query: new Map() };
    for (const q of qs) {
      let stats: ScanStats | undefined;
      const { seconds, first, last } = await timed(ds.runs, async () => {
        const w = new Collect();
        stats = await runLakeQuery(lake, `from ${POOL} | ${q.zed}`, w);
        return w.values;
      });
      side.query.set(q.name, { seconds, first, result: q.fromZed(last) });
      if (q.goal === "faster" && stats) {
        console.log(
          `  loch ${q.name}: read ${stats.objectsRead} object(s), pruned ${stats.objectsPruned}, ` +
            `${(stats.bytesRead / 1e6).toFixed(1)} MB, ${stats.recordsRead} records decoded`,
        );
      }
    }
    return side;
  } finally {
    lake.close();
  }
}

const quoteSql = (s: string) => `'${s.replaceAll("'", "''")}'`;
const quoteIdent = (s: string) => `"${s.replaceAll('"', '""')}"`;

export async function duckLoad(conn: DuckDBConnection, files: string[]): Promise<void> {
  // DuckDB's advice for bulk loads whose row order does not matter (loch
  // re-sorts on ts anyway); it makes the load faster here.
  await conn.run("SET preserve_insertion_order = false");
  // map_inference_threshold=-1: the union of the Zeek schemas has 246 fields,
  // which by default makes DuckDB read each record as one MAP(VARCHAR, JSON).
  // timestampformat: a format no value matches, so ts stays the ISO string
  // loch has (by default DuckDB would infer TIMESTAMP).
  await conn.run(
    `CREATE TABLE logs AS SELECT * FROM read_ndjson_auto([${files.map(quoteSql).join(", ")}], ` +
      `union_by_name=true, map_inference_threshold=-1, timestampformat='no-timestamps %Y')`,
  );
  // The table is on disk before the load counts as done, as loch's objects are.
  await conn.run("CHECKPOINT");
}

export async function duckVersion(): Promise<string> {
  const db = await DuckDBInstance.create();
  const conn = await DuckDBConnection.create(db);
  const v = String((await conn.runAndReadAll("SELECT version()")).getRows()[0][0]);
  conn.closeSync();
  db.closeSync();
  return v;
}

export async function stringColumns(conn: DuckDBConnection): Promise<string[]> {
  const r = await conn.runAndReadAll(
    "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'logs'",
  );
  const cols = r.getRows().filter((row) => /^(VARCHAR|JSON)/.test(String(row[1])));
  return cols.map((row) => quoteIdent(String(row[0])));
}

async function benchDuck(
  ds: Dataset,
  path: string,
  makeQueries: (stringCols: string[]) => Query[],
): Promise<{ side: Side; qs: Query[] }> {
  const db = await DuckDBInstance.create(path);
  const conn = await DuckDBConnection.create(db);
  try {
    const t0 = performance.now();
    await duckLoad(conn, ds.files);
    const side: Side = { load: (performance.now() - t0) / 1000, query: new Map() };
    const qs = makeQueries(await stringColumns(conn));
    for (const q of qs) {
      const { seconds, first, last } = await timed(
        ds.runs,
        async () => (await conn.runAndReadAll(q.sql)).getRows(),
      );
      side.query.set(q.name, { seconds, first, result: q.fromSql(last) });
    }
    return { side, qs };
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

function compare(loch: number, duck: number, goal: "1.5x" | "3x" | "faster"): string {
  const r = loch / duck;
  const how = r <= 1 ? `${(1 / r).toFixed(2)}x faster` : `${r.toFixed(2)}x slower`;
  const met = goal === "faster" ? r < 1 : r <= (goal === "3x" ? 3 : 1.5);
  const want = goal === "faster" ? "faster than DuckDB" : `within ${goal}`;
  return `ratio ${r.toFixed(2)} (loch ${how}); goal ${want}: ${met ? "met" : "NOT met"}`;
}

async function benchDataset(ds: Dataset, work: string, rangeLo: string, rangeHi: string) {
  const mb = ds.bytes / 1e6;
  console.log(
    `lake ${ds.name}: ${ds.files.length} NDJSON files, ${mb.toFixed(1)} MB; ` +
      `median of ${ds.runs} run(s) after a warm-up`,
  );
  // Each store is removed once measured, so at most one is on disk at a time.
  const duckPath = join(work, `${ds.name}.duckdb`);
  const { side: duck, qs } = await benchDuck(
    ds,
    duckPath,
    (cols) => queries(rangeLo, rangeHi, cols),
  );
  await Deno.remove(duckPath);
  const lakeDir = join(work, `lake-${ds.name}`);
  const loch = await benchLoch(ds, lakeDir, qs);
  await Deno.remove(lakeDir, { recursive: true });
  const rate = (s: number) => `${s.toFixed(2)} s (${(mb / s).toFixed(1)} MB/s)`;
  console.log(
    `  load: loch ${rate(loch.load)}, DuckDB ${rate(duck.load)}; ` +
      compare(loch.load, duck.load, "1.5x"),
  );
  for (const q of qs) {
    const l = loch.query.get(q.name)!, d = duck.query.get(q.name)!;
    if (l.result !== d.result) {
      throw new Error(`${q.name}: loch gave ${l.result}, DuckDB ${d.result}`);
    }
    console.log(
      `  ${q.name}: loch ${(l.seconds * 1000).toFixed(1)} ms, DuckDB ` +
        `${(d.seconds * 1000).toFixed(1)} ms; ${compare(l.seconds, d.seconds, q.goal)}; ` +
        `first runs: loch ${(l.first * 1000).toFixed(1)} ms, DuckDB ${
          (d.first * 1000).toFixed(1)
        } ms`,
    );
  }
}

export async function lakeBenchmarks(tmp: string, runs: number): Promise<void> {
  const files = await zeekFiles(tmp);
  const [lo, hi] = await tsSpan(files);
  // The logs cover ~21 minutes (and one stray record years later), so a
  // one-hour window would select nearly everything: take one minute, ten
  // minutes in. In the 10x set it selects the first copy's minute only.
  const from = Math.floor(lo / 60e6) * 60e6 + 10 * 60e6;
  const rangeLo = isoMicros(from), rangeHi = isoMicros(from + 60e6);
  console.log(
    `lake vs DuckDB ${await duckVersion()} (on-disk database, its default threads, ` +
      `preserve_insertion_order=false); ts is an ISO-8601 string in both; ` +
      `ts range [${rangeLo}, ${rangeHi})`,
  );
  const work = await Deno.makeTempDir({ dir: tmp, prefix: "lake-" });
  try {
    const one = { name: "1x", files, bytes: await settledBytes(files), runs };
    await benchDataset(one, work, rangeLo, rangeHi);
    const tenFiles = await replicate(files, join(work, "10x"), hi - lo + 1e6);
    const ten = { name: "10x", files: tenFiles, bytes: await settledBytes(tenFiles), runs };
    await benchDataset(ten, work, rangeLo, rangeHi);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

if (import.meta.main) {
  const tmp = await Deno.makeTempDir({ prefix: "loch-bench-" });
  try {
    await lakeBenchmarks(tmp, Number(Deno.args[0] ?? 5));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
