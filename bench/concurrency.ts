// Concurrency and memory benchmark: many clients at once, side by side with
// the reference in the same run.
//
// For each scale (the Zeek logs at 1x, and a 10x replica with ts shifted per
// copy) and each server (`loch serve`, then `zed serve`, each on a lake of its
// own, never both at once): the server starts (idle), the logs are POSTed one
// request per file into a pool keyed on ts descending as Zui makes them
// (load), then 1, 8 and 32 clients each send a mix of seven Zui-style queries
// (ZJSON with control messages) back to back for a fixed time. It prints
// queries/s and latency p50/p90/p99 per level, load MB/s, and the server's
// peak resident memory per phase (idle, load, 1 client, 8 clients, 32
// clients), read from /proc: its high-water mark reset at each phase start
// where the kernel allows it, else the highest of samples every 20 ms.
//
// Run alone: deno run -A --lock=bench/deno.lock bench/concurrency.ts
//   [--seconds N] [--scale 1x|10x|both] [--workers N] [--json FILE]

import { parseArgs } from "node:util";
import { isoMicros, KEYWORD, replicate, settledBytes, tsSpan, zeekFiles } from "./lake.ts";
import { drain, fileBody, ms, percentile, runQueryOnce, ServerProcess } from "./httpclient.ts";
import { join } from "./path.ts";
import { repoRoot } from "./util.ts";

const ZED_DIR = join(repoRoot, "..", "shared", "tools", "zed-v1.3.0");
const POOL = "zeek";
const LEVELS = [1, 8, 32];
const PHASES = ["idle", "load", "1 client", "8 clients", "32 clients"] as const;
type Phase = (typeof PHASES)[number];

/** Seven kinds of query Zui sends while someone explores a pool (docs/clients.md). */
export function zuiMix(pool: string, from: string, to: string): string[] {
  return [
    // The results table, its first page.
    `from ${pool} | head 500`,
    // The histogram: the span, then counts per bucket and path.
    `from ${pool} | min(ts), max(ts)`,
    // (ts is a string in these NDJSON logs, hence time().)
    `from ${pool} | ts != null | count() by time := bucket(time(ts), 1m), group := _path ` +
    `| sort time`,
    // A pinned time range, a right-click "count by", a search, a value filter.
    `from ${pool} | ts >= "${from}" and ts < "${to}" | count() by _path`,
    `from ${pool} | count() by this["id.orig_h"] | sort -r count | head 10`,
    `from ${pool} | "${KEYWORD}" | head 500`,
    `from ${pool} | this["id.resp_p"]==53 | head 500`,
  ];
}

/** Peak resident memory of a process over a phase, in bytes. */
class PeakMemory {
  private peak = 0;
  private timer: ReturnType<typeof setInterval>;
  private resettable: boolean;

  constructor(private pid: number) {
    this.resettable = resetHighWater(pid);
    this.timer = setInterval(() => this.sample(), 20);
    this.sample();
  }

  private sample(): void {
    const rss = statusField(this.pid, "VmRSS");
    if (rss > this.peak) this.peak = rss;
  }

  /** Stops sampling; the peak is the kernel's high-water mark where it could be reset. */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    const hwm = this.resettable ? statusField(this.pid, "VmHWM") : 0;
    return Math.max(this.peak, hwm);
  }
}

/** A field of /proc/<pid>/status in bytes (0 where unreadable). */
function statusField(pid: number, name: string): number {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const m = text.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resets a process's peak RSS (Linux: "5" to clear_refs); false where not allowed. */
function resetHighWater(pid: number): boolean {
  try {
    Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

interface Level {
  clients: number;
  qps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
}

interface ServerResult {
  server: string;
  loadSeconds: number;
  levels: Level[];
  memory: Record<Phase, number>;
}

/** Clients each sending the mix back to back (each from its own place in it) for seconds. */
async function level(base: string, mix: string[], clients: number, seconds: number) {
  const lat: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const client = async (k: number) => {
    for (let i = k; performance.now() < deadline; i++) {
      try {
        lat.push((await runQueryOnce(base, mix[i % mix.length])).ms);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, k) => client(k)));
  const secs = (performance.now() - t0) / 1000;
  return {
    clients,
    qps: lat.length / secs,
    p50: percentile(lat, 50),
    p90: percentile(lat, 90),
    p99: percentile(lat, 99),
    errors,
  };
}

async function loadFiles(base: string, files: string[]): Promise<number> {
  await drain(
    await fetch(`${base}/pool`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ name: POOL, layout: { order: "desc", keys: [["ts"]] } }),
    }),
    "create pool",
  );
  const t0 = performance.now();
  for (const f of files) {
    await drain(
      await fetch(`${base}/pool/${POOL}/branch/main`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: await fileBody(f),
      }),
      `load ${f}`,
    );
  }
  return (performance.now() - t0) / 1000;
}

