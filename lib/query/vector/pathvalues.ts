// A path's values over one columnar object: the columns holding it (one per
// type of value it has there) and, per row, which of them holds the row's.
// Summaries read their keys and arguments this way.

import { MISSING } from "../runtime/values.ts";
import { Value } from "../../zed/value.ts";
import {
  ABSENT,
  BinaryVector,
  BodyVector,
  DictVector,
  NumberVector,
  VALUE,
  type Vector,
} from "../../zed/vector.ts";
import {
  ID_BYTES,
  ID_DURATION,
  ID_STRING,
  ID_TIME,
  isInteger,
  isNumber,
  Kind,
  type Type,
  TypeType,
  typeUnder,
} from "../../zed/types.ts";
import { typeId } from "../expr/coerce.ts";
import type { TypeIndex } from "./codes.ts";
import type { ColumnarObject, ColumnRef } from "./object.ts";
import { lookupPath } from "./paths.ts";
import { integerColumn } from "./extreme.ts";

/** An aggregate's argument over an object's rows, as summarize.ts feeds it. */
export interface ArgValues {
  /** Whether no row has a value for it. */
  readonly none: boolean;
  /** Whether row i has a value for it. */
  has(i: number): boolean;
  /** Row i's value (missing where it has none). */
  value(i: number): Value;
  /** Its values as one column of numbers (exact as doubles), or null. */
  numbers(): NumberVector | null;
  /** Its values as one column of integers, times or durations (any magnitude), or null. */
  integers(): NumberVector | null;
  /** Its values as one column of strings, or of bytes, or null. */
  binary(): BinaryVector | null;
  /**
   * For integers only (ints, times, durations): the sum of their
   * magnitudes (integers sum exactly below 2^53, in any order); else null.
   */
  intBound(): number | null;
}

/** A path's values over an object: per row, a slot of values, MISSING where its type lacks it. */
export class PathValues implements ArgValues {
  /**
   * Per row: the column (index into vectors) holding it, or -1 for missing;
   * null when there is at most one column (its own state says where it is absent).
   */
  readonly col: Int16Array | null;
  /** The columns the vectors are of. */
  refs: readonly ColumnRef[] = [];
  constructor(readonly vectors: Vector[], rows: number) {
    this.col = vectors.length > 1 ? new Int16Array(rows).fill(-1) : null;
  }

  /** Whether no row has the path. */
  get none(): boolean {
    return this.vectors.length === 0;
  }

  /** Whether row i has the path. */
  has(i: number): boolean {
    if (this.col !== null) return this.col[i] >= 0;
    return this.vectors.length === 1 && this.vectors[0].state[i] !== ABSENT;
  }

  /**
   * The one column of numbers the path has (exact as doubles), for
   * aggregates that take numbers as floats; null otherwise.
   */
  numbers(): NumberVector | null {
    if (this.nums === undefined) {
      const v = this.only;
      this.nums = v instanceof NumberVector && v.big === null && isNumber(typeId(v.type))
        ? v
        : null;
    }
    return this.nums;
  }

  integers(): NumberVector | null {
    const v = this.only;
    return v instanceof NumberVector && integerColumn(v) ? v : null;
  }

  binary(): BinaryVector | null {
    const v = this.only;
    if (!(v instanceof BinaryVector)) return null;
    const id = typeId(v.type);
    return id === ID_STRING || id === ID_BYTES ? v : null;
  }

  /** The one column holding every row's value, if one does. */
  private get only(): Vector | null {
    return this.col === null && this.vectors.length === 1 ? this.vectors[0] : null;
  }

  /** numbers(), once worked out (a merged group asks for each run of its rows). */
  private nums: NumberVector | null | undefined = undefined;

  /** Row i's value. */
  value(i: number): Value {
    const c = this.col !== null ? this.col[i] : this.has(i) ? 0 : -1;
    if (c < 0) return MISSING;
    const v = this.vectors[c];
    const s = v.state[i];
    return new Value(v.type, s === VALUE ? v.body(i) : null);
  }

