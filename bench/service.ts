// Service benchmark: what users do, measured side by side in one run.
//
// The Zeek logs (1x) and a 10x replica (ts shifted per copy) are POSTed one
// request per log file into two pools keyed on ts, ascending and descending,
// on `loch serve` and on the reference's `zed serve` (both subprocesses on
// 127.0.0.1), and into a DuckDB table of their own. Every query shape the
// columnar issue names then runs over HTTP in ZSON and JSON: cold (the first
// query after a server restart) and warm (the median of runs after it). zq
// runs the same queries over a ZNG file of the same records, and DuckDB their
// SQL equivalents. Every loch answer is checked equal to Zed's. Warm means
// after a few untimed runs (JavaScript optimizes code once it has run it), for
// both servers alike; the servers' start-up times are printed too (loch warms
// its engine before it serves).
//
// Run alone: deno run -A --lock=bench/deno.lock bench/service.ts [--runs N]
//   [--scale 1x|10x|both] [--only NAME,...] [--json FILE]

// deno-lint-ignore no-import-prefix
import { DuckDBConnection, DuckDBInstance } from "npm:@duckdb/node-api@1.5.5-r.5";
import { parseArgs } from "node:util";
import {
  duckLoad,
  duckVersion,
  isoMicros,
  replicate,
  settledBytes,
  stringColumns,
  tsSpan,
  zeekFiles,
} from "./lake.ts";
import { drain, fileBody, ms, ServerProcess } from "./httpclient.ts";
import { openReader } from "../lib/formats/detect.ts";
import { ByteInput } from "../lib/formats/io.ts";
import { ZngWriter } from "../lib/formats/zng/writer.ts";
import { join } from "./path.ts";
import { median, repoRoot } from "./util.ts";

const ZED_DIR = join(repoRoot, "..", "shared", "tools", "zed-v1.3.0");
const KEYWORD = "wrccdc";
const FORMATS = [
  { name: "zson", accept: "application/x-zson" },
  { name: "json", accept: "application/json" },
] as const;
type Format = (typeof FORMATS)[number];
const POOLS = [{ name: "asc", order: "asc" }, { name: "desc", order: "desc" }] as const;

/** A query shape: its Zed text (after `from POOL |`), SQL, and how answers compare. */
interface Shape {
  name: string;
  zed: string;
  /** The SQL over DuckDB's `logs` table, or null where there is no fair equivalent. */
  sql: string | null;
  /** Output order is unspecified (groupings): answers compare as multisets of values. */
  unordered?: boolean;
  /** A filter, grouping or range count: held to the DuckDB goal (≤ 2x). */
  duckGoal?: boolean;
}

