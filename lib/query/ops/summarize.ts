// summarize (language.md §3.18, §8): groups values by the values and types
// of the key expressions and runs one set of aggregators per group. Output
// records hold the keys, then the aggregates, each row typed by its own
// values; nothing is emitted until the input ends.
//
// Output order is first-seen group order (the reference iterates a hash
// map, so its order is undefined and every test sorts). When the number of
// groups exceeds the limit, the reference spills sorted runs to disk and
// merges them, so its output comes out sorted by the keys; this version
// keeps every group in memory but sorts its output by the keys in that case
// too, so `with -limit` queries print in the reference's order.
//
// Memory: the group table (one key string, key values and aggregator state
// per group) is all that is held. With very many groups (millions of
// distinct keys, or collect/union/dcount state that grows with the input)
// it can exhaust the heap; spilling to disk past the limit is future work.

import { compareValues } from "../../zed/compare.ts";
import { TypeBool, typeUnder } from "../../zed/types.ts";
import type { Batch, Value } from "../../zed/value.ts";
import type { AggregateDef, Aggregator } from "../aggregates/registry.ts";
import { valueKey } from "../aggregates/value-key.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { RecordBuilder } from "../runtime/record-builder.ts";
import { isMissing, isQuiet, TRUE } from "../runtime/values.ts";

/** A group key: the output field path and the expression it is computed by. */
export interface SummarizeKey {
  path: readonly string[];
  expr: Expr;
}

/** An aggregate column: its output path, function, argument (none for count()) and where clause. */
export interface SummarizeAggregate {
  path: readonly string[];
  def: AggregateDef;
  arg?: Expr;
  where?: Expr;
}

/** The reference's default group limit before it spills. */
export const DEFAULT_GROUP_LIMIT = 1_000_000;

/** Most values per emitted batch. */
const OUT_BATCH = 1000;

class Group {
  constructor(readonly keys: Value[], readonly aggs: Aggregator[]) {}
}

/** True when a where clause lets the value through: it must be bool true. */
function passes(where: Expr, v: Value): boolean {
  const w = where(v);
  return w.body === true && typeUnder(w.type) === TypeBool;
}

export class Summarize extends Unary {
  private readonly keyExprs: Expr[];
  private readonly defs: AggregateDef[];
  private readonly args: (Expr | undefined)[];
  private readonly wheres: (Expr | undefined)[];
  private readonly builder: RecordBuilder;
  private readonly limit: number;
  private table = new Map<string, Group>();
  /** The current value's keys; copied into a group only when it is new. */
  private readonly scratch: Value[];
  /** Set once the table outgrew the limit: output is then sorted by the keys. */
  private overLimit = false;

  /**
   * Throws the reference's compile errors for the output paths (`duplicate
   * field: "count"`, `fields in record x must be adjacent`).
   */
  constructor(next: Op, keys: SummarizeKey[], aggs: SummarizeAggregate[], limit = 0) {
    super(next);
    this.keyExprs = keys.map((k) => k.expr);
    this.scratch = new Array<Value>(keys.length);
    this.defs = aggs.map((a) => a.def);
    this.args = aggs.map((a) => a.arg);
    this.wheres = aggs.map((a) => a.where);
    this.builder = new RecordBuilder([...keys.map((k) => k.path), ...aggs.map((a) => a.path)]);
    this.limit = limit > 0 ? limit : DEFAULT_GROUP_LIMIT;
  }

  push(batch: Batch): void {
    for (let i = 0; i < batch.length; i++) this.consume(batch[i]);
  }

  private consume(v: Value): void {
    const exprs = this.keyExprs;
    const keys = this.scratch;
    let key = "";
    if (exprs.length === 1) {
      const k = exprs[0](v);
      if (isQuiet(k)) return;
      key = valueKey(k.type, k.body);
      keys[0] = k;
    } else {
      for (let i = 0; i < exprs.length; i++) {
        const k = exprs[i](v);
        if (isQuiet(k)) return;
        keys[i] = k;
        key += valueKey(k.type, k.body);
      }
    }
    let group = this.table.get(key);
    if (group === undefined) {
      if (this.table.size >= this.limit) this.overLimit = true;
      group = new Group(keys.slice(), this.defs.map((d) => d.make()));
      this.table.set(key, group);
    }
    const aggs = group.aggs;
    for (let i = 0; i < aggs.length; i++) {
      const where = this.wheres[i];
      if (where !== undefined && !passes(where, v)) continue;
      const arg = this.args[i];
      if (arg === undefined) {
        aggs[i].consume(TRUE);
        continue;
      }
      const a = arg(v);
      if (!isMissing(a)) aggs[i].consume(a);
    }
  }

  /**
   * Counts n values whose keys are `keys` without the values themselves
   * (a column scan knows the keys and how many): only for a summarize
   * whose aggregates all take no argument and no where clause (count()).
   */
  addCounted(keys: readonly Value[], n: number): void {
    let key = "";
    for (let i = 0; i < keys.length; i++) {
      if (isQuiet(keys[i])) return;
      key += valueKey(keys[i].type, keys[i].body);
    }
    let group = this.table.get(key);
    if (group === undefined) {
      if (this.table.size >= this.limit) this.overLimit = true;
      group = new Group(keys.slice(), this.defs.map((d) => d.make()));
      this.table.set(key, group);
    }
    for (const agg of group.aggs) {
      if (agg.consumeN !== undefined) agg.consumeN(TRUE, n);
      else for (let k = 0; k < n; k++) agg.consume(TRUE);
    }
  }

  /** Whether addCounted applies: every aggregate is argument-free and unconditioned. */
  get countsOnly(): boolean {
    return this.args.every((a) => a === undefined) && this.wheres.every((w) => w === undefined);
  }

  override end(): void {
    let groups: Iterable<Group> = this.table.values();
    if (this.overLimit) groups = [...groups].sort(compareKeys);
    this.table = new Map();
    const nkeys = this.keyExprs.length;
    const values: Value[] = new Array(nkeys + this.defs.length);
    let out: Value[] = [];
    for (const g of groups) {
      for (let i = 0; i < nkeys; i++) values[i] = g.keys[i];
      for (let i = 0; i < g.aggs.length; i++) values[nkeys + i] = g.aggs[i].result();
      out.push(this.builder.build(values)!);
      if (out.length >= OUT_BATCH) {
        this.next.push(out);
        out = [];
        if (this.next.done) break;
      }
    }
    if (out.length > 0 && !this.next.done) this.next.push(out);
    this.next.end();
  }
}

/**
 * The order of the reference's spill merge: key by key, ascending, nulls
 * (and missing) last.
 */
function compareKeys(a: Group, b: Group): number {
  for (let i = 0; i < a.keys.length; i++) {
    const x = a.keys[i], y = b.keys[i];
    const c = compareValues(
      x.type,
      isMissing(x) ? null : x.body,
      y.type,
      isMissing(y) ? null : y.body,
    );
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * An aggregate call inside an expression (§7.2): one accumulator for the
 * call site, fed each value it is evaluated on (subject to the where clause
 * and the missing rule), returning the result so far.
 */
export function makeRunningAggregate(def: AggregateDef, arg?: Expr, where?: Expr): Expr {
  const agg = def.make();
  return (v) => {
    if (where === undefined || passes(where, v)) {
      if (arg === undefined) agg.consume(TRUE);
      else {
        const a = arg(v);
        if (!isMissing(a)) agg.consume(a);
      }
    }
    return agg.result();
  };
}
