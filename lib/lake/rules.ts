// Index rules (lake-api.md §11.1): lake-wide definitions of what to index in
// each data object, grouped by name. A field rule indexes one field's values,
// a type rule every value of a type, an agg rule the output of a script.
//
// A dropped rule keeps its row, marked `dropped`:
// index objects made by it stay bound to data objects in commits (the
// reference keeps the rule inside each commit's AddIndex action), and
// `:indexes`, `:rawlog` and query pruning still need its definition. Only
// live rules are listed, looked up by reference, or applied.

import { LochError } from "../errors.ts";
import { zctx } from "../zed/context.ts";
import { Field, type Type, TypeString, TypeTime } from "../zed/types.ts";
import { Value } from "../zed/value.ts";
import type { Catalog } from "./catalog/catalog.ts";
import { type KSUID, newKSUID, toBase62, tryParseID } from "./ksuid.ts";
import { ksuidType } from "./records.ts";
import { parseQuery } from "../query/mod.ts";

type RuleDefinition =
  | { kind: "field"; fields: string[][] }
  | { kind: "type"; type: string }
  | { kind: "agg"; script: string };

export type IndexRule = { id: KSUID; ts: bigint; name: string } & RuleDefinition;

/**
 * A rule as a client describes it. The id and creation time are chosen here
 * unless given (the service's clients choose them, as the reference's do).
 */
export type RuleSpec = { name: string; id?: KSUID; ts?: bigint } & RuleDefinition;

interface RuleRow {
  id: Uint8Array;
  ts: number | bigint;
  name: string;
  kind: string;
  spec: string;
  dropped: number;
}

const COLUMNS = "id, ts, name, kind, spec, dropped";

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

function specText(r: RuleDefinition): string {
  switch (r.kind) {
    case "field":
      return JSON.stringify(r.fields);
    case "type":
      return r.type;
    case "agg":
      return r.script;
  }
}

/** Live rules sorted by name, then creation time (the order `:index_rules` lists them in). */
export function listRules(cat: Catalog): IndexRule[] {
  return cat.all<RuleRow>(
    `SELECT ${COLUMNS} FROM index_rules WHERE dropped = 0 ORDER BY name, ts, id`,
  ).map(fromRow);
}

/** A rule by id, dropped or not (index objects refer to rules that may since have been dropped). */
export function ruleById(cat: Catalog, id: KSUID): IndexRule | undefined {
  const r = cat.get<RuleRow>(`SELECT ${COLUMNS} FROM index_rules WHERE id = ?`, id);
  return r === undefined ? undefined : fromRow(r);
}

/**
 * Adds rules in one transaction (all or none; the reference adds them one at
 * a time). A rule equivalent to a live rule of the same name (same kind and
 * definition) is refused, as is an id already taken.
 */
export function addRules(cat: Catalog, specs: RuleSpec[]): IndexRule[] {
  return cat.transaction(() => specs.map((s) => addRule(cat, s)));
}

function addRule(cat: Catalog, s: RuleSpec): IndexRule {
  if (s.kind === "field" && s.fields.length !== 1) {
    throw new LochError("invalid", "a field index rule takes exactly one field");
  }
  if (s.kind === "agg") parseQuery(s.script); // a script must parse (as the reference checks)
  const text = specText(s);
  const id = s.id ?? newKSUID();
  const prior = cat.get<RuleRow>(`SELECT ${COLUMNS} FROM index_rules WHERE id = ?`, id);
  // A dropped rule's id may be taken again only for the same definition:
  // index objects it made still refer to it.
  if (prior !== undefined && (prior.dropped === 0 || !sameDefinition(prior, s))) {
    throw new LochError("conflict", `rule ${JSON.stringify(toBase62(id))}: ID in use`);
  }
  const dup = cat.get(
    "SELECT 1 FROM index_rules WHERE name = ? AND kind = ? AND spec = ? AND dropped = 0",
    s.name,
    s.kind,
    text,
  );
  if (dup !== undefined) throw new LochError("conflict", "index rule already exists");
  const ts = s.ts ?? newRuleTime(cat);
  cat.run(
    `INSERT INTO index_rules (id, ts, name, kind, spec) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET ts = excluded.ts, name = excluded.name, dropped = 0`,
    id,
    ts,
    s.name,
    s.kind,
    text,
  );
  return { ...s, id, ts } as IndexRule;
}

/** Now, in ns, but after every rule's time, so rules made together keep their order. */
function newRuleTime(cat: Catalog): bigint {
  const now = BigInt(Date.now()) * 1000000n;
  const last = cat.get<{ ts: number | bigint | null }>("SELECT max(ts) AS ts FROM index_rules")?.ts;
  return last === null || last === undefined || BigInt(last) < now ? now : BigInt(last) + 1n;
}

function sameDefinition(row: RuleRow, s: RuleSpec): boolean {
  return row.kind === s.kind && row.spec === specText(s);
}

/**
 * Drops rules by id in one transaction; an unknown id fails the whole
 * request (the reference keeps the rules dropped before it). Index objects
 * the rules made are kept. Returns the dropped rules.
 */
export function deleteRules(cat: Catalog, ids: KSUID[]): IndexRule[] {
  return cat.transaction(() =>
    ids.map((id) => {
      const r = cat.get<RuleRow>(`SELECT ${COLUMNS} FROM index_rules WHERE id = ?`, id);
      if (r === undefined || r.dropped !== 0) {
        throw new LochError("not found", `index ${toBase62(id)} not found`);
      }
      cat.run("UPDATE index_rules SET dropped = 1 WHERE id = ?", id);
      return fromRow(r);
    })
  );
}

/**
 * The live rules each reference names, in order and without repeats: a
 * reference is a rule name (every rule of that group, oldest first) or a rule
 * id (base62 or 0x-hex). One that names nothing fails.
 */
export function lookupRules(cat: Catalog, refs: string[]): IndexRule[] {
  const all = listRules(cat).sort((a, b) => a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0);
  const out: IndexRule[] = [];
  const seen = new Set<string>();
  for (const raw of refs) {
    const id = tryParseID(raw);
    const ref = id === undefined ? raw : toBase62(id);
    const found = all.filter((r) => r.name === ref || toBase62(r.id) === ref);
    if (found.length === 0) {
      throw new LochError("not found", `rule ${JSON.stringify(ref)} not found`);
    }
    for (const r of found) {
      const key = toBase62(r.id);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(r);
    }
  }
  return out;
}

/** The Zed program that computes a rule's index objects (the reference's rule.Zed()). */
export function ruleProgram(r: IndexRule): string {
  switch (r.kind) {
    case "field": {
      const f = r.fields.map((p) => p.join(".")).join(",");
      const keys = r.fields.map((p) => ["key", ...p].join(".")).join(",");
      return `cut ${f}\n| put key := this, count := count() - 1\n` +
        `| count := count(), seek.min := min(count), seek.max := max(count) by key\n| sort ${keys}`;
    }
    case "type":
      return `explode this by ${r.type} as key | count() by key | sort key`;
    case "agg":
      return r.script;
  }
}

/** `index rules applied: a,b` for the rules' names (first-seen order); "" for none. */
export function indexMessage(rules: IndexRule[]): string {
  const names = [...new Set(rules.map((r) => r.name))];
  return names.length === 0 ? "" : "index rules applied: " + names.join(",");
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
