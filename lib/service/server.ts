// The lake service: Deno.serve, and the path a request takes (lake-api.md
// §1): the auxiliary routes (`/`, `/status`, `/version`) answer anything;
// API requests get a request id and CORS headers, are routed, negotiate
// their response format from Accept, and have their errors turned into the
// JSON error body. Shutdown stops listening, lets in-flight requests (and
// so commits) finish, ends event streams and closes the catalog.

import { type KSUID, newKSUID, toBase62 } from "../lake/ksuid.ts";
import type { Lake } from "../lake/lake.ts";
import type { QueryRun, RouteDef, Service } from "./context.ts";
import { Cors } from "./cors.ts";
import { errorResponse } from "./errors.ts";
import { RequestGuard } from "./guard.ts";
import { consoleAsset, consoleHeaders } from "./console/mod.ts";
import { Admission } from "./admission.ts";
import { Metrics } from "./metrics.ts";
import { ANYONE, type Authenticator, authorize } from "./auth/mod.ts";
import { paramsLimits } from "./params.ts";
import { EventHub } from "./events.ts";
import { negotiate } from "./mime.ts";
import { cleanPath, Router } from "./router.ts";
import { Logger, type LogLevel } from "./log.ts";
import { enterWork, SERVICE_FETCH_TIMEOUT_MS, shareEventLoop } from "../query/mod.ts";
import { withTypeBindings } from "../zed/context.ts";
import { defaultWorkers, WorkerPool } from "./workers/pool.ts";
import { IdleReclaim } from "./reclaim.ts";
import {
  ConnectionGate,
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  type Upstream,
} from "./gate.ts";
import { requestURL } from "./url.ts";
import { ownedTempDir } from "../tempdir.ts";

export interface ServeOptions {
  lake: Lake;
  /** Whoever opened the lake closes it (the warm-up's server): shutdown leaves it open. */
  keepLakeOpen?: boolean;
  hostname: string;
  port: number;
  corsOrigins?: string[];
  logLevel?: LogLevel;
  version: string;
  routes: RouteDef[];
  /** Routes that skip Accept negotiation (their handler reads Accept itself). */
  rawAccept?: Set<string>;
  /** Interval of /events keep-alive comments in ms (default 25 s). */
  eventKeepAliveMs?: number;
  /** Events kept for streams that reconnect (default 10,000; tests use fewer). */
  eventWindowCount?: number;
  /**
   * Called as each query starts (tests observe its progress with it); such
   * queries run on the server's thread.
   */
  onQuery?: (run: QueryRun) => void;
  /** Query workers (default: LOCH_WORKERS, else the machine's cores); 0 runs queries here. */
  workers?: number;
  /** Workers warm up (lake/warmup.ts) before their first query. */
  warmWorkers?: boolean;
  /** Another server's workers to use (the warm-up's); not stopped at shutdown. */
  pool?: WorkerPool | null;
  /** URL prefixes queries' `get` sources may fetch (default none). */
  allowGet?: string[];
  /** Host names served besides loopback ones (guard.ts; default none). */
  allowHosts?: string[];
  /** How long a busy worker may be silent before it is replaced (default 30 s). */
  workerTimeoutMs?: number;
  /** Heap and buffers past which an idle worker is replaced (default 256 MiB). */
  workerRetireBytes?: number;
  /** How long all workers must be idle before one whose memory grew is replaced (default 3 s). */
  workerRetireIdleMs?: number;
  /** The least a scan reads before idle workers share it (default LOCH_SHARE_MIN_BYTES, else 64 MiB of the columns it reads). */
  shareMinBytes?: number;
  /** How long a parameter body (not a load's) may take to arrive (default 60 s). */
  bodyDeadlineMs?: number;
  /** A query's time limit in ms (default 0: none). */
  queryTimeoutMs?: number;
  /** Estimated bytes one query may hold in all (absent: -query-memory's default). */
  queryMemory?: number;
  /** Authentication (auth/mod.ts; absent: off). */
  auth?: Authenticator;
  /** Queries run at once (default 8 per worker); more wait, up to maxQueued (default 256), else 503. */
  maxQueries?: number;
  maxQueued?: number;
  /**
   * Connection limits enforced by the gate in front of the server (gate.ts;
   * absent: DEFAULT_CONNECTION_LIMITS; null: no gate, Deno's server listens itself).
   */
  connections?: ConnectionLimits | null;
  /** The body of `GET /` in place of the console (Zed's -rootcontentfile). */
  rootContent?: Uint8Array<ArrayBuffer>;
}

export class LakeServer {
  private server!: Deno.HttpServer<Deno.Addr>;
  /** In front of the server unless connections is null. */
  gate: ConnectionGate | null = null;
  /** The private directory of the server's socket behind the gate. */
  private socketDir: string | null = null;
  readonly service: Service;
  private router = new Router<RouteDef>();
  private cors: Cors;
  /** Requests refused for want of valid credentials. */
  unauthorized = 0;
  private guard: RequestGuard;
  private log: Logger;
  addr!: Deno.NetAddr;
  private releaseLoop: () => Promise<void> = () => Promise.resolve();

