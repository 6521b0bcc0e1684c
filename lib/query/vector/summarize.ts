// summarize over columns: the rows of an object that pass the filter are
// grouped by their key columns' values (dictionary entries, or distinct
// values), and each group's aggregators — the query's own summarize's — are
// fed that group's values in row order, without a record per row. count()
// is fed in one call per group.
//
// prepare() works out an object's groups without changing anything, so the
// caller can check that objects whose rows interleave in pool order share no
// group (when an aggregate depends on the order of its values); commit()
// feeds them. An object whose keys or arguments the columns cannot give
// (prepare returns null) is summarized from its rows instead.

import type { Aggregator } from "../aggregates/registry.ts";
import { valueKey } from "../aggregates/value-key.ts";
import type { Summarize } from "../ops/summarize.ts";
import { MISSING, TRUE } from "../runtime/values.ts";
import type { Type } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import {
  ABSENT,
  DictVector,
  NULL_ROW,
  NumberVector,
  VALUE,
  type Vector,
} from "../../zed/vector.ts";
import { ID_DURATION, ID_TIME, isInteger, isNumber, Kind, typeUnder } from "../../zed/types.ts";
import { typeId } from "../expr/coerce.ts";
import type { TypeIndex } from "./codes.ts";
import type { VectorFilter } from "./filter.ts";
import type { ColumnarObject, ColumnRef } from "./object.ts";
import { type Codes, Deriver, type VectorKey } from "./derive.ts";
import { type KeyOrder, mergeRows, RunKeys } from "./keymerge.ts";
import { lookupPath } from "./paths.ts";
import { dictHistogram } from "./histogram.ts";

/** An aggregate over columns: its argument's path (none for count()) and where clause. */
export interface VectorAggregate {
  name: string;
  path: string[] | null;
  where: VectorFilter | null;
}

const EMPTY_ROWS = new Int32Array(0);

/** Aggregates whose result depends on the order values arrive in. */
const ORDER_SENSITIVE = new Set(["any", "collect", "sum", "avg", "map", "fuse", "union"]);

/** A path's values over an object: per row, a slot of values, MISSING where its type lacks it. */
class PathValues {
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
    if (this.col !== null || this.vectors.length !== 1) return null;
    const v = this.vectors[0];
    return v instanceof NumberVector && v.big === null && isNumber(typeId(v.type)) ? v : null;
  }

  /** Row i's value. */
  value(i: number): Value {
    const c = this.col !== null ? this.col[i] : this.has(i) ? 0 : -1;
    if (c < 0) return MISSING;
    const v = this.vectors[c];
    const s = v.state[i];
    return new Value(v.type, s === VALUE ? v.body(i) : null);
  }
}

/** Loads a path's columns; null when some type has the path somewhere columns cannot read. */
async function pathValues(
  o: ColumnarObject,
  types: TypeIndex,
  path: readonly string[],
): Promise<PathValues | null> {
  const perType = new Int16Array(o.types.length).fill(-1);
  const cols = o.columnsOf(path);
  const used: number[] = [];
  for (let k = 0; k < o.types.length; k++) {
    const lp = lookupPath(o.types[k], path);
    if (lp.kind === "other") return null;
    if (lp.kind === "missing") continue;
    const c = cols.findIndex((c) => c.type === lp.type && c.covers.includes(k));
    if (c < 0) return null;
    let u = used.indexOf(c);
    if (u < 0) {
      u = used.length;
      used.push(c);
    }
    perType[k] = u;
  }
  const vectors: Vector[] = [];
  for (const c of used) vectors.push(await o.vector(cols[c]));
  const pv = new PathValues(vectors, o.rows);
  pv.refs = used.map((c) => cols[c]);
  const col = pv.col;
  if (col !== null) {
    if (types === null) col.fill(perType[0]);
    else for (let i = 0; i < o.rows; i++) col[i] = perType[types[i]];
  }
  return pv;
}

