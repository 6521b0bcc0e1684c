// What a route handler is given, and how routes are declared.

import type { ValueReader } from "../formats/io.ts";
import type { Lake } from "../lake/lake.ts";
import type { ScanStats } from "../lake/scan.ts";
import type { SourceAccess } from "../query/mod.ts";
import type { EventHub } from "./events.ts";
import type { WorkerPool } from "./workers/pool.ts";
import type { Admission } from "./admission.ts";
import type { Authenticator, Principal } from "./auth/mod.ts";
import type { Metrics } from "./metrics.ts";

/** A running query, as an `onQuery` hook sees it. */
export interface QueryRun {
  /** The scans' counters, updated as the query reads. */
  stats: ScanStats;
  /** The query's sources (a hook may wrap them). */
  readers: ValueReader[];
  /** Settles when the query has stopped and its sources are closed. */
  done: Promise<void>;
}

export interface Service {
  lake: Lake;
  events: EventHub;
  /** Reported by GET /version. */
  version: string;
  /** Called as each query starts. */
  onQuery?: (run: QueryRun) => void;
  /** The query workers (null: queries run on the server's thread). */
  pool: WorkerPool | null;
  /** What queries' `get` and `file` sources may read (absent: nothing). */
  access?: SourceAccess;
  /** A query's time limit in ms (absent or 0: none). */
  queryTimeoutMs?: number;
  /** Estimated bytes a query may hold in all (absent: the default, -query-memory). */
  queryMemory?: number;
  /** How many queries run at once, and wait (absent: no limit). */
  admission?: Admission;
  /** Who may do what (absent: authentication is off). */
  auth?: Authenticator;
  /** What GET /metrics reports (absent: nothing is counted). */
  metrics?: Metrics;
}

export interface RouteContext {
  service: Service;
  /** The request's URL (url.ts). */
  url: URL;
  /** Decoded path parameters. */
  params: Record<string, string>;
  /** The response format the Accept header chose. */
  format: string;
  /** Headers every response carries (request id, CORS); handlers add theirs. */
  headers: Headers;
  /** Who is asking (everyone, when authentication is off). */
  principal: Principal;
  /**
   * Stops counting the request as work on this thread (turns.ts), for a
   * handler that starts work counted on its own: a query run here.
   */
  handOver?: () => void;
}

export type RouteHandler = (req: Request, ctx: RouteContext) => Promise<Response> | Response;

export interface RouteDef {
  method: string;
  path: string;
  handler: RouteHandler;
}