  constructor(private opts: ServeOptions) {
    const workers = opts.workers ?? defaultWorkers();
    this.service = {
      lake: opts.lake,
      events: new EventHub(opts.lake, {
        keepAliveMs: opts.eventKeepAliveMs,
        windowCount: opts.eventWindowCount,
      }),
      version: opts.version,
      onQuery: opts.onQuery,
      access: { files: false, urls: opts.allowGet ?? [], timeoutMs: SERVICE_FETCH_TIMEOUT_MS },
      queryTimeoutMs: opts.queryTimeoutMs,
      queryMemory: opts.queryMemory,
      auth: opts.auth,
      metrics: undefined,
      admission: new Admission(
        opts.maxQueries ?? 8 * Math.max(1, workers),
        opts.maxQueued ?? 256,
      ),
      pool: opts.pool !== undefined ? opts.pool : workers > 0
        ? new WorkerPool(
          workers,
          opts.warmWorkers,
          opts.workerTimeoutMs,
          opts.workerRetireBytes,
          opts.lake.catalogURL,
          opts.shareMinBytes,
          opts.workerRetireIdleMs,
        )
        : null,
    };
    // One server per process (a test's may ask for a shorter wait).
    paramsLimits.deadlineMs = opts.bodyDeadlineMs ?? 60_000;
    const service = this.service;
    service.metrics = new Metrics({
      lake: opts.lake,
      eventStreams: () => service.events.subscribers,
      workers: () =>
        service.pool === null ? null : {
          started: service.pool.started,
          tasks: service.pool.tasks,
          retired: service.pool.retired,
        },
      queries: () => service.admission?.counts ?? null,
      connections: () => this.gate?.counts ?? null,
    });
    this.cors = new Cors(opts.corsOrigins);
    this.guard = new RequestGuard(opts.hostname, opts.allowHosts ?? [], this.cors);
    this.log = new Logger(opts.logLevel ?? "info");
    for (const r of opts.routes) this.router.add(r.method, r.path, r);
  }

  async start(): Promise<void> {
    // Long queries take turns with the other requests from now on.
    this.releaseLoop = await shareEventLoop();
    const limits = this.opts.connections === undefined
      ? DEFAULT_CONNECTION_LIMITS
      : this.opts.connections;
    if (limits === null) {
      this.addr = await this.listen({
        hostname: this.opts.hostname,
        port: this.opts.port,
      }) as Deno.NetAddr;
      return;
    }
    // The server listens where only this process can reach it; clients reach the gate.
    let upstream: Upstream;
    try {
      this.socketDir = await ownedTempDir("loch-");
      const path = `${this.socketDir}/http.sock`;
      await this.listen({ path });
      upstream = { transport: "unix", path };
    } catch {
      // No Unix sockets here (Windows): a loopback port.
      const addr = await this.listen({ hostname: "127.0.0.1", port: 0 });
      upstream = { transport: "tcp", hostname: "127.0.0.1", port: (addr as Deno.NetAddr).port };
    }
    try {
      this.gate = ConnectionGate.listen(this.opts.hostname, this.opts.port, upstream, limits);
    } catch (e) {
      // The address is taken (or not ours): nothing of this server stays behind.
      await this.server.shutdown();
      if (this.socketDir !== null) await Deno.remove(this.socketDir, { recursive: true });
      await this.releaseLoop();
      throw e;
    }
    this.addr = this.gate.addr;
  }

  private listen(where: { hostname: string; port: number } | { path: string }): Promise<Deno.Addr> {
    return new Promise<Deno.Addr>((resolve, reject) => {
      try {
        this.server = Deno.serve({ ...where, onListen: resolve }, (req) => this.handle(req));
      } catch (e) {
        reject(e);
      }
    });
  }

  /** Stops accepting, waits for in-flight requests, ends event streams, closes the lake. */
  async shutdown(): Promise<void> {
    this.reclaim.cancel();
    await this.gate?.stopAccepting();
    this.service.events.close();
    this.service.metrics?.close();
    await this.server.shutdown();
    await this.gate?.close();
    if (this.socketDir !== null) {
      await Deno.remove(this.socketDir, { recursive: true }).catch(() => {});
    }
    await this.releaseLoop();
    if (this.opts.pool === undefined) this.service.pool?.stop();
    if (!this.opts.keepLakeOpen) this.opts.lake.close();
  }

  get finished(): Promise<void> {
    return this.server.finished;
  }

  async handle(req: Request): Promise<Response> {
    const t0 = performance.now();
    const leave = enterWork();
    this.reclaim.begin();
    let res: Response;
    try {
      res = await this.dispatch(req, leave);
    } finally {
      leave();
      this.reclaim.end();
    }
    const ms = performance.now() - t0;
    this.log.request(req, res.status, ms);
    this.service.metrics?.request(
      req.method,
      this.routes.get(req) ?? "unmatched",
      res.status,
      ms / 1000,
    );
    return res;
  }

