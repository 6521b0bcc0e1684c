// Field indexes: for each distinct value of one field in a data object, how
// many records hold it and the positions of the first and last of them. The
// records are what the reference's field-rule program makes:
//   cut f | put key := this, count := count() - 1
//   | count := count(), seek.min := min(count), seek.max := max(count) by key
//   | sort key.f
// i.e. {key:{f:<value>}, count:<uint64>, seek:{min:<int64>, max:<int64>}},
// with error("missing") as the value of records that lack the field.
//
// In memory an index is its entries grouped by value type; the entries of a
// type whose values compare equal exactly when their bodies are equal are
// also hashed, so an equality lookup is one probe per literal.

import { compareValues } from "../../zed/compare.ts";
import { zctx } from "../../zed/context.ts";
import {
  Field,
  ID_TYPE,
  isFloat,
  Kind,
  recordOf,
  type RecordType,
  type Type,
  TypeInt64,
  TypeUint64,
  typeUnder,
} from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import { encodeBody } from "../../zed/zcode.ts";
import { MISSING } from "../../query/mod.ts";
import type { FieldTerm } from "./terms.ts";

/** Record positions in an object, first and last inclusive. */
export type RecordRange = [number, number];

interface Entry {
  type: Type;
  body: Body;
  count: number;
  min: number;
  max: number;
}

/** A hashable stand-in for a body within one type. */
type HashKey = string | number | bigint | boolean;

/** Whether equality of two values of type t is equality of their bodies' hash keys. */
function hashable(t: Type): boolean {
  if (t.kind !== Kind.Primitive) return false;
  return !isFloat(t.id) && t.id !== ID_TYPE;
}

function hashKey(body: Body): HashKey {
  if (body instanceof Uint8Array) {
    let s = "";
    for (let i = 0; i < body.length; i++) s += String.fromCharCode(body[i]);
    return s;
  }
  return body as HashKey;
}

/** A key for grouping values of one type by their encoding (what `by key` groups on). */
function groupKey(t: Type, body: Body): HashKey | null {
  if (body === null) return null;
  if (hashable(t)) return hashKey(body);
  return hashKey(encodeBody(t, body));
}

/** The value at path in a record, or MISSING. */
function valueAt(v: Value, path: string[]): [Type, Body] {
  let t = v.type, b = v.body;
  for (const name of path) {
    const rt = recordOf(t);
    const i = rt === undefined ? -1 : rt.indexOf(name);
    if (i < 0) return [MISSING.type, MISSING.body];
    t = rt!.fields[i].type;
    // A field of a null record is a null of the field's type.
    b = b === null ? null : (b as Body[])[i];
  }
  return [t, b];
}

/** Accumulates the field index of one data object, value by value in object order. */
export class FieldIndexBuilder {
  private groups = new Map<Type, Map<HashKey | null, Entry>>();
  private n = 0;

  constructor(readonly path: string[]) {}

  add(batch: Value[]): void {
    const path = this.path;
    for (let i = 0; i < batch.length; i++) {
      const [t, body] = valueAt(batch[i], path);
      let group = this.groups.get(t);
      if (group === undefined) {
        group = new Map();
        this.groups.set(t, group);
      }
      const k = groupKey(t, body);
      const e = group.get(k);
      const at = this.n++;
      if (e === undefined) group.set(k, { type: t, body, count: 1, min: at, max: at });
      else {
        e.count++;
        e.max = at;
      }
    }
  }

  private entries(): Entry[] {
    const out: Entry[] = [];
    for (const g of this.groups.values()) for (const e of g.values()) out.push(e);
    return out;
  }

  /**
   * The index's records, sorted by value as `sort` orders them: missing
   * sorts as null, nulls last, ties in order of first appearance.
   */
  records(): Value[] {
    const entries = this.entries().sort((a, b) => {
      const x = a.type === MISSING.type ? null : a.body;
      const y = b.type === MISSING.type ? null : b.body;
      return compareValues(a.type, x, b.type, y) || a.min - b.min;
    });
    const types = new Map<Type, Type>();
    return entries.map((e) => {
      let t = types.get(e.type);
      if (t === undefined) {
        t = recordType(this.path, e.type);
        types.set(e.type, t);
      }
      let key: Body = e.body;
      for (let i = 0; i < this.path.length; i++) key = [key];
      return new Value(t, [key, e.count, [e.min, e.max]]);
    });
  }

  /** The lookup structure for what was added. */
  index(): FieldIndex {
    return new FieldIndex(this.entries());
  }
}

/** `{key:{<path>:t}, count:uint64, seek:{min:int64, max:int64}}` */
function recordType(path: string[], t: Type): Type {
  let key = t;
  for (let i = path.length - 1; i >= 0; i--) key = zctx.lookupRecord([new Field(path[i], key)]);
  const seek = zctx.lookupRecord([new Field("min", TypeInt64), new Field("max", TypeInt64)]);
  return zctx.lookupRecord([
    new Field("key", key),
    new Field("count", TypeUint64),
    new Field("seek", seek),
  ]);
}

interface Group {
  type: Type;
  /** Non-null entries by hash key, for a hashable type; else null. */
  hashed: Map<HashKey, Entry> | null;
  /** The entries not hashed (all of them when the type is not hashable). */
  rest: Entry[];
}

/** A field index ready for lookups. */
export class FieldIndex {
  private groups: Group[] = [];

  constructor(entries: Entry[]) {
    const byType = new Map<Type, Group>();
    for (const e of entries) {
      let g = byType.get(e.type);
      if (g === undefined) {
        g = { type: e.type, hashed: hashable(e.type) ? new Map() : null, rest: [] };
        byType.set(e.type, g);
        this.groups.push(g);
      }
      if (g.hashed !== null && e.body !== null) g.hashed.set(hashKey(e.body), e);
      else g.rest.push(e);
    }
  }

  /** Reads an index from its records (as builder.records() made them). */
  static fromRecords(path: string[], values: Value[]): FieldIndex {
    const entries: Entry[] = [];
    for (const v of values) {
      const rt = typeUnder(v.type) as RecordType;
      const body = v.body as Body[];
      const key = new Value(rt.fields[rt.indexOf("key")].type, body[rt.indexOf("key")]);
      const [type, b] = valueAt(key, path);
      const seek = body[rt.indexOf("seek")] as Body[];
      entries.push({
        type,
        body: b,
        count: Number(body[rt.indexOf("count")]),
        min: Number(seek[0]),
        max: Number(seek[1]),
      });
    }
    return new FieldIndex(entries);
  }

  /** The positions of the records the term may pass, or null when it passes none. */
  lookup(term: FieldTerm): RecordRange | null {
    let lo = Infinity, hi = -Infinity;
    const take = (e: Entry) => {
      if (e.min < lo) lo = e.min;
      if (e.max > hi) hi = e.max;
    };
    for (const g of this.groups) {
      const same = g.hashed === null ? [] : term.values.filter((v) => v.type === g.type);
      if (same.length > 0) {
        for (const v of same) {
          const e = v.body === null ? undefined : g.hashed!.get(hashKey(v.body));
          if (e !== undefined) take(e);
        }
      } else if (g.hashed !== null) {
        for (const e of g.hashed.values()) if (term.test(g.type, e.body)) take(e);
      }
      for (const e of g.rest) if (term.test(g.type, e.body)) take(e);
    }
    return lo === Infinity ? null : [lo, hi];
  }
}