function shapes(hourLo: string, hourHi: string, fiveLo: string, fiveHi: string): Shape[] {
  const range = (lo: string, hi: string) => ({
    zed: `ts >= "${lo}" and ts < "${hi}" | count()`,
    sql: `SELECT count(*) FROM logs WHERE ts >= '${lo}' AND ts < '${hi}'`,
    duckGoal: true,
  });
  return [
    { name: "count()", zed: "count()", sql: "SELECT count(*) FROM logs", duckGoal: true },
    {
      name: "count() by _path",
      zed: "count() by _path",
      sql: "SELECT _path, count(*) FROM logs GROUP BY _path",
      unordered: true,
      duckGoal: true,
    },
    { name: "1-hour ts range count", ...range(hourLo, hourHi) },
    { name: "5-minute ts range count", ...range(fiveLo, fiveHi) },
    {
      name: "sort -r ts | head 10",
      zed: "sort -r ts | head 10",
      sql: "SELECT * FROM logs ORDER BY ts DESC LIMIT 10",
    },
    {
      name: "sort ts | head 10",
      zed: "sort ts | head 10",
      sql: "SELECT * FROM logs ORDER BY ts LIMIT 10",
    },
    { name: "head 10", zed: "head 10", sql: "SELECT * FROM logs LIMIT 10" },
    // sql: filled in once the table's string columns are known.
    { name: `"${KEYWORD}" | count()`, zed: `"${KEYWORD}" | count()`, sql: null, duckGoal: true },
    {
      // The JSON's field is named "id.resp_p": this nested path matches nothing (as in Zed).
      name: "id.resp_p==53 | count()",
      zed: "id.resp_p==53 | count()",
      sql: null,
    },
    {
      name: 'this["id.resp_p"]==53 | count()',
      zed: 'this["id.resp_p"]==53 | count()',
      sql: `SELECT count(*) FROM logs WHERE "id.resp_p" = 53`,
      duckGoal: true,
    },
    {
      name: "avg(rtt) by query | top 10",
      zed: "summarize avg(rtt) by query | sort -r avg | head 10",
      sql: "SELECT query, avg(rtt) AS avg FROM logs WHERE query IS NOT NULL GROUP BY query " +
        "ORDER BY avg DESC NULLS LAST LIMIT 10",
      duckGoal: true,
    },
    {
      name: 'count() by this["id.orig_h"]',
      zed: 'count() by this["id.orig_h"]',
      sql: `SELECT "id.orig_h", count(*) FROM logs GROUP BY "id.orig_h"`,
      unordered: true,
      duckGoal: true,
    },
    {
      name: "cut ts,query | head 10000",
      zed: "cut ts,query | head 10000",
      sql: "SELECT ts, query FROM logs LIMIT 10000",
    },
  ];
}

interface Cell {
  cold: number;
  warm: number;
  /**
   * loch only: the median of runs after STEADY_AFTER more, once the JIT has
   * compiled the query's path (Zed's compiled code is as fast at its 5th
   * run as at its 50th, so its warm is its steady time).
   */
  steady?: number;
}

interface Row {
  scale: string;
  pool: string;
  query: string;
  format: string;
  loch: Cell;
  zed: Cell | null;
  zq: number | null;
  duck: Cell | null;
  duckGoal: boolean;
  /** "equal", or how loch's answer differed from Zed's. */
  check: string;
}

interface Options {
  runs: number;
  scales: string[];
  only: string[] | null;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Answers in a comparable form: the body as is, or its values sorted. */
function canonical(body: string, format: Format, unordered: boolean): string {
  if (!unordered) return body;
  if (format.name === "json") {
    const vals = JSON.parse(body) as unknown[];
    return vals.map((v) => JSON.stringify(v)).sort().join("\n");
  }
  return body.split("\n").filter((l) => l !== "").sort().join("\n");
}

async function post(base: string, path: string, body: BodyInit, headers: HeadersInit = {}) {
  const res = await fetch(base + path, { method: "POST", body, headers });
  await drain(res, `POST ${path}`);
}

async function query(base: string, pool: string, text: string, f: Format) {
  const t0 = performance.now();
  const res = await fetch(`${base}/query`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: f.accept },
    body: JSON.stringify({ query: `from ${pool} | ${text}` }),
  });
  const body = await res.text();
  const t = performance.now() - t0;
  if (!res.ok) throw new Error(`${pool}: ${text}: HTTP ${res.status}: ${body}`);
  return { ms: t, body };
}

/** A server that can be restarted on its lake (for cold runs). */
class Server {
  private proc: ServerProcess | null = null;
  /** How long each start took until the server answered, in ms. */
  readonly starts: number[] = [];
  constructor(
    readonly name: string,
    private start: () => Promise<ServerProcess>,
  ) {}
  get url(): string {
    return this.proc!.url;
  }
  get pid(): number {
    return this.proc!.pid;
  }
  async restart(): Promise<void> {
    await this.stop();
    const t0 = performance.now();
    this.proc = await this.start();
    this.starts.push(performance.now() - t0);
  }
  async stop(): Promise<void> {
    if (this.proc !== null) await this.proc.stop();
    this.proc = null;
  }
}

