// The versioning operations on a branch (lake-api.md §5.11–5.16): delete
// data, compact, merge a child branch, revert a commit. Each answers
// api.CommitResponse with null warnings.

import { compact } from "../lib/lake/compact.ts";
import { deleteRequest } from "../lib/lake/delete.ts";
import { type KSUID, parseID } from "../lib/lake/ksuid.ts";
import { mergeBranch, mergeStrategy } from "../lib/lake/merge.ts";
import { lookupPool } from "../lib/lake/pools.ts";
import { revertCommit } from "../lib/lake/revert.ts";
import { invalid, LochError } from "../lib/errors.ts";
import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { commitHeader } from "../lib/service/commit-header.ts";
import { readParams } from "../lib/service/params.ts";
import { valueResponse } from "../lib/service/respond.ts";
import { commitResponseValue } from "../lib/service/values.ts";

function committed(ctx: RouteContext, commit: KSUID): Promise<Response> {
  return valueResponse(ctx.format, commitResponseValue(commit, null), ctx.headers);
}

/** `{object_ids:[string]}` (object or commit ids) or `{where:"filter"}`. */
async function deleteData(req: Request, ctx: RouteContext): Promise<Response> {
  const commit = commitHeader(req);
  const p = await readParams(req);
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  const info = await deleteRequest(lake, pool, ctx.params.branch, {
    object_ids: p.strings("object_ids"),
    where: p.string("where"),
  }, commit);
  return committed(ctx, info.id);
}

/**
 * `{object_ids:[…]}`: ids as bytes (the Go client's form) or, unlike the
 * reference, as id strings too.
 */
async function compactObjects(req: Request, ctx: RouteContext): Promise<Response> {
  const commit = commitHeader(req);
  const p = await readParams(req);
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  const ids = p.array("object_ids").map((v) => {
    if (v.body instanceof Uint8Array && v.body.length === 20) return v.body;
    if (typeof v.body === "string") return parseID(v.body);
    throw invalid("compact: object_ids must be ids");
  });
  const info = await compact(lake, pool, ctx.params.branch, ids, commit);
  return committed(ctx, info.id);
}

async function merge(req: Request, ctx: RouteContext): Promise<Response> {
  const commit = commitHeader(req);
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  const strategy = mergeStrategy(ctx.url.searchParams.get("strategy"));
  const info = await mergeBranch(lake, pool, ctx.params.branch, ctx.params.child, {
    author: commit.author,
    body: commit.body,
  }, strategy);
  return committed(ctx, info.id);
}

async function revert(req: Request, ctx: RouteContext): Promise<Response> {
  const commit = commitHeader(req);
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  let id: KSUID;
  try {
    id = parseID(ctx.params.commit);
  } catch (e) {
    throw new LochError("invalid", `invalid path param "commit": ${(e as Error).message}`);
  }
  const info = await revertCommit(lake, pool, ctx.params.branch, id, {
    author: commit.author,
    body: commit.body,
  });
  return committed(ctx, info.id);
}

export const opsRoutes: RouteDef[] = [
  { method: "POST", path: "/pool/:pool/branch/:branch/delete", handler: deleteData },
  { method: "POST", path: "/pool/:pool/branch/:branch/compact", handler: compactObjects },
  { method: "POST", path: "/pool/:pool/branch/:branch/merge/:child", handler: merge },
  { method: "POST", path: "/pool/:pool/branch/:branch/revert/:commit", handler: revert },
];
