// Grouping an object's selected rows by their key columns for summarize over
// columns (summarize.ts): each key's values get small codes (a dictionary's
// entries, or distinct values), combined into groups in order of first
// appearance, and the rows listed group by group (or, for counts only, just
// each group's size).

import { groupKey } from "../aggregates/value-key.ts";
import { MISSING } from "../runtime/values.ts";
import type { Type } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import { DictVector, ListVector, NULL_ROW, VALUE, type Vector } from "../../zed/vector.ts";
import type { Codes, Deriver } from "./derive.ts";
import { dictHistogram } from "./histogram.ts";
import type { ColumnarObject } from "./object.ts";
import type { ArgValues, PathValues } from "./pathvalues.ts";

export const EMPTY_ROWS = new Int32Array(0);

/** An object's groups, worked out but not yet fed. */
export interface PreparedGroups {
  /** Per group, its key values. */
  keys: Value[][];
  /**
   * Per group, its name (groupKey): where some aggregate depends on the
   * order of its values, or the groups were kept with their column.
   */
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
  args: (ArgValues | null)[];
  wheres: (Uint8Array | null)[];
}

/** The selected rows as one group, of keys missing from every row (derived from missing). */
export function oneGroup(
  rows: number,
  sel: Uint8Array | null,
  keys: Value[],
  args: (ArgValues | null)[],
  wheres: (Uint8Array | null)[],
  sizesOnly: boolean,
): PreparedGroups {
  let n = 0;
  if (sel === null) n = rows;
  else for (let i = 0; i < rows; i++) n += sel[i] === 1 ? 1 : 0;
  if (n === 0) {
    return prepared([], EMPTY_ROWS, ZERO, args, wheres);
  }
  let list = EMPTY_ROWS;
  if (!sizesOnly) {
    list = new Int32Array(n);
    for (let i = 0, k = 0; i < rows; i++) if (sel === null || sel[i] === 1) list[k++] = i;
  }
  return prepared([keys], list, Int32Array.of(0, n), args, wheres);
}

/** Estimated bytes of a group's keys and name beside its rows, for the column cache. */
const GROUP_BYTES = 128;

/**
 * Every row of an object grouped by one dictionary column, as groupRows
 * groups them, kept with the column: the grouping is the column's alone,
 * so a query that groups by it again (each of Zui's refreshes, say) only
 * feeds its aggregates. With the groups' names, made once when first asked.
 */
class ColumnGroups {
  readonly bytes: number;
  private named: string[] | null = null;
  constructor(readonly keys: Value[][], readonly rows: Int32Array, readonly start: Int32Array) {
    this.bytes = rows.byteLength + start.byteLength + keys.length * GROUP_BYTES;
  }
  get names(): string[] {
    return this.named ??= this.keys.map(groupKey);
  }
}

/** Groups worked out, their order-dependent bookkeeping (fed, intBound) still to fill. */
function prepared(
  keys: Value[][],
  rows: Int32Array,
  start: Int32Array,
  args: (ArgValues | null)[],
  wheres: (Uint8Array | null)[],
): PreparedGroups {
  return { keys, fed: [], intBound: [], rows, start, args, wheres };
}

const ZERO = Int32Array.of(0);

/**
 * Groups an object's selected rows by their keys: each key's values get
 * small codes (a dictionary's entries, or distinct values), combined into
 * group numbers in order of first appearance. Every row grouped by one
 * dictionary column (no selection, no derived key) is the grouping kept
 * with the column, made once (unless keep is false).
 */
