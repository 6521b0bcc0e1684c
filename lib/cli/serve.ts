// `loch serve`: the lake service over HTTP. Stops gracefully on SIGINT or
// SIGTERM: no new connections, in-flight requests (and their commits)
// finish, event streams end, the catalog is closed.

import { LochError } from "../errors.ts";
import { Lake } from "../lake/lake.ts";
import { isLogLevel, Logger, type LogLevel } from "../service/log.ts";
import { upgradeColumns } from "../lake/columns/mod.ts";
import { preloadMetadata, warmUp } from "../lake/warmup.ts";
import { warmRequests } from "../service/warmup.ts";
import {
  collectGarbage,
  keepCompiledCodeWhenIdle,
  mapLargeAllocations,
} from "../service/reclaim.ts";
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "../service/gate.ts";
import { type LakeServer, serve } from "../service/server.ts";
import { removeOwnTempDirs } from "../tempdir.ts";
import { defaultWorkers, parseWorkers } from "../service/workers/pool.ts";
import { rawAcceptRoutes, routes } from "../../routes/mod.ts";
import { command, lakeDir, lakeFlag, UsageError } from "./lake/lakeflags.ts";
import type { FlagValues } from "./flags.ts";
import { Authenticator } from "../service/auth/mod.ts";
import { parseDuration } from "../zed/time.ts";
import denoConfig from "../../deno.json" with { type: "json" };
import { applyMemoryFlags, memmaxFlag, queryMemoryFlag } from "./query.ts";
import { applyMemoryLimit, memoryLimitFlag } from "./memorylimit.ts";

/** What GET /version reports: the Zed API level served, and loch's version. */
export const VERSION = `v1.3.0+loch.${denoConfig.version}`;

/** "host:port", ":port" or "port" → hostname and port. */
export function parseListen(addr: string): { hostname: string; port: number } {
  const i = addr.lastIndexOf(":");
  const host = i < 0 ? "" : addr.slice(0, i).replace(/^\[(.*)\]$/, "$1");
  const portText = i < 0 ? addr : addr.slice(i + 1);
  const port = Number(portText);
  if (portText === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`invalid listen address: ${addr}`);
  }
  return { hostname: host === "" ? "0.0.0.0" : host, port };
}

