// /pool: create a pool; /pool/{pool}: rename, drop, create a branch;
// /pool/{pool}/stats (lake-api.md §5.4–5.7, §5.17).

import { invalid } from "../lib/errors.ts";
import { createBranch } from "../lib/lake/branches.ts";
import { tryParseID } from "../lib/lake/ksuid.ts";
import { tipObjects } from "../lib/lake/objects.ts";
import {
  checkServiceSizes,
  createPool,
  dropPool,
  type Layout,
  lookupPool,
  renamePool,
} from "../lib/lake/pools.ts";
import { getBranch } from "../lib/lake/branches.ts";
import { branchMetaValue, branchValue, poolStatsValue } from "../lib/lake/records.ts";
import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { type Params, readParams, stringList } from "../lib/service/params.ts";
import { noContent, valueResponse } from "../lib/service/respond.ts";

/**
 * The layout of a create request. Without one, the seed spec's default:
 * ascending on `ts` (the reference stores no keys but sorts on `ts` too).
 */
function layoutOf(p: Params): Layout {
  if (p.get("layout") === undefined) return { order: "asc", keys: [["ts"]] };
  const l = p.record("layout");
  // An absent order is ascending; a given one must parse (even "").
  const order = l.get("order") === undefined ? "asc" : l.string("order", "order.Which");
  const which = order.toLowerCase();
  if (which !== "asc" && which !== "desc") throw invalid(`unknown order: ${order}`);
  const keys = l.get("keys") === undefined ? null : l.array("keys").map(stringList);
  return { order: which, keys };
}

async function create(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  const seekStride = p.int("seek_stride", "int");
  const threshold = p.int("thresh");
  checkServiceSizes(threshold, seekStride);
  const pool = createPool(ctx.service.lake, {
    name: p.string("name"),
    layout: layoutOf(p),
    seekStride,
    threshold,
  });
  const main = getBranch(ctx.service.lake.catalog, pool.id, "main");
  return valueResponse(ctx.format, branchMetaValue(pool, main), ctx.headers);
}

async function rename(req: Request, ctx: RouteContext): Promise<Response> {
  // The body is decoded (and type-checked) before the pool is looked up.
  const name = (await readParams(req)).string("name");
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  renamePool(lake, pool.id, name);
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
  const name = p.string("name");
  const text = p.string("commit");
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  const commit = tryParseID(text);
  if (commit === undefined) throw invalid(`invalid commit object: ${text}`);
  const b = createBranch(lake, pool, name, commit);
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