  /** What requests leave in this thread's heap is collected once it is idle. */
  private readonly reclaim = new IdleReclaim();

  /** The route each request matched (its pattern), for the metrics. */
  private routes = new WeakMap<Request, string>();

  private async dispatch(req: Request, handOver?: () => void): Promise<Response> {
    const url = requestURL(req);
    const refused = this.guard.refusal(req, url);
    if (refused !== null) return errorResponse(refused);
    // URL parsing resolves `.` and `..`; the request line keeps them, and
    // Zed redirects such a path to its clean form, as other unclean ones.
    const raw = rawPath(req.url);
    if (raw !== url.pathname && cleanPath(raw) !== raw) {
      return new Response(null, {
        status: 301,
        headers: { Location: cleanPath(raw) + url.search },
      });
    }
    const aux = this.aux(req, url);
    if (aux !== undefined) return aux;
    if (this.cors.isPreflight(req) && this.router.methods(url.pathname).length > 0) {
      return this.cors.preflight(req);
    }
    let m;
    try {
      m = this.router.match(req.method, url);
    } catch (e) {
      // A path parameter with a bad %-escape (Go's server refuses the request line).
      return errorResponse(e);
    }
    switch (m.kind) {
      case "redirect":
        return new Response(null, { status: 301, headers: { Location: m.location } });
      case "not found":
        return new Response("404 page not found\n", {
          status: 404,
          // As Go's http.NotFound writes it.
          headers: {
            "Content-Type": "text/plain; charset=utf-8",
            "X-Content-Type-Options": "nosniff",
          },
        });
      case "method not allowed":
        return new Response(null, { status: 405 });
    }
    const headers = new Headers();
    headers.set("X-Request-Id", req.headers.get("X-Request-ID") ?? requestId());
    this.cors.decorate(req, headers);
    const def = m.target;
    this.routes.set(req, def.path);
    try {
      const format = this.opts.rawAccept?.has(def.path) ? "" : negotiate(req.headers.get("Accept"));
      // After the Accept check, as in Zed; GET /auth/method is open.
      let principal = ANYONE;
      const auth = this.service.auth;
      if (auth?.enabled && def.path !== "/auth/method") {
        try {
          principal = await auth.authenticate(req);
        } catch (e) {
          this.unauthorized++;
          throw e;
        }
        authorize(principal, this.service.lake, req.method, def.path, m.params);
      }
      const ctx = {
        service: this.service,
        url,
        params: m.params,
        format,
        headers,
        principal,
        handOver,
      };
      // Each request has its own type-name bindings (zed/context.ts).
      return await withTypeBindings(() => def.handler(req, ctx));
    } catch (e) {
      if (!(e instanceof Error) || !("kind" in e)) this.log.error(e);
      return errorResponse(e, headers);
    }
  }

  /** The auxiliary routes: any method, no Accept check, CORS headers only. */
  private aux(req: Request, url: URL): Response | undefined {
    let headers = new Headers();
    let body: string | Uint8Array<ArrayBuffer>;
    switch (url.pathname) {
      case "/status":
        headers.set("Content-Type", "text/plain; charset=utf-8");
        body = "ok";
        break;
      case "/version":
        headers.set("Content-Type", "application/json");
        body = JSON.stringify({ version: this.opts.version }) + "\n";
        break;
      default: {
        if (url.pathname === "/" && this.opts.rootContent !== undefined) {
          headers.set("Content-Type", sniffText(this.opts.rootContent));
          body = this.opts.rootContent;
          break;
        }
        const asset = consoleAsset(url.pathname);
        if (asset === undefined) return undefined;
        headers = consoleHeaders(asset);
        body = asset.body;
      }
    }
    this.routes.set(req, url.pathname);
    if (this.cors.isPreflight(req)) return this.cors.preflight(req);
    // Decorate before the Response copies the headers.
    this.cors.decorate(req, headers);
    return new Response(body, { headers });
  }
}

/** The Content-Type of a -rootcontentfile: HTML when it looks like markup, else text. */
function sniffText(body: Uint8Array): string {
  const head = new TextDecoder().decode(body.subarray(0, 512)).trimStart().toLowerCase();
  return head.startsWith("<") ? "text/html; charset=utf-8" : "text/plain; charset=utf-8";
}

function requestId(): string {
  const id: KSUID = newKSUID();
  return toBase62(id);
}

export async function serve(opts: ServeOptions): Promise<LakeServer> {
  const s = new LakeServer(opts);
  await s.start();
  return s;
}

/** The path of a request URL as the client sent it (no dot segments resolved). */
function rawPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.search(/[?#]/);
  return end < 0 || end < start ? url.slice(start) : url.slice(start, end);
}