/** An object's groups, worked out but not yet fed. */
export interface PreparedGroups {
  /** Per group, its key values. */
  keys: Value[][];
  /** Per group, its name (groupName), where some aggregate depends on the order of its values. */
  names?: string[];
  /**
   * Per aggregate whose result depends on the order of its values: the
   * groups (indexes into keys) it gets values for here (for the check that
   * overlapping objects share none, by name; see conflicts()).
   */
  fed: (number[] | null)[];
  /**
   * Per aggregate: for one over integers, the largest sum of their
   * magnitudes this object can add (integers sum exactly, even as floats
   * below 2^53, in any order); null otherwise.
   */
  intBound: (number | null)[];
  /** The rows of each group, in row order: rows[start[g], start[g+1]). */
  rows: Int32Array;
  start: Int32Array;
  /** The aggregates' argument values and where selections. */
  args: (PathValues | null)[];
  wheres: (Uint8Array | null)[];
}

export class VectorSummarize {
  private derivers: (Deriver | null)[];

  constructor(
    private keys: VectorKey[],
    private aggs: VectorAggregate[],
  ) {
    this.derivers = keys.map(Deriver.of);
  }

  /** Whether some aggregate depends on the order of its values. */
  get orderSensitive(): boolean {
    return this.aggs.some((a) => ORDER_SENSITIVE.has(a.name));
  }

  /**
   * Whether objects whose rows interleave in pool order cannot be fed one
   * after another: some group gets values from two of them for an aggregate
   * whose result depends on their order (sums of integers do not).
   */
  conflicts(run: readonly PreparedGroups[]): boolean {
    for (let j = 0; j < this.aggs.length; j++) {
      const name = this.aggs[j].name;
      if (!ORDER_SENSITIVE.has(name)) continue;
      if (name === "sum" || name === "avg") {
        let bound = 0;
        for (const p of run) bound = p.intBound[j] === null ? Infinity : bound + p.intBound[j]!;
        if (bound < 2 ** 53) continue;
      }
      const seen = new Set<string>();
      for (const p of run) {
        const fed = p.fed[j];
        if (fed === null || fed.length === 0) continue;
        const names = p.names!;
        for (const g of fed) if (seen.has(names[g])) return true;
        for (const g of fed) seen.add(names[g]);
      }
    }
    return false;
  }

  /** Whether every aggregate is a plain count(): groups need only their sizes. */
  private get countsOnly(): boolean {
    return this.aggs.every((a) => a.path === null && a.where === null);
  }

  /** The groups of an object's selected rows (all rows when sel is null); null when columns cannot tell. */
  async prepare(o: ColumnarObject, sel: Uint8Array | null): Promise<PreparedGroups | null> {
    const types = await o.typeIndex();
    const keyValues: PathValues[] = [];
    for (const k of this.keys) {
      const pv = await pathValues(o, types, k.path);
      if (pv === null) return null;
      keyValues.push(pv);
    }
    const derive = this.derivers;
    const args: (PathValues | null)[] = [];
    const wheres: (Uint8Array | null)[] = [];
    for (const a of this.aggs) {
      if (a.path === null) args.push(null);
      else {
        const pv = await pathValues(o, types, a.path);
        if (pv === null) return null;
        args.push(pv);
      }
      if (a.where === null) wheres.push(null);
      else {
        const s = await a.where.select(o);
        if (s === null) return null;
        wheres.push(s.rows);
      }
    }
    // Arguments the object lacks altogether feed nothing: only the groups' sizes matter then.
    const sizesOnly = this.aggs.every((a, j) =>
      a.where === null && (a.path === null || args[j]!.vectors.length === 0)
    );
    const p = keyValues.every((k) => k.vectors.length === 0)
      ? oneGroup(
        o.rows,
        sel,
        derive.map((d) => d?.derive(MISSING) ?? MISSING),
        args,
        wheres,
        sizesOnly,
      )
      : groupRows(o.rows, sel, keyValues, derive, args, wheres, sizesOnly);
    if (p !== null) {
      if (this.orderSensitive) p.names = p.keys.map(groupName);
      p.fed = this.aggs.map((a, j) => ORDER_SENSITIVE.has(a.name) ? fedGroups(p, j) : null);
      p.intBound = this.aggs.map((_, j) => intBound(args[j]));
    }
    return p;
  }

