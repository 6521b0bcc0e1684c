// /index: add and delete index rules (lake-api.md §5.18–5.19, §11.2), and
// applying rules on a branch (§5.13–5.14). Both the reference's bodies
// (`rules`) and the seed spec's (`rule_name`, `rule_names`) are read.

import { invalid, LochError } from "../lib/errors.ts";
import { applyRules, updateIndex } from "../lib/lake/index/apply.ts";
import { parseID } from "../lib/lake/ksuid.ts";
import { lookupPool } from "../lib/lake/pools.ts";
import {
  addRules,
  deleteRules,
  type IndexRule,
  type RuleSpec,
  ruleValue,
} from "../lib/lake/rules.ts";
import type { RouteContext, RouteDef } from "../lib/service/context.ts";
import { deunion, Params, readParams } from "../lib/service/params.ts";
import { noContent, valueResponse } from "../lib/service/respond.ts";
import { commitResponseValue } from "../lib/service/values.ts";
import { zctx } from "../lib/zed/context.ts";
import { Field, Kind, type Type, TypeNull } from "../lib/zed/types.ts";
import { UnionBody, Value } from "../lib/zed/value.ts";

/** The rule kind a record's type name binds it to (simple, package or full Go names). */
function ruleKind(t: Type): "field" | "type" | "agg" {
  if (t.kind === Kind.Named) {
    const name = t.name.slice(t.name.lastIndexOf(".") + 1);
    if (name === "FieldRule") return "field";
    if (name === "TypeRule") return "type";
    if (name === "AggRule") return "agg";
  }
  throw invalid("unmarshaling records into interface value requires type binding");
}

function ruleSpec(v: Value): RuleSpec {
  const kind = ruleKind(v.type);
  const p = new Params(v);
  const idText = p.get("id");
  const id = idText === undefined
    ? undefined
    : idText.body instanceof Uint8Array
    ? idText.body
    : parseID(String(idText.body));
  const ts = p.get("ts");
  const base = {
    name: p.string("name"),
    id,
    ts: ts === undefined ? undefined : BigInt(ts.body as number | bigint),
  };
  switch (kind) {
    case "field":
      return {
        ...base,
        kind,
        fields: p.array("fields").map((f) => (f.body as unknown[]).map(String)),
      };
    case "type":
      return { ...base, kind, type: p.string("type") };
    case "agg":
      return { ...base, kind, script: p.string("script") };
  }
}

async function addIndexRules(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  // Rules of different kinds arrive as an array of a union of their types.
  addRules(ctx.service.lake.catalog, p.array("rules").map((v) => ruleSpec(deunion(v))));
  return noContent(ctx.headers);
}

/** `api.IndexRulesDeleteResponse` {rules:[…]} (a union when the rules differ in kind). */
function deletedValue(rules: IndexRule[]): Value {
  const vals = rules.map(ruleValue);
  const types = [...new Set(vals.map((v) => v.type))];
  let elem: Type, bodies = vals.map((v) => v.body);
  if (types.length <= 1) {
    elem = types[0] ?? TypeNull;
  } else {
    const u = zctx.lookupUnion(types);
    elem = u;
    bodies = vals.map((v) => new UnionBody(u.types.indexOf(v.type), v.body));
  }
  const t = zctx.lookupNamed(
    "api.IndexRulesDeleteResponse",
    zctx.lookupRecord([new Field("rules", zctx.lookupArray(elem))]),
  );
  return new Value(t, [bodies]);
}

async function deleteIndexRules(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  const ids = p.strings("rule_ids").map(parseID);
  const rules = deleteRules(ctx.service.lake.catalog, ids);
  return valueResponse(ctx.format, deletedValue(rules), ctx.headers);
}

async function apply(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  const rules = p.strings("rules");
  const seed = p.string("rule_name");
  if (seed !== "") rules.push(seed);
  if (rules.length === 0) throw new LochError("invalid", "no index rules given");
  const info = await applyRules(lake, pool, ctx.params.branch, { rules, tags: p.strings("tags") });
  return valueResponse(ctx.format, commitResponseValue(info.id, null), ctx.headers);
}

async function update(req: Request, ctx: RouteContext): Promise<Response> {
  const p = await readParams(req);
  const lake = ctx.service.lake;
  const pool = lookupPool(lake.catalog, ctx.params.pool);
  const rules = [...p.strings("rules"), ...p.strings("rule_names")];
  const info = await updateIndex(lake, pool, ctx.params.branch, rules);
  return valueResponse(ctx.format, commitResponseValue(info.id, null), ctx.headers);
}

export const indexRoutes: RouteDef[] = [
  { method: "POST", path: "/index", handler: addIndexRules },
  { method: "DELETE", path: "/index", handler: deleteIndexRules },
  { method: "POST", path: "/pool/:pool/branch/:branch/index", handler: apply },
  { method: "POST", path: "/pool/:pool/branch/:branch/index/update", handler: update },
];
