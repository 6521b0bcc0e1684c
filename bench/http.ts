// HTTP service benchmark, against a `loch serve` subprocess on a temp lake:
// 1. load throughput over HTTP (the Zeek NDJSON logs POSTed, streamed, one
//    commit per file and one combined) against the local CLI load;
// 2. query latency and throughput with 1, 8 and 32 concurrent clients
//    sending a mix of Zui's queries on the Zeek pool (keyed on ts desc);
// 3. fairness: how much short queries are delayed while a long one runs,
//    against an idle server.
// Run alone: deno run -A --lock=bench/deno.lock bench/http.ts [runs] [--cpu-prof DIR]
// (--cpu-prof profiles the server of the fairness part into DIR).

import { isoMicros, KEYWORD, replicate, settledBytes, tsSpan, zeekFiles } from "./lake.ts";
import {
  drain,
  latencySummary,
  LongClient,
  ms,
  percentile,
  queryRequest,
  runQueryOnce,
  ServerProcess,
  type Timed,
  timedFetch,
} from "./httpclient.ts";
import { join } from "./path.ts";
import { denoExe, median, repoRoot, timeRun } from "./util.ts";

const POOL = "zeek";
const POOL10 = "zeek10";
const CONCURRENCY = [1, 8, 32];

interface Files {
  paths: string[];
  bytes: number;
}

async function createPool(base: string, name: string): Promise<void> {
  const body = JSON.stringify({ name, layout: { order: "desc", keys: [["ts"]] } });
  await drain(
    await fetch(`${base}/pool`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body,
    }),
    `create ${name}`,
  );
}

async function* concatenated(paths: string[]): AsyncGenerator<Uint8Array> {
  for (const p of paths) yield* (await Deno.open(p)).readable;
}

/** POSTs the files, streamed, as one load (one commit); returns seconds. */
async function httpLoad(base: string, pool: string, paths: string[]): Promise<number> {
  const t = await timedFetch(`${base}/pool/${pool}/branch/main`, {
    method: "POST",
    headers: { "Content-Type": "application/x-ndjson", Accept: "application/json" },
    body: ReadableStream.from(concatenated(paths)),
  }, `load ${pool}`);
  return t.ms / 1000;
}

function loch(...args: string[]): string[] {
  return ["run", "-A", join(repoRoot, "main.ts"), ...args];
}

async function cliLoad(lake: string, pool: string, paths: string[]): Promise<number> {
  await timeRun(denoExe, loch("create", "-lake", lake, "-orderby", "ts:desc", "-q", pool));
  return await timeRun(denoExe, loch("load", "-lake", lake, "-use", pool, "-q", ...paths));
}

const rate = (mb: number, s: number) => `${s.toFixed(2)} s, ${(mb / s).toFixed(1)} MB/s`;

/** Load over HTTP (per file, combined) vs the CLI; leaves pools zeek and zeek10 loaded. */
async function loadBenchmarks(
  base: string,
  work: string,
  one: Files,
  ten: Files,
  runs: number,
): Promise<void> {
  const cliLake = join(work, "cli-lake");
  const n = Math.max(1, Math.min(runs, 3));
  const perFile: number[] = [], combined: number[] = [], cli: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = `files-${i}`;
    await createPool(base, p);
    const t0 = performance.now();
    for (const f of one.paths) await httpLoad(base, p, [f]);
    perFile.push((performance.now() - t0) / 1000);
    // The first combined load is the pool the queries run on.
    const c = i === 0 ? POOL : `combined-${i}`;
    await createPool(base, c);
    combined.push(await httpLoad(base, c, one.paths));
    cli.push(await cliLoad(cliLake, `cli-${i}`, one.paths));
  }
  await timeRun(denoExe, loch("ls", "-lake", cliLake));
  const startup: number[] = [];
  for (let i = 0; i < n; i++) startup.push(await timeRun(denoExe, loch("ls", "-lake", cliLake)));
  const mb = one.bytes / 1e6;
  const [pf, cb, cl, st] = [median(perFile), median(combined), median(cli), median(startup)];
  console.log(
    `http load: ${one.paths.length} Zeek NDJSON files, ${mb.toFixed(1)} MB, median of ${n}`,
  );
  console.log(`  HTTP, one POST and commit per file: ${rate(mb, pf)}`);
  console.log(`  HTTP, one streamed POST, one commit: ${rate(mb, cb)}`);
  console.log(
    `  CLI load (one process, one commit):  ${rate(mb, cl)} ` +
      `(of which ~${(st * 1000).toFixed(0)} ms is starting the process: \`loch ls\`)`,
  );
  console.log(
    `  ratio HTTP/CLI time: combined ${(cb / cl).toFixed(2)}, per file ${(pf / cl).toFixed(2)}; ` +
      `vs the CLI less its start-up: combined ${(cb / (cl - st)).toFixed(2)}`,
  );
  const mb10 = ten.bytes / 1e6;
  await createPool(base, POOL10);
  const h10 = await httpLoad(base, POOL10, ten.paths);
  const c10 = await cliLoad(cliLake, "cli-10x", ten.paths);
  console.log(
    `  10x set (${mb10.toFixed(1)} MB), once: HTTP combined ${rate(mb10, h10)}, CLI ${
      rate(mb10, c10)
    }; ratio ${(h10 / c10).toFixed(2)}`,
  );
  await Deno.remove(cliLake, { recursive: true });
}