  /** Feeds an object's groups to the summarize (but those skip says to leave out). */
  commit(p: PreparedGroups, op: Summarize, skip?: Set<number>): void {
    const nAggs = this.aggs.length;
    for (let g = 0; g < p.keys.length; g++) {
      if (skip?.has(g)) continue;
      const aggs = op.groupOf(p.keys[g]);
      if (aggs === null) continue;
      const a0 = p.start[g], a1 = p.start[g + 1];
      if (p.rows.length === 0) {
        // Sizes only: the counts are fed; the other aggregates' arguments are missing.
        for (let j = 0; j < nAggs; j++) {
          if (this.aggs[j].path === null) countInto(op, aggs, j, a1 - a0);
        }
        continue;
      }
      for (let j = 0; j < nAggs; j++) feedRange(op, aggs, j, p, a0, a1);
    }
    op.checkBudget();
  }

  /**
   * Feeds a run of objects whose shared groups' values interleave in pool
   * order, each group its values in pool order: a group found in one object
   * is fed from it as commit() feeds; a group found in several has its rows
   * merged by the pool key (keymerge.ts) and fed in that order.
   * Returns false, having fed nothing, where that order is not the keys'
   * alone: two of the objects' rows of a group with equal keys (the whole
   * values decide), or a row without a key.
   */
  async commitMerged(
    run: readonly { o: ColumnarObject; p: PreparedGroups }[],
    keyPath: readonly string[],
    keyOrder: KeyOrder,
    op: Summarize,
  ): Promise<boolean> {
    // Per group name: where it is, object by object. Only where it gets a
    // value for an aggregate that depends on their order: elsewhere (a
    // group of rows without the argument, say, all but the log that has
    // it) commit() feeds it as it would any group.
    const where = new Map<string, { k: number; g: number }[]>();
    for (let k = 0; k < run.length; k++) {
      const p = run[k].p;
      if (p.rows.length === 0) continue;
      const names = p.names!; // set by prepare() for order-sensitive summaries
      const fed = new Uint8Array(p.keys.length);
      for (const f of p.fed) if (f !== null) { for (const g of f) fed[g] = 1; }
      for (let g = 0; g < p.keys.length; g++) {
        if (fed[g] === 0) continue;
        const name = names[g];
        const at = where.get(name);
        if (at === undefined) where.set(name, [{ k, g }]);
        else at.push({ k, g });
      }
    }
    const skip = run.map(() => new Set<number>());
    const merged: { parts: { k: number; g: number }[]; order: Int32Array }[] = [];
    let keys: RunKeys | null = null;
    for (const parts of where.values()) {
      if (parts.length < 2) continue;
      if (keys === null) {
        // The keys of every object with rows, compared the same way for all groups.
        const each: (PathValues | null)[] = run.map(() => null);
        for (let k = 0; k < run.length; k++) {
          if (run[k].p.rows.length === 0) continue;
          each[k] = await pathValues(run[k].o, await run[k].o.typeIndex(), keyPath);
          if (each[k] === null) return false;
        }
        keys = new RunKeys(each, keyOrder);
      }
      const order = mergeRows(run, parts, keys);
      if (order === null) return false;
      merged.push({ parts, order });
      for (const { k, g } of parts) skip[k].add(g);
    }
    run.forEach(({ p }, k) => this.commit(p, op, skip[k]));
    for (const { parts, order } of merged) {
      const first = run[parts[0].k].p;
      const aggs = op.groupOf(first.keys[parts[0].g]);
      if (aggs === null) continue;
      for (let j = 0; j < this.aggs.length; j++) {
        for (let t = 0; t < order.length; t += 3) {
          feedRange(op, aggs, j, run[parts[order[t]].k].p, order[t + 1], order[t + 2]);
        }
      }
    }
    op.checkBudget();
    return true;
  }
}

