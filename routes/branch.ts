// /pool/{pool}/branch/{branch}: the branch's tip, deleting it, and loading
// data into it (lake-api.md §5.8–5.10, §7).

import { deleteBranch, getBranch } from "../lib/lake/branches.ts";
import { commitLoad, load, removeObjects, requestMeta } from "../lib/lake/load.ts";
import { fromObjectRecord } from "../lib/lake/objects.ts";
import { lookupPool } from "../lib/lake/pools.ts";
import { openReader } from "../lib/formats/detect.ts";
import { ByteInput } from "../lib/formats/io.ts";
import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { commitHeader } from "../lib/service/commit-header.ts";
import { loadFormat } from "../lib/service/mime.ts";
import { noContent, valueResponse } from "../lib/service/respond.ts";
import { commitResponseValue } from "../lib/service/values.ts";

function tip(_req: Request, ctx: RouteContext): Promise<Response> {
  const cat = ctx.service.lake.catalog;
  const pool = lookupPool(cat, ctx.params.pool);
  const b = getBranch(cat, pool.id, ctx.params.branch);
  return valueResponse(ctx.format, commitResponseValue(b.commit, null), ctx.headers);
}

function remove(_req: Request, ctx: RouteContext): Response {
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  deleteBranch(lake, pool.id, ctx.params.branch);
  return noContent(ctx.headers);
}

/**
 * Load: the body in any format (Content-Type, or detected), gzip or not,
 * streamed into the branch. A read error part-way ends the input and comes
 * back as a warning; what was read before it is committed.
 */
async function loadData(req: Request, ctx: RouteContext): Promise<Response> {
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  const branch = ctx.params.branch;
  const format = loadFormat(req.headers.get("Content-Type"));
  const commit = commitHeader(req);
  getBranch(lake.catalog, pool.id, branch);
  const body = req.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const workers = ctx.service.pool;
  let res;
  if (workers === null || !workers.usable) {
    const reader = await openReader(ByteInput.fromStream(body, "request body"), format);
    res = await load(lake, pool, branch, reader, { commit, warnOnReadError: true });
  } else {
    // A worker reads the body and writes the objects; they are committed here.
    const meta = requestMeta(commit?.meta);
    const job = { root: lake.root, poolId: pool.id, format };
    const loaded = await workers.load(
      job,
      body,
      contentLength(req),
      (unused) => removeObjects(lake, pool, unused.map(fromObjectRecord)),
    );
    const written = loaded.objects.map(fromObjectRecord);
    // (A failed commit removes the objects.)
    res = await commitLoad(lake, pool, branch, written, loaded.warnings, commit, meta);
  }
  let records = 0, bytes = 0;
  for (const o of res.objects) {
    records += o.count;
    bytes += o.size;
  }
  ctx.service.metrics?.load(records, bytes);
  return valueResponse(ctx.format, commitResponseValue(res.commit.id, res.warnings), ctx.headers);
}

/** The body's length as its Content-Length says, or null. */
function contentLength(req: Request): number | null {
  const v = req.headers.get("Content-Length");
  const n = v === null ? NaN : Number(v);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

export const branchRoutes: RouteDef[] = [
  { method: "GET", path: "/pool/:pool/branch/:branch", handler: tip },
  { method: "DELETE", path: "/pool/:pool/branch/:branch", handler: remove },
  { method: "POST", path: "/pool/:pool/branch/:branch", handler: loadData },
];