export function groupRows(
  o: ColumnarObject,
  sel: Uint8Array | null,
  keyValues: PathValues[],
  derive: (Deriver | null)[],
  args: (ArgValues | null)[],
  wheres: (Uint8Array | null)[],
  sizesOnly: boolean,
  keep = true,
): PreparedGroups | null {
  const rows = o.rows;
  const only = keyValues.length === 1 && keyValues[0].vectors.length === 1
    ? keyValues[0].vectors[0]
    : null;
  if (only instanceof DictVector && sel === null && derive[0] === null) {
    if (sizesOnly) return dictGroupSizes(only, rows, args, wheres);
    if (keep && keyValues[0].col === null && keyValues[0].refs.length === 1) {
      const g = o.fromColumn(keyValues[0].refs[0], "groups", () => {
        const all = groupRows(o, null, keyValues, derive, [], [], false, false)!;
        return new ColumnGroups(all.keys, all.rows, all.start);
      });
      const p = prepared(g.keys, g.rows, g.start, args, wheres);
      p.names = g.names;
      return p;
    }
  }
  const gid = new Int32Array(rows).fill(-1);
  const groupKeys: Value[][] = [];
  const codes = keyValues.map((pv, k) => {
    const d = derive[k];
    if (d === null) return keyCodes(pv, rows, sel);
    // A lone column's derived codes are kept with it (made for every row, then).
    const ref = pv.vectors.length === 1 && pv.col === null ? pv.refs[0] : null;
    return d.codes(ref, rows, (all) => keyCodes(pv, rows, all ? null : sel), pv);
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
    const combos = radix.reduce((a, b) => a * b, 1);
    if (combos > 2 ** 52) return null; // codes would not combine exactly
    // Few combinations: a table from each to its group; else a map.
    const table = combos <= Math.max(rows, 1 << 16) && combos <= 1 << 22
      ? new Int32Array(combos).fill(-1)
      : null;
    const first = table === null ? new Map<number, number>() : null;
    const two = codes.length === 2 ? codes[1].code : null, r1 = radix[1];
    const one = codes[0].code;
    for (let i = 0; i < rows; i++) {
      if (sel !== null && sel[i] !== 1) continue;
      let combo: number;
      if (two !== null) combo = one[i] * r1 + two[i];
      else {
        combo = 0;
        for (let k = 0; k < codes.length; k++) combo = combo * radix[k] + codes[k].code[i];
      }
      let g = table !== null ? table[combo] : first!.get(combo) ?? -1;
      if (g < 0) {
        g = groups++;
        if (table !== null) table[combo] = g;
        else first!.set(combo, g);
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
  return prepared(groupKeys, byGroup, start, args, wheres);
}

/**
 * Every row grouped by one dictionary column, counts only: the groups'
 * sizes are the column's histogram (missing first, then null, then the
 * entries, as keyCodes numbers them).
 */
function dictGroupSizes(
  v: DictVector,
  rows: number,
  args: (ArgValues | null)[],
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
  args: (ArgValues | null)[],
  wheres: (Uint8Array | null)[],
): PreparedGroups {
  return prepared(keys, EMPTY_ROWS, Int32Array.from(start), args, wheres);
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
  // (An array's or a set's body is made afresh each time: keyed by its
  // elements, and made only for a new one.)
  let b: Body | undefined, key: Body;
  if (v instanceof ListVector) key = listKey(v, i);
  else {
    b = v.body(i);
    key = b instanceof Uint8Array ? latin1Key(b) : b;
  }
  let c = seen.get(key);
  if (c === undefined) {
    c = values.length;
    values.push(new Value(v.type as Type, b === undefined ? v.body(i) : b));
    seen.set(key, c);
  }
  return c;
}

/** A list's elements as a string key: each one's length and text, "n;" for a null. */
function listKey(v: ListVector, i: number): string {
  const child = v.child, state = child.state;
  let s = "\u0001";
  for (let k = v.offsets[i]; k < v.offsets[i + 1]; k++) {
    if (state[k] !== VALUE) {
      s += "n;";
      continue;
    }
    const e = child.body(k);
    const t = typeof e === "string" ? e : e instanceof Uint8Array ? latin1Key(e) : String(e);
    s += t.length + ":" + t;
  }
  return s;
}

function latin1Key(b: Uint8Array): string {
  let s = "";
  for (let k = 0; k < b.length; k++) s += String.fromCharCode(b[k]);
  return "\u0000" + s;
}
