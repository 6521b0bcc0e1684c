// Index rules (lake-api.md §11.1): lake-wide definitions of what to index in
// each data object, grouped by name. A field rule indexes one field's values,
// a type rule every value of a type, an agg rule the output of a script.

import { LochError } from "../errors.ts";
import { zctx } from "../zed/context.ts";
import { Field, type Type, TypeString, TypeTime } from "../zed/types.ts";
import { Value } from "../zed/value.ts";
import type { Catalog } from "./catalog/catalog.ts";
import { type KSUID, newKSUID, toBase62 } from "./ksuid.ts";
import { ksuidType } from "./records.ts";

export type IndexRule =
  & { id: KSUID; ts: bigint; name: string }
  & (
    | { kind: "field"; fields: string[][] }
    | { kind: "type"; type: string }
    | { kind: "agg"; script: string }
  );

/** A rule as a client describes it, before it has an id. */
export type RuleSpec =
  & { name: string }
  & (
    | { kind: "field"; fields: string[][] }
    | { kind: "type"; type: string }
    | { kind: "agg"; script: string }
  );

interface RuleRow {
  id: Uint8Array;
  ts: number | bigint;
  name: string;
  kind: string;
  spec: string;
}

function fromRow(r: RuleRow): IndexRule {
  const base = { id: r.id, ts: BigInt(r.ts), name: r.name };
  switch (r.kind) {
    case "field":
      return { ...base, kind: "field", fields: JSON.parse(r.spec) };
    case "type":
      return { ...base, kind: "type", type: r.spec };
    default:
      return { ...base, kind: "agg", script: r.spec };
  }
}

function specText(r: RuleSpec): string {
  switch (r.kind) {
    case "field":
      return JSON.stringify(r.fields);
    case "type":
      return r.type;
    case "agg":
      return r.script;
  }
}

/** Rules sorted by name, then creation time (the order `:index_rules` lists them in). */
export function listRules(cat: Catalog): IndexRule[] {
  return cat.all<RuleRow>("SELECT id, ts, name, kind, spec FROM index_rules ORDER BY name, ts, id")
    .map(fromRow);
}

/** Adds rules in one transaction; a rule equal to one of its group is refused. */
export function addRules(cat: Catalog, specs: RuleSpec[]): IndexRule[] {
  return cat.transaction(() =>
    specs.map((s) => {
      const text = specText(s);
      const dup = cat.get(
        "SELECT 1 FROM index_rules WHERE name = ? AND kind = ? AND spec = ?",
        s.name,
        s.kind,
        text,
      );
      if (dup !== undefined) throw new LochError("internal", "index rule already exists");
      const rule = { ...s, id: newKSUID(), ts: BigInt(Date.now()) * 1000000n } as IndexRule;
      cat.run(
        "INSERT INTO index_rules (id, ts, name, kind, spec) VALUES (?, ?, ?, ?, ?)",
        rule.id,
        rule.ts,
        rule.name,
        rule.kind,
        text,
      );
      return rule;
    })
  );
}

/** Deletes rules by id; an unknown id fails the whole request. Returns the deleted rules. */
export function deleteRules(cat: Catalog, ids: KSUID[]): IndexRule[] {
  return cat.transaction(() =>
    ids.map((id) => {
      const r = cat.get<RuleRow>(
        "SELECT id, ts, name, kind, spec FROM index_rules WHERE id = ?",
        id,
      );
      if (r === undefined) throw new LochError("internal", `index ${toBase62(id)} not found`);
      cat.run("DELETE FROM index_rules WHERE id = ?", id);
      return fromRow(r);
    })
  );
}

function ruleType(kind: IndexRule["kind"]): Type {
  const common = [
    new Field("ts", TypeTime),
    new Field("id", ksuidType()),
    new Field("name", TypeString),
  ];
  switch (kind) {
    case "field": {
      const path = zctx.lookupNamed("field.Path", zctx.lookupArray(TypeString));
      const list = zctx.lookupNamed("field.List", zctx.lookupArray(path));
      return zctx.lookupNamed(
        "index.FieldRule",
        zctx.lookupRecord([...common, new Field("fields", list)]),
      );
    }
    case "type":
      return zctx.lookupNamed(
        "index.TypeRule",
        zctx.lookupRecord([...common, new Field("type", TypeString)]),
      );
    case "agg":
      return zctx.lookupNamed(
        "index.AggRule",
        zctx.lookupRecord([...common, new Field("script", TypeString)]),
      );
  }
}

/** `index.FieldRule`, `index.TypeRule` or `index.AggRule`. */
export function ruleValue(r: IndexRule): Value {
  const ts = r.ts <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(r.ts) : r.ts;
  const last = r.kind === "field" ? r.fields : r.kind === "type" ? r.type : r.script;
  return new Value(ruleType(r.kind), [ts, r.id, r.name, last]);
}