/** Feeds an object's rows rows[a0, a1) to aggregate j of a group, in that order. */
function feedRange(
  op: Summarize,
  aggs: Aggregator[],
  j: number,
  p: PreparedGroups,
  a0: number,
  a1: number,
): void {
  const arg = p.args[j], where = p.wheres[j];
  if (arg === null && where === null) {
    countInto(op, aggs, j, a1 - a0);
    return;
  }
  const nums = where === null ? arg?.numbers() ?? null : null;
  if (nums !== null && op.feedNumbers(aggs, j, nums.f64, nums.state, p.rows, a0, a1)) return;
  for (let r = a0; r < a1; r++) {
    const i = p.rows[r];
    if (where !== null && where[i] !== 1) continue;
    if (arg === null) {
      op.feed(aggs, j, TRUE);
      continue;
    }
    const v = arg.value(i);
    if (v !== MISSING) op.feed(aggs, j, v);
  }
}

/** A group's name: its key values' value key strings, joined. */
function groupName(keys: readonly Value[]): string {
  return keys.map((k) => valueKey(k.type, k.body)).join("");
}

/** The groups aggregate j gets a value for. */
function fedGroups(p: PreparedGroups, j: number): number[] {
  const out: number[] = [];
  const arg = p.args[j], where = p.wheres[j];
  if (arg !== null && arg.vectors.length === 0) return out; // missing everywhere
  for (let g = 0; g < p.keys.length; g++) {
    let feeds = false;
    if (p.rows.length === 0) feeds = arg === null && where === null && p.start[g + 1] > p.start[g];
    for (let r = p.start[g]; r < p.start[g + 1] && !feeds && p.rows.length > 0; r++) {
      const i = p.rows[r];
      feeds = (where === null || where[i] === 1) && (arg === null || arg.has(i));
    }
    if (feeds) out.push(g);
  }
  return out;
}

/** For an argument of integers (ints, times, durations) only: the sum of their magnitudes. */
function intBound(arg: PathValues | null): number | null {
  if (arg === null) return null;
  let bound = 0;
  for (const v of arg.vectors) {
    const u = typeUnder(v.type);
    if (u.kind !== Kind.Primitive || !isInteger(u.id) && u.id !== ID_DURATION && u.id !== ID_TIME) {
      return null;
    }
    const state = v.state;
    if (v instanceof DictVector) {
      const e = v.entries;
      if (!(e instanceof NumberVector) || e.big !== null) return null;
      const f = e.f64, index = v.index;
      for (let i = 0; i < state.length; i++) if (state[i] === VALUE) bound += Math.abs(f[index[i]]);
      continue;
    }
    if (!(v instanceof NumberVector) || v.big !== null) return null;
    const f = v.f64;
    for (let i = 0; i < f.length; i++) if (state[i] === VALUE) bound += Math.abs(f[i]);
  }
  return bound;
}

function countInto(op: Summarize, aggs: Aggregator[], j: number, n: number): void {
  const a = aggs[j];
  if (a.consumeN !== undefined) a.consumeN(TRUE, n);
  else for (let k = 0; k < n; k++) op.feed(aggs, j, TRUE);
}

/** The selected rows as one group, of keys missing from every row (derived from missing). */
function oneGroup(
  rows: number,
  sel: Uint8Array | null,
  keys: Value[],
  args: (PathValues | null)[],
  wheres: (Uint8Array | null)[],
  sizesOnly: boolean,
): PreparedGroups {
  let n = 0;
  if (sel === null) n = rows;
  else for (let i = 0; i < rows; i++) n += sel[i] === 1 ? 1 : 0;
  if (n === 0) {
    return { keys: [], fed: [], intBound: [], rows: EMPTY_ROWS, start: ZERO, args, wheres };
  }
  let list = EMPTY_ROWS;
  if (!sizesOnly) {
    list = new Int32Array(n);
    for (let i = 0, k = 0; i < rows; i++) if (sel === null || sel[i] === 1) list[k++] = i;
  }
  return {
    keys: [keys],
    fed: [],
    intBound: [],
    rows: list,
    start: Int32Array.of(0, n),
    args,
    wheres,
  };
}

