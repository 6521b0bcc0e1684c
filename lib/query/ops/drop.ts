// `drop p1, p2, ...`: removes fields (language.md §3.4). Records that lose a
// nested field are rebuilt without it (and without sub-records left empty);
// a rebuilt record is unnamed; an input losing every field produces nothing;
// records with none of the fields and non-records pass through unchanged.
// As for every per-value operator, error("missing") and error("quiet")
// inputs are not passed on.

import { zctx } from "../../zed/context.ts";
import { Field, Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import { type Batch, type Body, Value } from "../../zed/value.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { isMissing, isQuiet } from "../runtime/values.ts";
import type { Path } from "./paths.ts";

/** How to build the output record from an input record of one type. */
interface Plan {
  type: RecordType;
  /** Input field index of each output field. */
  from: number[];
  /** For a rebuilt sub-record, its plan; null to copy the input field. */
  sub: (Plan | null)[];
}

/** A record type's treatment: unchanged, dropped entirely, or rebuilt. */
type Rule = "keep" | "drop" | Plan;

/** Dropped paths as a tree: a leaf (empty children) is a dropped field. */
interface DropNode {
  children: Map<string, DropNode>;
  dropped: boolean;
}

export class Drop extends Unary {
  private readonly tree: DropNode = { children: new Map(), dropped: false };
  private readonly rules = new Map<Type, Rule>();

  constructor(next: Op, paths: readonly Path[]) {
    super(next);
    for (const p of paths) {
      let node = this.tree;
      for (const name of p) {
        let child = node.children.get(name);
        if (child === undefined) {
          child = { children: new Map(), dropped: false };
          node.children.set(name, child);
        }
        node = child;
      }
      node.dropped = true;
    }
  }

  push(batch: Batch): void {
    const out: Value[] = [];
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      let rule = this.rules.get(v.type);
      if (rule === undefined) {
        rule = this.ruleFor(v.type);
        this.rules.set(v.type, rule);
      }
      if (rule === "keep") {
        if (!isMissing(v) && !isQuiet(v)) out.push(v);
      } else if (rule !== "drop") {
        out.push(new Value(rule.type, build(rule, v.body as Body[] | null)));
      }
    }
    this.emit(out);
  }

  private ruleFor(t: Type): Rule {
    const u = typeUnder(t);
    if (u.kind !== Kind.Record) return "keep";
    const r = complement(this.tree, u);
    if (r === undefined) return "keep";
    return r.type.fields.length === 0 ? "drop" : r;
  }
}

/** The plan for rt without the dropped fields, or undefined if none is present. */
function complement(drops: DropNode, rt: RecordType): Plan | undefined {
  const fields: Field[] = [];
  const from: number[] = [];
  const sub: (Plan | null)[] = [];
  let match = false;
  rt.fields.forEach((f, i) => {
    const node = drops.children.get(f.name);
    if (node !== undefined) {
      if (node.dropped) {
        match = true;
        return;
      }
      const u = typeUnder(f.type);
      if (u.kind === Kind.Record) {
        const p = complement(node, u);
        if (p !== undefined) {
          match = true;
          // A sub-record left with no fields disappears.
          if (p.type.fields.length > 0) {
            fields.push(new Field(f.name, p.type));
            from.push(i);
            sub.push(p);
          }
          return;
        }
      }
    }
    fields.push(f);
    from.push(i);
    sub.push(null);
  });
  return match ? { type: zctx.lookupRecord(fields), from, sub } : undefined;
}

/**
 * The output body. Fields of a null record read as nulls, so a rebuilt
 * sub-record of a null record is a record of nulls (as the reference does).
 */
function build(p: Plan, body: Body[] | null): Body[] {
  const n = p.from.length;
  const out = new Array<Body>(n);
  for (let k = 0; k < n; k++) {
    const b = body === null ? null : body[p.from[k]];
    const s = p.sub[k];
    out[k] = s === null ? b : build(s, b as Body[] | null);
  }
  return out;
}