interface Query {
  name: string;
  text: string;
}

/** Zui's kinds of queries: the histogram/overview count, a time-range pin, the results table, a search. */
function zuiMix(rangeLo: string, rangeHi: string): Query[] {
  return [
    { name: "count() by _path", text: `from ${POOL} | count() by _path` },
    {
      name: "ts range count",
      text: `from ${POOL} | ts >= "${rangeLo}" and ts < "${rangeHi}" | count()`,
    },
    { name: "head 100", text: `from ${POOL} | head 100` },
    { name: `"${KEYWORD}" | head 500`, text: `from ${POOL} | "${KEYWORD}" | head 500` },
  ];
}

/** Clients each sending the mix back to back for `seconds`; latencies per query. */
async function concurrencyLevel(
  base: string,
  mix: Query[],
  clients: number,
  seconds: number,
): Promise<{ lat: number[][]; qps: number }> {
  const lat = mix.map(() => [] as number[]);
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  let count = 0;
  const client = async (k: number) => {
    for (let i = k; performance.now() < deadline; i++) {
      const q = i % mix.length;
      lat[q].push((await runQueryOnce(base, mix[q].text)).ms);
      count++;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, k) => client(k)));
  return { lat, qps: count / ((performance.now() - t0) / 1000) };
}

async function concurrencyBenchmarks(
  server: ServerProcess,
  mix: Query[],
  runs: number,
): Promise<void> {
  const base = server.url;
  for (const q of mix) await runQueryOnce(base, q.text); // warm-up (builds columns)
  const seconds = Math.max(2, Math.min(runs, 4));
  console.log(
    `http queries on ${POOL} (1x), ZJSON with ctrl=T as Zui sends them, each client running ` +
      `a mix back to back for ${seconds} s per level; server CPU in % of one core; ` +
      `latency p50/p95 ms:`,
  );
  // The search costs ~100x the others, so the mix without it shows the service's own overhead.
  for (const m of [mix, mix.slice(0, -1)]) {
    const cols = ["clients", "queries/s", "server CPU", "all", ...m.map((q) => q.name)];
    const widths = cols.map((c) => Math.max(c.length, 11));
    const row = (cells: string[]) => "  " + cells.map((c, i) => c.padEnd(widths[i])).join("  ");
    console.log(row(cols));
    for (const c of CONCURRENCY) {
      const cpu0 = server.cpuSeconds(), t0 = performance.now();
      const { lat, qps } = await concurrencyLevel(base, m, c, seconds);
      const cpu = (server.cpuSeconds() - cpu0) / ((performance.now() - t0) / 1000);
      const pp = (xs: number[]) => `${ms(percentile(xs, 50))}/${ms(percentile(xs, 95))}`;
      const load = `${(cpu * 100).toFixed(0)}%`;
      console.log(row([String(c), qps.toFixed(1), load, pp(lat.flat()), ...lat.map(pp)]));
    }
  }
}

interface Probe {
  name: string;
  run: () => Promise<Timed>;
}

/** The short requests: the cheapest route (one event-loop turn), then two short queries. */
function probes(base: string): Probe[] {
  const status = () => timedFetch(`${base}/status`, {}, "GET /status");
  return [
    { name: "GET /status", run: status },
    { name: `from ${POOL} | head 1`, run: () => runQueryOnce(base, `from ${POOL} | head 1`) },
    { name: `from ${POOL} | count()`, run: () => runQueryOnce(base, `from ${POOL} | count()`) },
  ];
}