const ZERO = Int32Array.of(0);

/**
 * Groups the selected rows by their keys: each key's values get small
 * codes (a dictionary's entries, or distinct values), combined into group
 * numbers in order of first appearance.
 */
function groupRows(
  rows: number,
  sel: Uint8Array | null,
  keyValues: PathValues[],
  derive: (Deriver | null)[],
  args: (PathValues | null)[],
  wheres: (Uint8Array | null)[],
  sizesOnly: boolean,
): PreparedGroups | null {
  const only = keyValues.length === 1 && keyValues[0].vectors.length === 1
    ? keyValues[0].vectors[0]
    : null;
  if (sizesOnly && sel === null && only instanceof DictVector && derive[0] === null) {
    return dictGroupSizes(only, rows, args, wheres);
  }
  const gid = new Int32Array(rows).fill(-1);
  const groupKeys: Value[][] = [];
  const codes = keyValues.map((pv, k) => {
    const d = derive[k];
    if (d === null) return keyCodes(pv, rows, sel);
    // A lone column's derived codes are kept with it (made for every row, then).
    const ref = pv.vectors.length === 1 && pv.col === null ? pv.refs[0] : null;
    return d.codes(ref, rows, (all) => keyCodes(pv, rows, all ? null : sel));
  });
  let groups = 0;
  if (codes.length === 0) {
    // One group, made only when a row is there (no values, no output).
    for (let i = 0; i < rows; i++) if (sel === null || sel[i] === 1) gid[i] = 0;
    if (sel === null ? rows > 0 : sel.includes(1)) {
      groups = 1;
      groupKeys.push([]);
    }
  } else if (codes.length === 1 && sizesOnly) {
    // One key, counts only: each code's count is its group's size.
    const { code, values } = codes[0];
    const counts = new Int32Array(values.length);
    if (sel === null) { for (let i = 0; i < rows; i++) counts[code[i]]++; }
    else for (let i = 0; i < rows; i++) if (sel[i] === 1) counts[code[i]]++;
    const start = [0];
    for (let c = 0; c < counts.length; c++) {
      if (counts[c] === 0) continue;
      groupKeys.push([values[c]]);
      start.push(start[start.length - 1] + counts[c]);
    }
    return groupSizes(groupKeys, start, args, wheres);
  } else if (codes.length === 1) {
    // One key: its codes are small, so a table maps them to groups.
    const { code, values } = codes[0];
    const groupOf = new Int32Array(values.length).fill(-1);
    for (let i = 0; i < rows; i++) {
      if (sel !== null && sel[i] !== 1) continue;
      const c = code[i];
      let g = groupOf[c];
      if (g < 0) {
        g = groupOf[c] = groups++;
        groupKeys.push([values[c]]);
      }
      gid[i] = g;
    }
  } else {
    const radix = codes.map((c) => c.values.length);
    if (radix.reduce((a, b) => a * b, 1) > 2 ** 52) return null; // codes would not combine exactly
    const first = new Map<number, number>();
    for (let i = 0; i < rows; i++) {
      if (sel !== null && sel[i] !== 1) continue;
      let combo = 0;
      for (let k = 0; k < codes.length; k++) combo = combo * radix[k] + codes[k].code[i];
      let g = first.get(combo);
      if (g === undefined) {
        g = groups++;
        first.set(combo, g);
        groupKeys.push(codes.map((c) => c.values[c.code[i]]));
      }
      gid[i] = g;
    }
  }
  // Rows by group, in row order within each (a counting sort).
  const start = new Int32Array(groups + 1);
  for (let i = 0; i < rows; i++) if (gid[i] >= 0) start[gid[i] + 1]++;
  for (let g = 0; g < groups; g++) start[g + 1] += start[g];
  let byGroup = EMPTY_ROWS;
  if (!sizesOnly) {
    const fill = start.slice(0, groups);
    byGroup = new Int32Array(start[groups]);
    for (let i = 0; i < rows; i++) if (gid[i] >= 0) byGroup[fill[gid[i]]++] = i;
  }
  return { keys: groupKeys, fed: [], intBound: [], rows: byGroup, start, args, wheres };
}

