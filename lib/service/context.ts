// What a route handler is given, and how routes are declared.

import type { Lake } from "../lake/lake.ts";
import type { EventHub } from "./events.ts";

export interface Service {
  lake: Lake;
  events: EventHub;
  /** Reported by GET /version. */
  version: string;
}

export interface RouteContext {
  service: Service;
  /** Decoded path parameters. */
  params: Record<string, string>;
  /** The response format the Accept header chose. */
  format: string;
  /** Headers every response carries (request id, CORS); handlers add theirs. */
  headers: Headers;
}

export type RouteHandler = (req: Request, ctx: RouteContext) => Promise<Response> | Response;

export interface RouteDef {
  method: string;
  path: string;
  handler: RouteHandler;
}