/** Loads every file into each pool, one POST per file; returns seconds per pool. */
async function loadPools(s: Server, files: string[]): Promise<number[]> {
  const secs: number[] = [];
  for (const p of POOLS) {
    await post(
      s.url,
      "/pool",
      JSON.stringify({ name: p.name, layout: { order: p.order, keys: [["ts"]] } }),
      { "Content-Type": "application/json", Accept: "application/json" },
    );
    const t0 = performance.now();
    for (const f of files) {
      await post(s.url, `/pool/${p.name}/branch/main`, await fileBody(f), {
        Accept: "application/json",
      });
    }
    secs.push((performance.now() - t0) / 1000);
  }
  return secs;
}

/** A file's records as ZNG: what Go's `zed load` sends after parsing the file itself. */
async function zngChunks(path: string): Promise<Uint8Array[]> {
  const reader = await openReader(ByteInput.fromBytes(await Deno.readFile(path)));
  const chunks: Uint8Array[] = [];
  const w = new ZngWriter((c) => {
    chunks.push(c.slice());
    return Promise.resolve();
  });
  for (let b = await reader.read(); b !== null; b = await reader.read()) await w.write(b);
  await w.end();
  return chunks;
}

/**
 * Loads each file's ZNG into a pool of its own keyed ts ascending, one POST
 * per file sent without a length (chunked), as Go's `zed load` does; returns seconds.
 */
async function loadZng(s: Server, zngs: Uint8Array[][]): Promise<number> {
  await post(
    s.url,
    "/pool",
    JSON.stringify({ name: "zng", layout: { order: "asc", keys: [["ts"]] } }),
    { "Content-Type": "application/json", Accept: "application/json" },
  );
  const t0 = performance.now();
  for (const chunks of zngs) {
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => i < chunks.length ? c.enqueue(chunks[i++].slice()) : c.close(),
    });
    await post(s.url, "/pool/zng/branch/main", body, {
      Accept: "application/json",
      "Content-Type": "application/x-zng",
    });
  }
  return (performance.now() - t0) / 1000;
}

/** Untimed runs between the cold run and the timed warm ones. */
const WARMUPS = 3;

/** Untimed runs after the warm ones, before loch's steady ones. */
const STEADY_AFTER = 20;

/** Cold (first after a restart) then the median of runs warm, for one server. */
async function timeServer(
  s: Server,
  pool: string,
  text: string,
  f: Format,
  runs: number,
  steady = false,
): Promise<{ cell: Cell; body: string }> {
  await s.restart();
  const first = await query(s.url, pool, text, f);
  let body = first.body;
  const timed = async () => {
    const ts: number[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await query(s.url, pool, text, f);
      ts.push(r.ms);
      body = r.body;
    }
    return median(ts);
  };
  for (let i = 0; i < WARMUPS; i++) await query(s.url, pool, text, f);
  const cell: Cell = { cold: first.ms, warm: await timed() };
  if (steady) {
    for (let i = 0; i < STEADY_AFTER; i++) await query(s.url, pool, text, f);
    cell.steady = await timed();
  }
  return { cell, body };
}

async function timeDuck(conn: DuckDBConnection, sql: string, runs: number): Promise<Cell> {
  const t0 = performance.now();
  await conn.runAndReadAll(sql);
  const cold = performance.now() - t0;
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await conn.runAndReadAll(sql);
    ts.push(performance.now() - t);
  }
  return { cold, warm: median(ts) };
}

/** zq over a ZNG file of the records: the median of runs after one warm-up, in ms. */
async function timeZq(zng: string, text: string, runs: number): Promise<number> {
  const run = async () => {
    const t0 = performance.now();
    const p = await new Deno.Command(join(ZED_DIR, "zq"), {
      args: ["-z", text, zng],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!p.success) throw new Error(`zq ${text}: ${new TextDecoder().decode(p.stderr)}`);
    return performance.now() - t0;
  };
  await run();
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) ts.push(await run());
  return median(ts);
}