async function runServer(
  name: string,
  start: () => Promise<ServerProcess>,
  files: string[],
  mix: string[],
  seconds: number,
): Promise<ServerResult> {
  const proc = await start();
  const memory = {} as Record<Phase, number>;
  try {
    let peak = new PeakMemory(proc.pid);
    await new Promise((r) => setTimeout(r, 2000));
    memory.idle = peak.stop();
    peak = new PeakMemory(proc.pid);
    const loadSeconds = await loadFiles(proc.url, files);
    memory.load = peak.stop();
    // One untimed pass, as a user's first look would be.
    for (const q of mix) await runQueryOnce(proc.url, q);
    const levels: Level[] = [];
    for (const clients of LEVELS) {
      peak = new PeakMemory(proc.pid);
      levels.push(await level(proc.url, mix, clients, seconds));
      memory[PHASES[2 + LEVELS.indexOf(clients)]] = peak.stop();
    }
    return { server: name, loadSeconds, levels, memory };
  } finally {
    await proc.stop();
  }
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ratio = (a: number, b: number | undefined) =>
  b === undefined || !(b > 0) ? "-" : (a / b).toFixed(2);

function table(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (c: string[]) =>
    "  " + c.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join("  ");
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

function report(scale: string, bytes: number, loch: ServerResult, zed: ServerResult | null) {
  const lp = (l: Level) => `${ms(l.p50)}/${ms(l.p90)}/${ms(l.p99)}`;
  console.log(`concurrency ${scale}: queries/s and latency p50/p90/p99 in ms`);
  table(
    [
      "clients",
      "loch q/s",
      "zed q/s",
      "loch/zed q/s",
      "loch p50/p90/p99",
      "zed p50/p90/p99",
      "p99 l/z",
      "errors",
    ],
    loch.levels.map((l, i) => {
      const z = zed?.levels[i];
      return [
        String(l.clients),
        l.qps.toFixed(1),
        z ? z.qps.toFixed(1) : "-",
        z ? (l.qps / z.qps).toFixed(2) : "-",
        lp(l),
        z ? lp(z) : "-",
        ratio(l.p99, z?.p99),
        `${l.errors}${z ? `/${z.errors}` : ""}`,
      ];
    }),
  );
  const rate = (r: ServerResult) => bytes / 1e6 / r.loadSeconds;
  console.log(
    `  load, one POST per file: loch ${rate(loch).toFixed(1)} MB/s` +
      (zed ? `, zed ${rate(zed).toFixed(1)} MB/s; loch/zed ${ratio(rate(loch), rate(zed))}` : ""),
  );
  console.log(`  peak RSS per phase:`);
  table(
    ["phase", "loch", "zed", "loch/zed"],
    PHASES.map((p) => [
      p,
      mb(loch.memory[p]),
      zed ? mb(zed.memory[p]) : "-",
      ratio(loch.memory[p], zed?.memory[p]),
    ]),
  );
}

export async function concurrencyBenchmarks(
  tmp: string,
  seconds: number,
  scales = ["1x", "10x"],
  lochFlags: string[] = [],
): Promise<Record<string, (ServerResult | null)[]>> {
  const zedHere = await Deno.stat(join(ZED_DIR, "zed")).then(() => true, () => false);
  const files = await zeekFiles(tmp);
  const [lo, hi] = await tsSpan(files);
  const from = Math.floor(lo / 60e6) * 60e6 + 10 * 60e6;
  const mix = zuiMix(POOL, isoMicros(from), isoMicros(from + 300e6));
  console.log(
    `concurrency: loch serve ${lochFlags.join(" ")} vs ${
      zedHere ? "zed serve v1.3.0" : "(zed not found: skipped)"
    }; each level ${seconds} s of clients sending, back to back:`,
  );
  for (const q of mix) console.log(`  ${q}`);
  const work = await Deno.makeTempDir({ dir: tmp, prefix: "concurrency-" });
  const out: Record<string, (ServerResult | null)[]> = {};
  try {
    for (const scale of scales) {
      const set = scale === "1x" ? files : await replicate(files, join(work, "10x"), hi - lo + 1e6);
      const dir = await Deno.makeTempDir({ dir: work, prefix: `${scale}-` });
      const secs = scale === "1x" ? seconds : seconds * 2;
      const loch = await runServer(
        "loch",
        () => ServerProcess.start(join(dir, "loch"), dir, [], lochFlags),
        set,
        mix,
        secs,
      );
      const zed = zedHere
        ? await runServer(
          "zed",
          () => ServerProcess.startZed(join(ZED_DIR, "zed"), join(dir, "zed"), dir),
          set,
          mix,
          secs,
        )
        : null;
      report(scale, await settledBytes(set), loch, zed);
      out[scale] = [loch, zed];
      await Deno.remove(dir, { recursive: true });
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
  return out;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "15" },
      scale: { type: "string", default: "both" },
      workers: { type: "string" },
      json: { type: "string" },
    },
  });
  const scales = values.scale === "both" ? ["1x", "10x"] : [values.scale];
  const flags = values.workers ? ["-workers", values.workers] : [];
  const tmp = await Deno.makeTempDir({ prefix: "loch-bench-" });
  try {
    const out = await concurrencyBenchmarks(tmp, Number(values.seconds), scales, flags);
    if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(out, null, 1));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