/** The probes one after another, in turn, while `running()`; latencies per probe. */
async function probeLoop(ps: Probe[], running: () => boolean): Promise<number[][]> {
  const lat = ps.map(() => [] as number[]);
  for (let i = 0; running(); i++) {
    const k = i % ps.length;
    const t = await ps[k].run();
    if (running()) lat[k].push(t.ms); // only those that ran wholly alongside
  }
  return lat;
}

/** n rounds of the probes on an otherwise idle server. */
async function probeRounds(ps: Probe[], n: number): Promise<number[][]> {
  const lat = ps.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < ps.length; k++) lat[k].push((await ps[k].run()).ms);
  }
  return lat;
}

interface LongQuery {
  name: string;
  request: [string, RequestInit];
}

export async function fairness(base: string, runs: number): Promise<void> {
  const ps = probes(base);
  for (const p of ps) await p.run();
  const idle = await probeRounds(ps, 50);
  const longs: LongQuery[] = [
    {
      name: `from ${POOL10} | "${KEYWORD}" | count() (ZJSON, ctrl=T)`,
      request: queryRequest(base, `from ${POOL10} | "${KEYWORD}" | count()`),
    },
    {
      name: `from ${POOL} | sort id.orig_h, ts (all 1x records as JSON)`,
      request: queryRequest(base, `from ${POOL} | sort id.orig_h, ts`, "application/json", false),
    },
  ];
  console.log(
    "http fairness: short requests sent back to back by one client while a long query runs " +
      "(its client in another process); latencies against an idle server:",
  );
  const width = Math.max(...ps.map((p) => p.name.length));
  ps.forEach((p, k) => console.log(`    ${p.name.padEnd(width)}  idle ${latencySummary(idle[k])}`));
  for (const long of longs) {
    await new LongClient(long.request).done; // warm-up
    const alone = await new LongClient(long.request).done;
    const during = ps.map(() => [] as number[]);
    const loaded: number[] = [];
    for (let r = 0; r < Math.max(1, Math.min(runs, 3)); r++) {
      const c = new LongClient(long.request);
      await c.started;
      const lat = await probeLoop(ps, () => !c.finished);
      lat.forEach((xs, k) => during[k].push(...xs));
      loaded.push((await c.done).ms);
    }
    console.log(
      `  long: ${long.name}: alone ${ms(alone.ms)} ms (${(alone.bytes / 1e6).toFixed(1)} MB ` +
        `out), with the probes ${ms(median(loaded))} ms (median of ${loaded.length})`,
    );
    ps.forEach((p, k) => {
      const d = during[k], i = idle[k];
      console.log(
        `    ${p.name.padEnd(width)}  during ${latencySummary(d)}; delay p50 +${
          ms(percentile(d, 50) - percentile(i, 50))
        }, p95 +${ms(percentile(d, 95) - percentile(i, 95))}, p99 +${
          ms(percentile(d, 99) - percentile(i, 99))
        } ms`,
      );
    });
  }
}

/** Runs the three parts; the load part fills the pools the others query. */
export async function httpBenchmarks(tmp: string, runs: number, cpuProfDir?: string) {
  const work = await Deno.makeTempDir({ dir: tmp, prefix: "http-" });
  try {
    const paths = await zeekFiles(tmp);
    const [lo, hi] = await tsSpan(paths);
    const tenPaths = await replicate(paths, join(work, "10x"), hi - lo + 1e6);
    const one = { paths, bytes: await settledBytes(paths) };
    const ten = { paths: tenPaths, bytes: await settledBytes(tenPaths) };
    // One minute, ten minutes in, as the lake benchmark.
    const from = Math.floor(lo / 60e6) * 60e6 + 10 * 60e6;
    const mix = zuiMix(isoMicros(from), isoMicros(from + 60e6));
    const lake = join(work, "lake");
    let server = await ServerProcess.start(lake, work);
    try {
      await loadBenchmarks(server.url, work, one, ten, runs);
      await concurrencyBenchmarks(server, mix, runs);
      if (cpuProfDir) {
        // A server of its own, so the profile holds the fairness part only.
        await server.stop();
        server = await ServerProcess.start(lake, work, [
          "--cpu-prof",
          `--cpu-prof-dir=${cpuProfDir}`,
        ]);
      }
      await fairness(server.url, runs);
    } finally {
      await server.stop();
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--cpu-prof");
  const prof = i < 0 ? undefined : Deno.args[i + 1];
  const rest = i < 0 ? Deno.args : Deno.args.filter((_, k) => k !== i && k !== i + 1);
  const tmp = await Deno.makeTempDir({ prefix: "loch-bench-" });
  try {
    await httpBenchmarks(tmp, Number(rest[0] ?? 5), prof);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