async function zngOf(files: string[], out: string): Promise<void> {
  const p = await new Deno.Command(join(ZED_DIR, "zq"), {
    args: ["-f", "zng", "-o", out, "pass", ...files],
    stderr: "piped",
  }).output();
  if (!p.success) throw new Error(`zq -f zng: ${new TextDecoder().decode(p.stderr)}`);
}

const ratio = (a: number, b: number | undefined) =>
  b === undefined || !(b > 0) ? "-" : (a / b).toFixed(2);

function printRows(rows: Row[]): void {
  const head = [
    "query",
    "fmt",
    "loch cold",
    "zed cold",
    "l/z",
    "loch warm",
    "zed warm",
    "l/z",
    "loch steady",
    "l/z",
    "zq",
    "duckdb",
    "l/duck",
    "st/duck",
    "check",
  ];
  const cells = rows.map((r) => [
    r.query,
    r.format,
    ms(r.loch.cold),
    r.zed ? ms(r.zed.cold) : "-",
    ratio(r.loch.cold, r.zed?.cold),
    ms(r.loch.warm),
    r.zed ? ms(r.zed.warm) : "-",
    ratio(r.loch.warm, r.zed?.warm),
    r.loch.steady === undefined ? "-" : ms(r.loch.steady),
    r.loch.steady === undefined ? "-" : ratio(r.loch.steady, r.zed?.warm),
    r.zq === null ? "-" : ms(r.zq),
    r.duck ? ms(r.duck.warm) : "-",
    ratio(r.loch.warm, r.duck?.warm),
    r.loch.steady === undefined ? "-" : ratio(r.loch.steady, r.duck?.warm),
    r.check,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    "  " + c.map((x, i) => (i < 2 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join("  ");
  console.log(line(head));
  for (const c of cells) console.log(line(c));
}

async function benchScale(
  scale: string,
  files: string[],
  ranges: [string, string, string, string],
  work: string,
  opts: Options,
  zedHere: boolean,
): Promise<Row[]> {
  const bytes = await settledBytes(files);
  const mb = bytes / 1e6;
  const dir = await Deno.makeTempDir({ dir: work, prefix: `svc-${scale}-` });
  const loch = new Server("loch", () => ServerProcess.start(join(dir, "loch"), dir));
  const zed = zedHere
    ? new Server("zed", () => ServerProcess.startZed(join(ZED_DIR, "zed"), join(dir, "zed"), dir))
    : null;
  const rows: Row[] = [];
  const db = await DuckDBInstance.create(join(dir, "duck.db"));
  const conn = await DuckDBConnection.create(db);
  try {
    await loch.restart();
    await zed?.restart();
    const lochLoad = await loadPools(loch, files);
    const zedLoad = zed ? await loadPools(zed, files) : null;
    const zngs: Uint8Array[][] = [];
    for (const f of files) zngs.push(await zngChunks(f));
    let zngBytes = 0;
    for (const z of zngs) for (const c of z) zngBytes += c.length;
    const lochZng = await loadZng(loch, zngs);
    const zedZng = zed ? await loadZng(zed, zngs) : null;
    const t0 = performance.now();
    await duckLoad(conn, files);
    const duckLoadS = (performance.now() - t0) / 1000;
    console.log(
      `service ${scale}: ${files.length} Zeek NDJSON files, ${mb.toFixed(1)} MB, ` +
        `one POST per file; warm = median of ${opts.runs} after the cold run and ${WARMUPS} more; ` +
        `loch steady = median of ${opts.runs} after ${STEADY_AFTER} more`,
    );
    POOLS.forEach((p, i) => {
      const l = lochLoad[i], z = zedLoad?.[i];
      console.log(
        `  load into ${p.name}: loch ${l.toFixed(2)} s (${(mb / l).toFixed(1)} MB/s)` +
          (z === undefined
            ? ""
            : `, zed ${z.toFixed(2)} s (${(mb / z).toFixed(1)} MB/s); loch/zed ${ratio(l, z)}`),
      );
    });
    console.log(
      `  load as ZNG (${(zngBytes / 1e6).toFixed(1)} MB, sent without a length as Go's zed load ` +
        `sends it): loch ${lochZng.toFixed(2)} s (${
          (mb / lochZng).toFixed(1)
        } MB/s of the NDJSON)` +
        (zedZng === null
          ? ""
          : `, zed ${zedZng.toFixed(2)} s (${(mb / zedZng).toFixed(1)} MB/s); loch/zed ${
            ratio(lochZng, zedZng)
          }`),
    );
    console.log(`  DuckDB table: ${duckLoadS.toFixed(2)} s (${(mb / duckLoadS).toFixed(1)} MB/s)`);
    const stringCols = await stringColumns(conn);
    const all = shapes(...ranges).map((s) =>
      s.name.startsWith(`"${KEYWORD}"`)
        ? {
          ...s,
          sql: `SELECT count(*) FROM logs WHERE ${
            stringCols.map((c) => `contains(lower(CAST(${c} AS VARCHAR)), '${KEYWORD}')`)
              .join(" OR ")
          }`,
        }
        : s
    );
    const chosen = opts.only === null
      ? all
      : all.filter((s) => opts.only!.some((o) => s.name.includes(o)));
    const duck = new Map<string, Cell>();
    for (const s of chosen) {
      if (s.sql !== null) duck.set(s.name, await timeDuck(conn, s.sql, opts.runs));
    }
    const zq = new Map<string, number>();
    if (zedHere) {
      const zng = join(dir, "all.zng");
      await zngOf(files, zng);
      for (const s of chosen) zq.set(s.name, await timeZq(zng, s.zed, Math.min(opts.runs, 3)));
    }
    for (const p of POOLS) {
      const poolRows: Row[] = [];
      for (const s of chosen) {
        for (const f of FORMATS) {
          const l = await timeServer(loch, p.name, s.zed, f, opts.runs, true);
          const z = zed ? await timeServer(zed, p.name, s.zed, f, opts.runs) : null;
          let check = "no zed";
          if (z !== null) {
            check = l.body === z.body
              ? "equal"
              : canonical(l.body, f, !!s.unordered) === canonical(z.body, f, !!s.unordered)
              ? "equal"
              : "DIFFERENT";
          }
          if (check === "DIFFERENT") {
            console.log(`  ${p.name} ${s.name} ${f.name}: loch and zed differ`);
            console.log(`    loch: ${l.body.slice(0, 400)}`);
            console.log(`    zed:  ${z!.body.slice(0, 400)}`);
          }
          poolRows.push({
            scale,
            pool: p.name,
            query: s.name,
            format: f.name,
            loch: l.cell,
            zed: z?.cell ?? null,
            zq: zq.get(s.name) ?? null,
            duck: duck.get(s.name) ?? null,
            duckGoal: !!s.duckGoal,
            check,
          });
        }
      }
      console.log(`service ${scale}, pool ${p.name} (ts ${p.order}ending), times in ms:`);
      printRows(poolRows);
      rows.push(...poolRows);
    }
    const startup = (srv: Server) => `${ms(median(srv.starts))} ms`;
    console.log(
      `  server start until it answers (median of ${loch.starts.length}): loch ${startup(loch)}` +
        (zed === null ? "" : `, zed ${startup(zed)}`),
    );
  } finally {
    conn.closeSync();
    db.closeSync();
    await loch.stop();
    await zed?.stop();
    await Deno.remove(dir, { recursive: true });
  }
  return rows;
}

function summarize(rows: Row[]): void {
  const vsZed = rows.filter((r) => r.zed !== null);
  const over = (get: (r: Row) => [number, number]) =>
    vsZed.filter((r) => {
      const [a, b] = get(r);
      return a > 0.5 * b;
    });
  const coldMiss = over((r) => [r.loch.cold, r.zed!.cold]);
  const warmMiss = over((r) => [r.loch.warm, r.zed!.warm]);
  const steadyMiss = over((r) => [r.loch.steady ?? r.loch.warm, r.zed!.warm]);
  const worst = (xs: number[]) => Math.max(...xs).toFixed(2);
  console.log(
    `service summary: ${vsZed.length} cells against Zed; loch/zed worst cold ${
      worst(vsZed.map((r) => r.loch.cold / r.zed!.cold))
    }, worst warm ${worst(vsZed.map((r) => r.loch.warm / r.zed!.warm))}; cells over 0.5x: ` +
      `cold ${coldMiss.length}, warm ${warmMiss.length}, steady (against Zed's warm) ${steadyMiss.length}`,
  );
  for (const r of [...new Set([...coldMiss, ...warmMiss])]) {
    console.log(
      `  over 0.5x: ${r.scale} ${r.pool} ${r.query} ${r.format}: cold ${
        ratio(r.loch.cold, r.zed!.cold)
      }, warm ${ratio(r.loch.warm, r.zed!.warm)}`,
    );
  }
  const duckRows = rows.filter((r) => r.duckGoal && r.duck !== null);
  const duckMiss = duckRows.filter((r) => r.loch.warm > 2 * r.duck!.warm);
  console.log(
    `  filters, groupings, range counts vs DuckDB (warm): ${duckRows.length - duckMiss.length} ` +
      `of ${duckRows.length} cells within 2x`,
  );
  for (const r of duckMiss) {
    console.log(
      `  over 2x DuckDB: ${r.scale} ${r.pool} ${r.query} ${r.format}: ${
        ratio(r.loch.warm, r.duck!.warm)
      }, steady ${r.loch.steady === undefined ? "-" : ratio(r.loch.steady, r.duck!.warm)}`,
    );
  }
  const steadyDuckMiss = duckRows.filter((r) => (r.loch.steady ?? r.loch.warm) > 2 * r.duck!.warm);
  console.log(
    `  the same, loch steady: ${duckRows.length - steadyDuckMiss.length} of ${duckRows.length} ` +
      `within 2x`,
  );
  const bad = rows.filter((r) => r.check === "DIFFERENT");
  console.log(`  answers equal to Zed's: ${vsZed.length - bad.length} of ${vsZed.length}`);
}

export async function serviceBenchmarks(
  tmp: string,
  runs: number,
  scales = ["1x", "10x"],
  only: string[] | null = null,
): Promise<Row[]> {
  const zedHere = await exists(join(ZED_DIR, "zed"));
  console.log(
    `service: loch serve vs ${zedHere ? "zed serve v1.3.0" : "(zed not found: skipped)"} ` +
      `and zq over HTTP/files, DuckDB ${await duckVersion()} on its own table`,
  );
  const files = await zeekFiles(tmp);
  const [lo, hi] = await tsSpan(files);
  // Windows start ten minutes into the logs (which span ~21 minutes, plus one stray record).
  const from = Math.floor(lo / 60e6) * 60e6 + 10 * 60e6;
  const ranges: [string, string, string, string] = [
    isoMicros(from),
    isoMicros(from + 3600e6),
    isoMicros(from),
    isoMicros(from + 300e6),
  ];
  const opts: Options = { runs, scales, only };
  const rows: Row[] = [];
  const work = await Deno.makeTempDir({ dir: tmp, prefix: "service-" });
  try {
    if (scales.includes("1x")) {
      rows.push(...await benchScale("1x", files, ranges, work, opts, zedHere));
    }
    if (scales.includes("10x")) {
      const ten = await replicate(files, join(work, "10x"), hi - lo + 1e6);
      rows.push(...await benchScale("10x", ten, ranges, work, opts, zedHere));
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
  summarize(rows);
  return rows;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "5" },
      scale: { type: "string", default: "both" },
      only: { type: "string" },
      json: { type: "string" },
    },
  });
  const scales = values.scale === "both" ? ["1x", "10x"] : [values.scale];
  const tmp = await Deno.makeTempDir({ prefix: "loch-bench-" });
  try {
    const rows = await serviceBenchmarks(
      tmp,
      Number(values.runs),
      scales,
      values.only?.split(",") ?? null,
    );
    if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(rows, null, 1));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
