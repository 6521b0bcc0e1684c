// POST /transaction (loch's): loads, deletes and branch moves on several
// pools and branches, committed all or none (lib/lake/transaction.ts).
// Body: {operations:[{op:"load",pool,branch?,data,format?} |
// {op:"delete",pool,branch?,where?|object_ids?} | {op:"move",pool,branch?,to}],
// author?, message?, meta?}. Answers {commits:[{pool,branch,commit}]}, in
// the order of the operations.

import { invalid } from "../lib/errors.ts";
import { runTransaction, type TxOperation } from "../lib/lake/transaction.ts";
import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { deunion, Params, readParams } from "../lib/service/params.ts";
import { valueResponse } from "../lib/service/respond.ts";
import { ksuidType } from "../lib/lake/records.ts";
import { zctx } from "../lib/zed/context.ts";
import { Field, TypeString } from "../lib/zed/types.ts";
import { Value } from "../lib/zed/value.ts";

function operation(p: Params): TxOperation {
  const op = p.string("op");
  const pool = p.string("pool");
  const branch = p.get("branch") === undefined ? undefined : p.string("branch");
  switch (op) {
    case "load":
      return {
        op,
        pool,
        branch,
        data: p.string("data"),
        format: p.get("format") === undefined ? undefined : p.string("format"),
      };
    case "delete":
      return {
        op,
        pool,
        branch,
        where: p.get("where") === undefined ? undefined : p.string("where"),
        object_ids: p.strings("object_ids"),
      };
    case "move":
      return { op, pool, branch, to: p.string("to") };
  }
  throw invalid(`transaction: unknown operation ${JSON.stringify(op)}`);
}

async function transaction(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  // Operations of different shapes arrive as an array of a union of their types.
  const operations = p.array("operations").map((v) => operation(new Params(deunion(v))));
  const opt = (name: string) => (p.get(name) === undefined ? undefined : p.string(name));
  const commits = await runTransaction(ctx.service.lake, {
    operations,
    author: opt("author"),
    message: opt("message"),
    meta: opt("meta"),
  });
  const id = ksuidType("simple");
  const entry = zctx.lookupRecord([
    new Field("pool", TypeString),
    new Field("branch", TypeString),
    new Field("commit", id),
  ]);
  const t = zctx.lookupRecord([new Field("commits", zctx.lookupArray(entry))]);
  const body = [commits.map((c) => [c.pool.name, c.branch, c.commit.id])];
  return valueResponse(ctx.format, new Value(t, body), ctx.headers);
}

export const transactionRoutes: RouteDef[] = [
  { method: "POST", path: "/transaction", handler: transaction },
];