export const serveCommand = command({
  synopsis: "serve [options]",
  about: "Serves the lake over HTTP with the Zed lake API.",
  flags: [
    lakeFlag,
    {
      name: "listen",
      kind: "string",
      arg: "addr",
      default: "127.0.0.1:9867",
      help: "address to listen on (host:port; port 0 picks a free port)",
    },
    { name: "l", kind: "string", arg: "addr", help: "same as -listen (as zed serve)" },
    {
      name: "storage",
      kind: "string",
      arg: "url",
      help: "where the lake's objects are, when not in -lake's directory: s3://bucket/prefix " +
        "(endpoint and credentials from AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, " +
        "AWS_SECRET_ACCESS_KEY; needs -catalog)",
    },
    {
      name: "catalog",
      kind: "string",
      arg: "url",
      help: "the lake's catalog in PostgreSQL (postgres://user:pass@host:port/db), shared by " +
        "every node serving the lake (default $LOCH_CATALOG, else SQLite in the lake directory)",
    },
    {
      name: "cors-origin",
      kind: "string",
      arg: "origin",
      multi: true,
      help: "allowed CORS origin; repeatable; *.domain allows subdomains, * all " +
        "(default Zed's: *.observableusercontent.com and localhost)",
    },
    {
      name: "cors.origin",
      kind: "string",
      arg: "origin",
      multi: true,
      help: "same as -cors-origin (as zed serve)",
    },
    {
      name: "allow-host",
      kind: "string",
      arg: "name",
      multi: true,
      help:
        "a Host name to serve besides loopback ones (when listening on another address); repeatable",
    },
    {
      name: "allow-get",
      kind: "string",
      arg: "prefix",
      multi: true,
      help: "let queries' get sources fetch URLs under prefix (e.g. https://data.example.com/); " +
        "repeatable; none by default",
    },
    {
      name: "auth.enabled",
      kind: "bool",
      help: "require JWTs (as zed serve: RS256, from the JWKS file)",
    },
    {
      name: "auth.clientid",
      kind: "string",
      arg: "id",
      help: "the Auth0 client id /auth/method reports",
    },
    {
      name: "auth.domain",
      kind: "string",
      arg: "url",
      help: "the token issuer's domain (iss is it with a /)",
    },
    {
      name: "auth.jwkspath",
      kind: "string",
      arg: "file",
      help: "the JWKS file of the keys tokens are signed with",
    },
    {
      name: "auth.tokens",
      kind: "string",
      arg: "file",
      help: "API tokens (made by loch token); with it, requests need a token or a JWT",
    },
    {
      name: "query-timeout",
      kind: "string",
      arg: "duration",
      help: "stop a query that runs longer (e.g. 30s, 5m; default none) with 408",
    },
    {
      name: "max-queries",
      kind: "string",
      arg: "n",
      help: "queries run at once (default 8 per worker); more wait their turn",
    },
    {
      name: "max-queued",
      kind: "string",
      arg: "n",
      help: "queries that may wait (default 256); more are refused with 503",
    },
    {
      name: "max-connections",
      kind: "string",
      arg: "n",
      help: "open connections at most (default 1024; 0: no cap); one more is answered 503",
    },
    {
      name: "header-timeout",
      kind: "string",
      arg: "duration",
      help: "time a client has to send a request's head (default 10s; 0: none), else 408",
    },
    {
      name: "idle-timeout",
      kind: "string",
      arg: "duration",
      help: "close a connection idle this long between requests (default 2m; 0: never)",
    },
    {
      name: "body-timeout",
      kind: "string",
      arg: "duration",
      help: "close a connection whose request body sends nothing this long (default 1m; 0: never)",
    },
    {
      name: "log-level",
      kind: "string",
      arg: "level",
      default: "info",
      help: "debug (every request), info, warn or error",
    },
    { name: "portfile", kind: "string", arg: "file", help: "write the listening port to file" },
    {
      name: "rootcontentfile",
      kind: "string",
      arg: "file",
      help: "serve this file's contents at / instead of the web console (as zed serve)",
    },
    {
      name: "warmup",
      kind: "bool",
      help:
        "warm the query engine on a synthetic pool before serving (default true; -warmup=false)",
    },
    {
      name: "workers",
      kind: "string",
      arg: "n",
      help: "query worker threads (default $LOCH_WORKERS, else one per core); 0 runs " +
        "queries on the thread serving HTTP",
    },
    memmaxFlag(),
    queryMemoryFlag(),
    memoryLimitFlag,
  ],
  async run(flags) {
    const level = flags["log-level"] as string;
    if (!isLogLevel(level)) throw new UsageError(`invalid log level: ${level}`);
    const { hostname, port } = parseListen((flags.l ?? flags.listen) as string);
    // Query workers read them from the environment.
    applyMemoryFlags(flags);
    const workers = flags.workers === undefined
      ? defaultWorkers()
      : parseWorkers(flags.workers as string);
    applyMemoryLimit(flags, workers);
    keepCompiledCodeWhenIdle();
    mapLargeAllocations();
    const dir = (flags.storage as string | undefined) ?? lakeDir(flags);
    if (/^https?:\/\//.test(dir)) {
      throw new LochError("invalid", "serve command available for local lakes only");
    }
    const auth = await Authenticator.open({
      enabled: flags["auth.enabled"] === true,
      clientId: flags["auth.clientid"] as string | undefined,
      domain: flags["auth.domain"] as string | undefined,
      jwksPath: flags["auth.jwkspath"] as string | undefined,
      tokensPath: flags["auth.tokens"] as string | undefined,
    });
    const rootFile = flags.rootcontentfile as string | undefined;
    const rootContent = rootFile === undefined ? undefined : await Deno.readFile(rootFile);
    const lake = await Lake.open(dir, { catalog: flags.catalog as string | undefined });
    const server = await serve({
      rootContent,
      auth,
      lake,
      hostname,
      port,
      corsOrigins: corsOrigins(flags),
      logLevel: level as LogLevel,
      version: VERSION,
      routes,
      rawAccept: rawAcceptRoutes,
      workers,
      warmWorkers: flags.warmup !== false,
      allowGet: allowGetPrefixes(flags["allow-get"] as string[] | undefined),
      allowHosts: flags["allow-host"] as string[] | undefined,
      queryTimeoutMs: durationMs("query-timeout", flags["query-timeout"] as string | undefined),
      maxQueries: count("max-queries", flags["max-queries"] as string | undefined, 1),
      maxQueued: count("max-queued", flags["max-queued"] as string | undefined, 0),
      connections: connectionLimits(flags),
    });
    // A signal from here on stops the server cleanly, also while it warms up
    // (it then serves nothing and removes what it made).
    const signalled = new AbortController();
    let stopping: Promise<void> | null = null;
    const stop = () => {
      console.error("loch: shutting down");
      signalled.abort();
      stopping ??= server.shutdown().catch(() => {});
    };
    Deno.addSignalListener("SIGINT", stop);
    Deno.addSignalListener("SIGTERM", stop);
    try {
      await startServing(server, lake, flags, level as LogLevel, dir, signalled.signal);
      // The HTTP server finishes before the rest of the shutdown (the gate, the
      // socket's directory, the workers, the lake): the process waits for it.
      await server.finished;
      await stopping;
      // A worker stopped while it warmed up leaves its warm-up's lake.
      removeOwnTempDirs("loch-warmup-");
    } finally {
      Deno.removeSignalListener("SIGINT", stop);
      Deno.removeSignalListener("SIGTERM", stop);
    }
    return 0;
  },
});

