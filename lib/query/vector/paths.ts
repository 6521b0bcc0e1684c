// Field paths over record types, as the columns see them: where a path leads
// in a type, and records made to hold one value at a path so that a compiled
// expression can be evaluated on a column's value exactly as on a row.

import { zctx } from "../../zed/context.ts";
import { Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";

/** Where a path leads in a type. */
export type PathLookup =
  /**
   * The type has no such field: field access gives error("missing"), also
   * through a value that is not a record (or on one).
   */
  | { kind: "missing" }
  /** A leaf (a non-record field) of this type. */
  | { kind: "leaf"; type: Type }
  /** A record-valued path, which columns (of leaves) do not hold. */
  | { kind: "other" };

const MISSING_PATH: PathLookup = { kind: "missing" };
const OTHER: PathLookup = { kind: "other" };

export function lookupPath(t: Type, path: readonly string[]): PathLookup {
  let u = typeUnder(t);
  for (let i = 0; i < path.length; i++) {
    if (u.kind !== Kind.Record) return MISSING_PATH;
    const k = (u as RecordType).indexOf(path[i]);
    if (k < 0) return MISSING_PATH;
    const ft = (u as RecordType).fields[k].type;
    u = typeUnder(ft);
    if (i === path.length - 1) return u.kind === Kind.Record ? OTHER : { kind: "leaf", type: ft };
  }
  return OTHER;
}

/** A record with one value at a path: `{a:{b:v}}` for path a.b. */
export class PathRecord {
  private readonly type: Type;
  constructor(private readonly path: readonly string[], leaf: Type) {
    let t: Type = leaf;
    for (let i = path.length - 1; i >= 0; i--) t = zctx.lookupRecordOf([path[i]], [t]);
    this.type = t;
  }

  /** The record holding body at the path. */
  of(body: Body): Value {
    let b: Body = body;
    for (let i = 0; i < this.path.length; i++) b = [b];
    return new Value(this.type, b);
  }
}

/** The empty record: what a row whose type lacks a path looks like to an expression on that path. */
export const EMPTY_RECORD = new Value(zctx.lookupRecordOf([], []), []);
