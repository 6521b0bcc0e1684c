// POST /query (lake-api.md §12): `{query, head:{pool, branch}}` and `?ctrl=`.

import { invalid } from "../lib/errors.ts";
import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { readParams } from "../lib/service/params.ts";
import { queryResponse } from "../lib/service/query.ts";
import { authorizeQuery } from "../lib/service/auth/mod.ts";
import { quoteGoString } from "../lib/zed/goquote.ts";

/** Go's strconv.ParseBool, with the reference's error for anything else. */
function parseCtrl(url: URL): boolean {
  const v = url.searchParams.get("ctrl");
  if (v === null || v === "") return false;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(v)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(v)) return false;
  const q = quoteGoString(v);
  throw invalid(`invalid query param ${q}: strconv.ParseBool: parsing ${q}: invalid syntax`);
}

async function query(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  const text = p.string("query");
  const head = p.record("head");
  const pool = head.string("pool");
  const branch = head.string("branch");
  const ctrl = parseCtrl(ctx.url);
  authorizeQuery(ctx.principal, ctx.service.lake, text, pool);
  return queryResponse(ctx.service.lake, text, ctx.format, {
    ctrl,
    head: { pool, branch },
    onQuery: ctx.service.onQuery,
    pool: ctx.service.pool,
    access: ctx.service.access,
    signal: req.signal,
    timeoutMs: ctx.service.queryTimeoutMs,
    memoryLimit: ctx.service.queryMemory,
    admission: ctx.service.admission,
    metrics: ctx.service.metrics,
    handOver: ctx.handOver,
  }, ctx.headers);
}

export const queryRoutes: RouteDef[] = [
  { method: "POST", path: "/query", handler: query },
  // OPTIONS /query without a preflight's headers runs the query, as in the reference.
  { method: "OPTIONS", path: "/query", handler: query },
];
