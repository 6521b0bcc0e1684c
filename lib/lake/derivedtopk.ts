// `sort [-r] <expression> | head N` for an expression of top-level fields
// (`sort -r orig_bytes+resp_bytes | head 10`, `sort len(query) | head 5`),
// from the objects' columns: the expression is evaluated per row from its
// fields' columns (query/vector/derivedkeys.ts), each object gives its N
// best rows that pass the filter and every row tied with the Nth, the N best
// of all of them are taken in the sort's order, equal values in pool order
// (the sort is stable over the pool's order), and only they are made into
// values (picks.ts). The order is the sort operator's (query/ops/sort.ts):
// numbers when every key is an integer, else the general order of values.
//
// Null (the caller sorts the rows) where the columns cannot give the fields,
// or the keys' types make that order not transitive (NaN, int8 or uint8
// beside other number types, several number types beside other types or
// beside ints beyond 2^53), where which values come first depends on how a
// sort compares.

import { derivedKeys, type Expr, LeastK, type VectorFilter } from "../query/mod.ts";
import { compareValues } from "../zed/compare.ts";
import { ID_INT8, ID_UINT8, isFloat, isInteger, isNumber, underId } from "../zed/types.ts";
import type { Value } from "../zed/value.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import { countWholeRead, inPoolOrder, liveColumns, type Pick, PickedValues } from "./picks.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import type { KeyRange } from "./prune.ts";
import type { ScanStats } from "./scan.ts";

export interface DerivedTopKPlan {
  expr: Expr;
  /** The top-level fields the expression reads. */
  exprFields: string[];
  reverse: boolean;
  nullsFirst: boolean;
  limit: number;
  range: KeyRange | null;
  /** The filter over columns, or null when there is no filter. */
  vector: VectorFilter | null;
  /** The top-level fields the query reads, or null for all. */
  fields: string[] | null;
}

/** The most values a top-k from columns holds (as fieldtopk.ts). */
const MAX_LIMIT = 10_000;
/** The most rows tied with the last of the best beyond the head's own. */
const MAX_TIED = 10_000;

/** A row that may be among the best: its object, row and sort value. */
interface Candidate extends Pick {
  key: Value;
}

/** The values the sort and head give, or null when the columns cannot tell. */
export async function derivedTopK(
  lake: Lake,
  pool: PoolConfig,
  poolKey: PoolKey,
  objects: DataObject[],
  plan: DerivedTopKPlan,
  stats: ScanStats,
): Promise<Value[] | null> {
  const { limit, range } = plan;
  if (limit > MAX_LIMIT) return null;
  const found = await liveColumns(lake, pool, objects, range, plan.vector);
  if (found === null) return null;
  const { live, cols, sels } = found;
  const keys: (Value | undefined)[][] = [];
  const kinds = new KeyKinds();
  /** The key of rows without the fields, shared by every object's. */
  let missing: Value | undefined = undefined;
  for (let i = 0; i < live.length; i++) {
    const c = cols[i], sel = sels[i];
    const rows = sel?.all === false ? sel.rows : null;
    const derived = await derivedKeys(c, plan.exprFields, plan.expr, rows, missing);
    if (derived === null) return null;
    missing = derived.missing;
    const ks = derived.keys;
    for (let r = 0; r < ks.length; r++) if (ks[r] !== undefined) kinds.add(ks[r]!);
    keys.push(ks);
  }
  if (!kinds.allInt && !kinds.transitive) return null;
  const cmp = keyOrder(kinds.allInt, plan);
  const all = candidates(keys, limit, cmp);
  if (all === null) return null;
  const made = new PickedValues(lake, pool, poolKey, plan.fields, null, stats, false);
  const picks = await inPoolOrder(all, live, cols, poolKey, made, (a, b) => cmp(a.key, b.key));
  if (picks === null) return null;
  const out = await made.values(live, cols, picks.slice(0, limit));
  await countWholeRead(stats, objects, live, cols, sels);
  return out;
}

/** The sort operator's order of keys: numbers when all are integers, else the general order. */
function keyOrder(
  allInt: boolean,
  plan: DerivedTopKPlan,
): (a: Value, b: Value) => number {
  const nullsMax = plan.nullsFirst === plan.reverse;
  const cmp = allInt
    ? (a: Value, b: Value) => {
      const x = a.body as number | bigint, y = b.body as number | bigint;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    : (a: Value, b: Value) => compareValues(a.type, a.body, b.type, b.body, nullsMax);
  return plan.reverse ? (a, b) => cmp(b, a) : cmp;
}

/**
 * The rows whose keys may be among the best: those better than the
 * `limit`-th best key of all objects' rows, and of the rows tied with it
 * (pool order decides among those) each object's first `limit`; null when
 * those are more than MAX_TIED beyond the head's (a long head over many
 * objects whose rows mostly share a key: the rows decide).
 */
function candidates(
  keys: (Value | undefined)[][],
  limit: number,
  cmp: (a: Value, b: Value) => number,
): Candidate[] | null {
  const least = new LeastK(cmp, limit);
  for (const ks of keys) {
    for (let r = 0; r < ks.length; r++) if (ks[r] !== undefined) least.offer(ks[r]!);
  }
  const out: Candidate[] = [];
  if (least.size === 0) return out;
  const bound = least.size < limit ? null : least.greatest!;
  const most = limit + MAX_TIED;
  for (let obj = 0; obj < keys.length; obj++) {
    const ks = keys[obj];
    // Rows tied with the bound come in pool order, an object's in row order:
    // the first `limit` of them in each object are enough.
    let tied = 0;
    for (let r = 0; r < ks.length; r++) {
      const k = ks[r];
      if (k === undefined) continue;
      const c = bound === null ? -1 : cmp(k, bound);
      if (c > 0 || (c === 0 && tied++ >= limit)) continue;
      if (out.length === most) return null;
      out.push({ obj, row: r, key: k });
    }
  }
  return out;
}

/** What the keys' types say of their order (see the top of the file). */
class KeyKinds {
  allInt = true;
  private nan = false;
  private small = false;
  private numbers = new Set<number>();
  private others = false;
  private big = false;

  add(v: Value): void {
    const id = underId(v.type);
    if (!isInteger(id)) this.allInt = false;
    if (v.body === null) return;
    if (isNumber(id)) {
      this.numbers.add(id);
      if (id === ID_INT8 || id === ID_UINT8) this.small = true;
      if (isFloat(id) && v.body !== v.body) this.nan = true;
      // (Beside a float, ints are compared as doubles, which round those beyond 2^53.)
      if (typeof v.body === "bigint") this.big = true;
    } else this.others = true;
  }

  get transitive(): boolean {
    return !this.nan &&
      (this.numbers.size <= 1 || (!this.small && !this.others && !this.big));
  }
}