/**
 * Warms the engine up, announces the server and upgrades old objects'
 * columns in the background (done when the server stops). Skips what is
 * left once stopping (aborts) says a signal came.
 */
async function startServing(
  server: LakeServer,
  lake: Lake,
  flags: FlagValues,
  level: LogLevel,
  dir: string,
  stopping: AbortSignal,
): Promise<void> {
  // The first queries after a start run compiled code rather than cold
  // code, over metadata already in memory: the workers' (which warm up
  // on their own), or this thread's.
  const pool = server.service.pool;
  if (pool !== null && flags.warmup === false) await pool.start();
  else if (pool !== null) {
    // The workers warm up while this thread makes the warm-up lake; then
    // requests go through this thread's handler to the workers over it.
    const service = { version: VERSION, routes, rawAccept: rawAcceptRoutes, pool };
    await Promise.all([
      pool.start(),
      warmUp(0, async (warm, queries) => {
        await pool.start();
        await warmRequests(warm, queries, service);
      }),
    ]);
    await pool.start(lake.root);
    // Counts the catalog answers are answered on this thread.
    preloadMetadata(lake, false);
  } else if (flags.warmup !== false) {
    const service = { version: VERSION, routes, rawAccept: rawAcceptRoutes, workers: 0 };
    await warmUp(3, (warm, queries) => warmRequests(warm, queries, service));
    preloadMetadata(lake);
  }
  if (stopping.aborted) return;
  // The warm-up's code stays compiled; its data goes before serving.
  collectGarbage();
  const { hostname: h, port: p } = server.addr;
  const shown = h.includes(":") ? `[${h}]` : h;
  console.error(`loch ${VERSION} serving lake ${dir} on http://${shown}:${p}`);
  if (flags.portfile) await Deno.writeTextFile(flags.portfile as string, String(p));
  if (!stopping.aborted) await upgradeInBackground(lake, new Logger(level), stopping);
}

/**
 * Writes the columns of objects from a lake made before loch wrote them
 * (once per lake), logging progress; stops early when the server does.
 */
async function upgradeInBackground(lake: Lake, log: Logger, signal: AbortSignal): Promise<void> {
  let last = 0;
  try {
    const n = await upgradeColumns(lake, (p) => {
      const now = Date.now();
      if (p.done === 1 || p.done === p.total || now - last > 5000) {
        last = now;
        log.info(`columns: pool ${p.pool}: ${p.done} of ${p.total} objects upgraded`);
      }
    }, signal);
    if (n > 0) log.info(`columns: upgrade done (${n} objects)`);
  } catch (e) {
    log.error(e);
  }
}

/** The -allow-get prefixes, each an absolute http(s) URL. */
function allowGetPrefixes(given: string[] | undefined): string[] {
  return (given ?? []).map((p) => {
    if (!URL.canParse(p) || !/^https?:$/.test(new URL(p).protocol)) {
      throw new UsageError(`-allow-get: not an http(s) URL: ${p}`);
    }
    return p;
  });
}

/** The -cors-origin (or -cors.origin) origins; Zed's when none. */
function corsOrigins(flags: FlagValues): string[] | undefined {
  const given = [
    ...(flags["cors-origin"] as string[] | undefined ?? []),
    ...(flags["cors.origin"] as string[] | undefined ?? []),
  ];
  return given.length > 0 ? given : undefined;
}

/** A duration flag (Zed's syntax: 30s, 5m, 1h30m) in ms; undefined when not given. */
function durationMs(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (text === "0") return 0; // as Go's durations allow
  const ns = parseDuration(text);
  if (ns === undefined || Number(ns) < 0) {
    throw new UsageError(`-${name}: invalid duration: ${text}`);
  }
  return Number(ns) / 1e6;
}

/**
 * The connection gate's limits from the flags (gate.ts); null, for no gate,
 * when every limit is 0.
 */
function connectionLimits(flags: Record<string, unknown>): ConnectionLimits | null {
  const d = DEFAULT_CONNECTION_LIMITS;
  const ms = (name: string, fallback: number) =>
    durationMs(name, flags[name] as string | undefined) ?? fallback;
  const limits: ConnectionLimits = {
    maxConnections: count("max-connections", flags["max-connections"] as string | undefined, 0) ??
      d.maxConnections,
    headerTimeoutMs: ms("header-timeout", d.headerTimeoutMs),
    idleTimeoutMs: ms("idle-timeout", d.idleTimeoutMs),
    bodyTimeoutMs: ms("body-timeout", d.bodyTimeoutMs),
  };
  return Object.values(limits).every((v) => v === 0) ? null : limits;
}

/** A whole-number flag of at least min; undefined when not given. */
function count(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`-${name}: want a whole number of at least ${min}: ${text}`);
  }
  return n;
}