  intBound(): number | null {
    let bound = 0;
    for (const v of this.vectors) {
      const u = typeUnder(v.type);
      if (
        u.kind !== Kind.Primitive || !isInteger(u.id) && u.id !== ID_DURATION && u.id !== ID_TIME
      ) {
        return null;
      }
      const state = v.state;
      if (v instanceof DictVector) {
        const e = v.entries;
        if (!(e instanceof NumberVector) || e.big !== null) return null;
        const f = e.f64, index = v.index;
        for (let i = 0; i < state.length; i++) {
          if (state[i] === VALUE) bound += Math.abs(f[index[i]]);
        }
        continue;
      }
      if (!(v instanceof NumberVector) || v.big !== null) return null;
      const f = v.f64;
      for (let i = 0; i < f.length; i++) if (state[i] === VALUE) bound += Math.abs(f[i]);
    }
    return bound;
  }
}

/** Where a path's values are in an object: per type, its column (index into refs), or -1. */
interface PathPlan {
  perType: Int16Array;
  /** The columns the path has. */
  refs: ColumnRef[];
}

/**
 * The object's plan for path; null when some type has it where columns
 * cannot read. With numbersOnly, values of other types count as missing.
 */
function pathPlan(
  o: ColumnarObject,
  path: readonly string[],
  numbersOnly: boolean,
): PathPlan | null {
  const name = (numbersOnly ? "numbers\u0000" : "path\u0000") + path.join("\u0000");
  return o.derived(name, () => {
    const perType = new Int16Array(o.types.length).fill(-1);
    const cols = o.columnsOf(path);
    const refs: ColumnRef[] = [];
    for (let k = 0; k < o.types.length; k++) {
      const lp = lookupPath(o.types[k], path);
      if (lp.kind === "other") return null;
      if (lp.kind === "missing" || (numbersOnly && !numeric(lp.type))) continue;
      const c = cols.find((c) => c.type === lp.type && c.covers.includes(k));
      if (c === undefined) return null;
      let u = refs.indexOf(c);
      if (u < 0) {
        u = refs.length;
        refs.push(c);
      }
      perType[k] = u;
    }
    return { perType, refs };
  });
}

/** Whether values of type t are numbers (sum, min and max skip all others). */
function numeric(t: Type): boolean {
  const u = typeUnder(t);
  return u.kind === Kind.Primitive && isNumber(u.id);
}

/**
 * Loads a path's columns; null when some type has the path somewhere
 * columns cannot read. With numbersOnly (for sum, min and max, which skip
 * every other value), only its columns of numbers: the others are not read.
 */
export async function pathValues(
  o: ColumnarObject,
  types: TypeIndex,
  path: readonly string[],
  numbersOnly = false,
): Promise<PathValues | null> {
  const plan = pathPlan(o, path, numbersOnly);
  if (plan === null) return null;
  const { perType, refs } = plan;
  const vectors: Vector[] = [];
  for (const c of refs) vectors.push(await o.vector(c));
  const pv = new PathValues(vectors, o.rows);
  pv.refs = refs;
  const col = pv.col;
  if (col !== null) {
    if (types === null) col.fill(perType[0]);
    else for (let i = 0; i < o.rows; i++) col[i] = perType[types[i]];
  }
  return pv;
}

/**
 * Each row's type as a value (what `typeof(this)` gives it): a dictionary
 * vector whose entries are the object's types and whose index is each row's
 * type index.
 */
export function rowTypeValues(o: ColumnarObject, types: TypeIndex): PathValues {
  const n = o.rows, nt = o.types.length;
  const index = new Int32Array(n);
  if (types !== null) index.set(types);
  const entries = new BodyVector(TypeType, new Uint8Array(nt).fill(VALUE), o.types);
  return new PathValues(
    [new DictVector(TypeType, new Uint8Array(n).fill(VALUE), index, entries)],
    n,
  );
}
