// /pool: create a pool; /pool/{pool}: rename, drop, create a branch;
// /pool/{pool}/stats (lake-api.md §5.4–5.7, §5.17).

import { invalid } from "../lib/errors.ts";
import { createBranch } from "../lib/lake/branches.ts";
import { tryParseID } from "../lib/lake/ksuid.ts";
import { tipObjects } from "../lib/lake/objects.ts";
import { createPool, dropPool, type Layout, lookupPool, renamePool } from "../lib/lake/pools.ts";
import { getBranch } from "../lib/lake/branches.ts";
import { branchMetaValue, branchValue, poolStatsValue } from "../lib/lake/records.ts";
import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { type Params, readParams } from "../lib/service/params.ts";
import { noContent, valueResponse } from "../lib/service/respond.ts";
import type { Value } from "../lib/zed/value.ts";

/**
 * The layout of a create request. Without one, the seed spec's default:
 * ascending on `ts` (the reference stores no keys but sorts on `ts` too).
 */
function layoutOf(p: Params): Layout {
  if (p.get("layout") === undefined) return { order: "asc", keys: [["ts"]] };
  const l = p.record("layout");
  const text = l.string("order");
  const order = text === "" ? "asc" : text.toLowerCase();
  if (order !== "asc" && order !== "desc") throw invalid(`unknown order: ${text}`);
  const keys = l.get("keys") === undefined ? null : l.array("keys").map(pathOf);
  return { order, keys };
}

function pathOf(v: Value): string[] {
  const body = v.body as unknown[] | null;
  if (body === null) return [];
  return body.map((s) => {
    if (typeof s !== "string") throw invalid("unmarshaling layout.keys: expected [[string]]");
    return s;
  });
}

async function create(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  const pool = createPool(ctx.service.lake, {
    name: p.string("name"),
    layout: layoutOf(p),
    seekStride: p.int("seek_stride"),
    threshold: p.int("thresh"),
  });
  const main = getBranch(ctx.service.lake.catalog, pool.id, "main");
  return valueResponse(ctx.format, branchMetaValue(pool, main), ctx.headers);
}

async function rename(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  renamePool(lake, pool.id, p.string("name"));
  return noContent(ctx.headers);
}

async function drop(_req: Request, ctx: RouteContext): Promise<Response> {
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  await dropPool(lake, pool.id);
  return noContent(ctx.headers);
}

async function branch(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  const text = p.string("commit");
  const commit = tryParseID(text);
  if (commit === undefined) throw invalid(`invalid commit object: ${text}`);
  const b = createBranch(lake, pool, p.string("name"), commit);
  return valueResponse(ctx.format, branchValue(b), ctx.headers);
}

function stats(_req: Request, ctx: RouteContext): Promise<Response> {
  const cat = ctx.service.lake.catalog;
  const pool = lookupPool(cat, ctx.params.pool);
  getBranch(cat, pool.id, "main");
  const v = poolStatsValue(tipObjects(cat, pool.id, "main"));
  return valueResponse(ctx.format, v, ctx.headers);
}

export const poolRoutes: RouteDef[] = [
  { method: "POST", path: "/pool", handler: create },
  { method: "PUT", path: "/pool/:pool", handler: rename },
  { method: "DELETE", path: "/pool/:pool", handler: drop },
  { method: "POST", path: "/pool/:pool", handler: branch },
  { method: "GET", path: "/pool/:pool/stats", handler: stats },
];
