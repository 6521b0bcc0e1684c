// Index objects as the reference shows them (lake-api.md §9.1, §10):
// `index.Object` {rule, id} in `:indexes` and inside `commits.AddIndex`, and
// `commits.DeleteIndex` {commit, id, rule_id} in `:rawlog`.

import { zctx } from "../../zed/context.ts";
import { Field, type Type } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import type { KSUID } from "../ksuid.ts";
import { ksuidType } from "../records.ts";
import { type IndexRule, ruleValue } from "../rules.ts";

function record(fields: [string, Type][]): Type {
  return zctx.lookupRecord(fields.map(([n, t]) => new Field(n, t)));
}

/** `index.Object`: a rule and the data object it indexes. */
export function indexObjectValue(rule: IndexRule, objectId: KSUID): Value {
  const r = ruleValue(rule);
  const t = zctx.lookupNamed("index.Object", record([["rule", r.type], ["id", ksuidType()]]));
  return new Value(t, [r.body, objectId]);
}

/** `commits.AddIndex` */
export function addIndexActionValue(commit: KSUID, rule: IndexRule, objectId: KSUID): Value {
  const o = indexObjectValue(rule, objectId);
  const t = zctx.lookupNamed(
    "commits.AddIndex",
    record([["commit", ksuidType()], ["object", o.type]]),
  );
  return new Value(t, [commit, o.body]);
}

/** `commits.DeleteIndex` */
export function deleteIndexActionValue(commit: KSUID, ruleId: KSUID, objectId: KSUID): Value {
  const id = ksuidType();
  const t = zctx.lookupNamed(
    "commits.DeleteIndex",
    record([["commit", id], ["id", id], ["rule_id", id]]),
  );
  return new Value(t, [commit, objectId, ruleId]);
}