/**
 * Every row grouped by one dictionary column, counts only: the groups'
 * sizes are the column's histogram (missing first, then null, then the
 * entries, as keyCodes numbers them).
 */
function dictGroupSizes(
  v: DictVector,
  rows: number,
  args: (PathValues | null)[],
  wheres: (Uint8Array | null)[],
): PreparedGroups {
  const h = dictHistogram(v, null);
  let held = h.nulls;
  for (let d = 0; d < h.counts.length; d++) held += h.counts[d];
  const keys: Value[][] = [];
  const start = [0];
  const add = (key: Value, n: number) => {
    if (n === 0) return;
    keys.push([key]);
    start.push(start[start.length - 1] + n);
  };
  add(MISSING, rows - held);
  add(new Value(v.type, null), h.nulls);
  const dict = v.dict;
  for (let d = 0; d < dict.length; d++) add(new Value(v.type, dict[d]), h.counts[d]);
  return groupSizes(keys, start, args, wheres);
}

/** Groups known only by their sizes (counts only): their keys and where each starts. */
function groupSizes(
  keys: Value[][],
  start: number[],
  args: (PathValues | null)[],
  wheres: (Uint8Array | null)[],
): PreparedGroups {
  return {
    keys,
    fed: [],
    intBound: [],
    rows: EMPTY_ROWS,
    start: Int32Array.from(start),
    args,
    wheres,
  };
}

/** A key path's values as codes: per row its code, and the value of each code. */
function keyCodes(
  pv: PathValues,
  rows: number,
  sel: Uint8Array | null,
): Codes {
  const code = new Int32Array(rows);
  const values: Value[] = [MISSING];
  const base = pv.vectors.map((v) => {
    const b = values.length;
    values.push(new Value(v.type, null));
    if (v instanceof DictVector) { for (const d of v.dict) values.push(new Value(v.type, d)); }
    return b;
  });
  const seen = pv.vectors.map(() => new Map<Body, number>());
  const only = pv.vectors.length === 1 ? pv.vectors[0] : null;
  if (only instanceof DictVector) {
    // The common case, one dictionary column: codes straight from its entries
    // (rows it does not cover are missing, code 0).
    const state = only.state, index = only.index;
    for (let i = 0; i < rows; i++) {
      const s = state[i];
      code[i] = s === VALUE ? 2 + index[i] : s === NULL_ROW ? 1 : 0;
    }
    return { code, values };
  }
  for (let i = 0; i < rows; i++) {
    if (sel !== null && sel[i] !== 1) continue;
    const c = pv.col !== null ? pv.col[i] : pv.has(i) ? 0 : -1;
    if (c < 0) continue; // code 0: missing
    const v = pv.vectors[c];
    const s = v.state[i];
    if (s === NULL_ROW) {
      code[i] = base[c];
    } else if (v instanceof DictVector) {
      code[i] = base[c] + 1 + v.index[i];
    } else {
      code[i] = distinctCode(v, i, seen[c], values);
    }
  }
  return { code, values };
}

/** The code of a value of a column without a dictionary (added when new). */
function distinctCode(v: Vector, i: number, seen: Map<Body, number>, values: Value[]): number {
  const b = v.body(i);
  const key: Body = b instanceof Uint8Array ? latin1Key(b) : b;
  let c = seen.get(key);
  if (c === undefined) {
    c = values.length;
    values.push(new Value(v.type as Type, b));
    seen.set(key, c);
  }
  return c;
}

function latin1Key(b: Uint8Array): string {
  let s = "";
  for (let k = 0; k < b.length; k++) s += String.fromCharCode(b[k]);
  return "\u0000" + s;
}
