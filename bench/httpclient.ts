// Plumbing for the HTTP benchmark: a loch server run as a subprocess (so the
// benchmark's clients do not share its event loop), requests timed until
// their whole body is read, and latency statistics.

import { join } from "./path.ts";
import { denoExe, repoRoot } from "./util.ts";

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times (100 on every common platform). */
const CLOCK_TICKS = 100;

/** The `--v8-flags=…` argument of deno.json's start task (the compile task has the same). */
export function startV8Flags(): string {
  const config = JSON.parse(Deno.readTextFileSync(join(repoRoot, "deno.json")));
  const flags = /--v8-flags=\S+/.exec(config.tasks.start as string);
  if (flags === null) throw new Error("deno.json: the start task gives no --v8-flags");
  return flags[0];
}

/** A `loch serve` (or `zed serve`) subprocess on 127.0.0.1 with a free port. */
export class ServerProcess {
  private stderr = "";
  private drained: Promise<void>;
  private ended = false;

  private constructor(
    private child: Deno.ChildProcess,
    readonly url: string,
    /** Whether a stop by SIGTERM must exit with status 0 (Zed's does not). */
    private strict: boolean,
  ) {
    child.status.then(() => (this.ended = true));
    this.drained = (async () => {
      for await (const s of child.stderr.pipeThrough(new TextDecoderStream())) this.stderr += s;
    })();
  }

  /**
   * Starts a loch server on lake; denoFlags go before the script (e.g.
   * --cpu-prof), serveFlags after `serve` (e.g. -workers 4).
   */
  static start(
    lake: string,
    tmp: string,
    denoFlags: string[] = [],
    serveFlags: string[] = [],
  ): Promise<ServerProcess> {
    return ServerProcess.spawn(tmp, "loch serve", true, (portfile) => [denoExe, [
      "run",
      "-A",
      // V8's flags as `deno task start` and the compiled binary give them.
      startV8Flags(),
      ...denoFlags,
      join(repoRoot, "main.ts"),
      "serve",
      "-lake",
      lake,
      "-listen",
      "127.0.0.1:0",
      "-portfile",
      portfile,
      "-log-level",
      "warn",
      ...serveFlags,
    ]]);
  }

  /** Starts the reference's `zed serve` (the binary at zedExe) on lake. */
  static startZed(zedExe: string, lake: string, tmp: string): Promise<ServerProcess> {
    return ServerProcess.spawn(tmp, "zed serve", false, (portfile) => [zedExe, [
      "serve",
      "-lake",
      lake,
      "-l",
      "127.0.0.1:0",
      "-portfile",
      portfile,
      "-log.level",
      "warn",
    ]]);
  }

  private static async spawn(
    tmp: string,
    name: string,
    strict: boolean,
    command: (portfile: string) => [string, string[]],
  ): Promise<ServerProcess> {
    const portfile = join(await Deno.makeTempDir({ dir: tmp, prefix: "port-" }), "port");
    const [cmd, args] = command(portfile);
    const child = new Deno.Command(cmd, {
      args,
      cwd: repoRoot,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const deadline = performance.now() + 30_000;
    for (;;) {
      const port = (await Deno.readTextFile(portfile).catch(() => "")).trim();
      if (port !== "") {
        const url = `http://127.0.0.1:${port}`;
        // Ready once it answers (the port file may come before the listener).
        if (await fetch(`${url}/status`).then((r) => r.text(), () => null) !== null) {
          return new ServerProcess(child, url, strict);
        }
      }
      if (performance.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`${name} did not start within 30 s`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Whether the process is still running. */
  get running(): boolean {
    return !this.ended;
  }

  /** What the server has written on stderr so far. */
  get log(): string {
    return this.stderr;
  }

  /** The server's process id. */
  get pid(): number {
    return this.child.pid;
  }

  /** CPU seconds the server has used (Linux /proc; NaN elsewhere). */
  cpuSeconds(): number {
    try {
      const stat = Deno.readTextFileSync(`/proc/${this.child.pid}/stat`);
      // Fields after the command name (which may hold spaces): utime and stime are 14 and 15.
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
    } catch {
      return NaN;
    }
  }

  /** Graceful stop (SIGTERM, as a profile needs); returns what the server wrote on stderr. */
  async stop(): Promise<string> {
    this.child.kill("SIGTERM");
    const status = await this.child.status;
    await this.drained;
    if (this.strict && !status.success) {
      throw new Error(`loch serve exited with ${status.code}: ${this.stderr}`);
    }
    return this.stderr;
  }
}

export interface Timed {
  ms: number;
  bytes: number;
}

/** Reads a response's body to the end, counting bytes; throws for a non-2xx status. */
export async function drain(res: Response, what: string): Promise<number> {
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status}: ${await res.text()}`);
  let n = 0;
  if (res.body) { for await (const chunk of res.body) n += chunk.length; }
  return n;
}

/** Sends a request and reads the whole response; the time is until the last byte. */
export async function timedFetch(url: string, init: RequestInit, what: string): Promise<Timed> {
  const t0 = performance.now();
  const bytes = await drain(await fetch(url, init), what);
  return { ms: performance.now() - t0, bytes };
}

/** A POST /query as Zui sends it: ZJSON with control messages, unless told otherwise. */
export function queryRequest(
  base: string,
  query: string,
  accept = "application/x-zjson",
  ctrl = true,
): [string, RequestInit] {
  return [`${base}/query${ctrl ? "?ctrl=T" : ""}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: accept },
    body: JSON.stringify({ query }),
  }];
}

export function runQueryOnce(base: string, query: string, accept?: string): Promise<Timed> {
  const [url, init] = queryRequest(base, query, accept);
  return timedFetch(url, init, query);
}

/** Nearest-rank percentile (p in 0..100) of unsorted numbers. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export function ms(x: number): string {
  return x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0);
}

/** "p50 X / p95 Y / p99 Z / max W ms (n)" for latencies in ms. */
export function latencySummary(xs: number[]): string {
  return `p50 ${ms(percentile(xs, 50))} / p95 ${ms(percentile(xs, 95))} / p99 ${
    ms(percentile(xs, 99))
  } / max ${ms(Math.max(...xs))} ms (n=${xs.length})`;
}

// The long query's client runs in its own process so its reading of a big
// response does not share the short queries' event loop. It prints "started"
// once the response headers are in and a JSON summary at the end.
const LONG_CLIENT = `
const [url, init] = JSON.parse(Deno.args[0]);
const t0 = performance.now();
const res = await fetch(url, init);
console.log("started");
let bytes = 0;
for await (const c of res.body) bytes += c.length;
console.log(JSON.stringify({ status: res.status, ms: performance.now() - t0, bytes }));
`;

/** A request run by a separate client process; `started` resolves when its response begins. */
export class LongClient {
  readonly started: Promise<void>;
  readonly done: Promise<Timed>;
  finished = false;

  constructor(request: [string, RequestInit]) {
    const child = new Deno.Command(denoExe, {
      args: ["eval", LONG_CLIENT, JSON.stringify(request)],
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    let onStart!: () => void;
    this.started = new Promise((r) => (onStart = r));
    this.done = (async () => {
      let text = "";
      for await (const s of child.stdout.pipeThrough(new TextDecoderStream())) {
        text += s;
        if (text.startsWith("started\n")) onStart();
      }
      await child.status;
      this.finished = true;
      onStart(); // in case it failed before its response began
      const last = JSON.parse(text.trim().split("\n").pop()!);
      if (last.status !== 200) throw new Error(`long query: HTTP ${last.status}`);
      return { ms: last.ms, bytes: last.bytes };
    })();
  }
}

/**
 * A file as a request body the way curl --data-binary, Python's requests
 * and the Go CLI send one: whole, with its length. (Deno's fetch streaming a
 * file sends it chunked with small writes that wait ~40 ms for the server's
 * delayed ACK, to Zed and loch alike: a client's artifact, not a server's
 * time.)
 */
export function fileBody(path: string): Promise<Uint8Array<ArrayBuffer>> {
  return Deno.readFile(path);
}
