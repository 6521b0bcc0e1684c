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
// per group) is what is held. When its estimated size passes the memory
// budget, it is spilled to disk sorted by the keys (spill/group-runs.ts) and
// the runs are merged at the end; the output then comes out sorted by the
// keys, as the reference's does when it spills. A summarize without keys
// (one group) does not spill.

import { type Type, TypeBool, typeUnder } from "../../zed/types.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { VALUE } from "../../zed/vector.ts";
import type { AggregateDef, Aggregator } from "../aggregates/registry.ts";
import { groupKey, valueKey } from "../aggregates/value-key.ts";
import { NumberRecorder } from "../aggregates/recorder.ts";
import type { Expr } from "../runtime/expr.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { sortSliced } from "../runtime/sliced-sort.ts";
import type { Ended, Work } from "../runtime/work.ts";
import { RecordBuilder } from "../runtime/record-builder.ts";
import { isMissing, isQuiet, MISSING, TRUE } from "../runtime/values.ts";
import {
  compareGroupKeys,
  decodeGroups,
  encodeGroups,
  GroupRuns,
  type KeyedGroup,
} from "../spill/group-runs.ts";
import { currentScope } from "../spill/scope.ts";
import { valueSize } from "../spill/size.ts";

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

/** Estimated bytes of a group beyond its keys: the table entry, the group, its aggregators. */
const GROUP_COST = 96;
const AGG_COST = 32;

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
  private readonly budget: number;
  /** Estimated bytes of the table, in the query's account. */
  private readonly mem = currentScope().use("summarize");
  /** Whether the table can be spilled (it has keys and the aggregators can save their state). */
  private readonly spillable: boolean;
  /** The aggregates whose state grows with the input (their size is tracked), if any. */
  private readonly grows: boolean[] | undefined;
  private runs: GroupRuns | null = null;
  /** Set once every value goes to the runs as arguments (see GroupRuns). */
  private rawMode = false;
  /** The aggregates that do not merge but take numbers from columns (see recordNumbers). */
  private readonly takesNumbers: boolean[];
  /** Set by recordNumbers: those aggregates record their numbers rather than aggregate them. */
  private recording = false;

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
    this.budget = currentScope().budget;
    this.spillable = keys.length > 0 && this.defs.every((d) => {
      const a = d.make();
      return a.save !== undefined && a.restore !== undefined;
    });
    if (this.defs.some((d) => d.grows)) this.grows = this.defs.map((d) => d.grows === true);
    this.takesNumbers = this.defs.map((d) =>
      d.mergeable !== true && d.make().consumeNumbers !== undefined
    );
  }

  push(batch: Batch): void {
    for (let i = 0; i < batch.length; i++) this.consume(batch[i]);
    this.checkBudget();
  }

  /** A new group in the table, counted against the budget. */
  private newGroup(key: string, keys: Value[]): Group {
    if (this.table.size >= this.limit) this.overLimit = true;
    const group = new Group(
      keys,
      this.defs.map((d, i) =>
        this.recording && this.takesNumbers[i] ? new NumberRecorder() : d.make()
      ),
    );
    this.table.set(key, group);
    let b = GROUP_COST + AGG_COST * keys.length + key.length;
    for (let i = 0; i < keys.length; i++) b += valueSize(keys[i]);
    this.mem.add(b);
    return group;
  }

  /** Writes the table out sorted and starts an empty one. */
  private spill(): void {
    if (this.runs === null) {
      this.runs = new GroupRuns(
        this.keyExprs.length,
        this.defs,
        this.defs.every((d) => d.mergeable === true),
        this.budget,
      );
    }
    this.runs.addTable(this.table);
    this.table = new Map();
    this.mem.clear();
    this.rawMode = this.runs.rawMode;
  }

  /** After a spill with aggregates that do not merge: the value's arguments go to the runs. */
  private consumeRaw(v: Value, keys: Value[], key: string): void {
    const n = this.defs.length;
    const args = new Array<Value>(n);
    for (let i = 0; i < n; i++) {
      const where = this.wheres[i];
      if (where !== undefined && !passes(where, v)) {
        args[i] = MISSING;
        continue;
      }
      const arg = this.args[i];
      args[i] = arg === undefined ? TRUE : arg(v);
    }
    this.runs!.addRaw(keys, key, args);
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
    if (this.rawMode) {
      this.consumeRaw(v, keys.slice(), key);
      return;
    }
    const group = this.table.get(key) ?? this.newGroup(key, keys.slice());
    const aggs = group.aggs;
    const grows = this.grows;
    for (let i = 0; i < aggs.length; i++) {
      const where = this.wheres[i];
      if (where !== undefined && !passes(where, v)) continue;
      const arg = this.args[i];
      if (arg === undefined) {
        aggs[i].consume(TRUE);
        continue;
      }
      const a = arg(v);
      if (isMissing(a)) continue;
      if (grows !== undefined && grows[i]) {
        const before = aggs[i].size!();
        aggs[i].consume(a);
        this.mem.add(aggs[i].size!() - before);
      } else {
        aggs[i].consume(a);
      }
    }
  }

  /**
   * Counts n values whose keys are `keys` without the values themselves
   * (a column scan knows the keys and how many): only for a summarize
   * whose aggregates all take no argument and no where clause (count()).
   */
  addCounted(keys: readonly Value[], n: number): void {
    for (let i = 0; i < keys.length; i++) if (isQuiet(keys[i])) return;
    const key = groupKey(keys);
    const group = this.table.get(key) ?? this.newGroup(key, keys.slice());
    for (const agg of group.aggs) {
      if (agg.consumeN !== undefined) agg.consumeN(TRUE, n);
      else for (let k = 0; k < n; k++) agg.consume(TRUE);
    }
    this.checkBudget();
  }

  /**
   * The aggregators of the group with these keys, made when new, for
   * feeding values straight from columns (vector/summarize.ts); null when a
   * key is quiet (such values are dropped). Only while `direct`. The
   * group's name (groupKey of the keys), when the caller has it, saves
   * making it again.
   */
  groupOf(keys: readonly Value[], name?: string): Aggregator[] | null {
    for (let i = 0; i < keys.length; i++) if (isQuiet(keys[i])) return null;
    const key = name ?? groupKey(keys);
    return (this.table.get(key) ?? this.newGroup(key, keys.slice())).aggs;
  }

  /**
   * Offers numbers from a column to aggregate i of a group from groupOf
   * (Aggregator.consumeNumbers); false when it does not take them so.
   */
  feedNumbers(
    aggs: Aggregator[],
    i: number,
    f64: Float64Array,
    state: Uint8Array,
    rows: Int32Array,
    from: number,
    to: number,
  ): boolean {
    const a = aggs[i];
    if (a.consumeNumbers === undefined || (this.grows !== undefined && this.grows[i])) return false;
    a.consumeNumbers(f64, state, rows, from, to);
    return true;
  }

  /**
   * Offers aggregate i of a group strings or bytes of type t straight from a
   * column (Aggregator.consumeBinary), keeping the table's size estimate;
   * false where it does not take them so.
   */
  feedBinary(
    aggs: Aggregator[],
    i: number,
    t: Type,
    v: { data: Uint8Array; offsets: Int32Array; state: Uint8Array },
    rows: Int32Array,
    from: number,
    to: number,
  ): boolean {
    const a = aggs[i];
    if (a.consumeBinary === undefined) return false;
    if (this.grows !== undefined && this.grows[i]) {
      const before = a.size!();
      a.consumeBinary(t, v, rows, from, to);
      this.mem.add(a.size!() - before);
    } else a.consumeBinary(t, v, rows, from, to);
    return true;
  }

  /** Offers v to aggregate i of a group from groupOf, keeping the table's size estimate. */
  feed(aggs: Aggregator[], i: number, v: Value): void {
    if (this.grows !== undefined && this.grows[i]) {
      const before = aggs[i].size!();
      aggs[i].consume(v);
      this.mem.add(aggs[i].size!() - before);
    } else aggs[i].consume(v);
  }

  /** Whether groups can be fed directly: not once a spill sends values to the runs as they are. */
  get direct(): boolean {
    return !this.rawMode;
  }

  /**
   * Spills the table when it is over budget or the query over its memory
   * limit (also after groups were fed directly); a table that cannot spill
   * fails the query when the query is over its limit.
   */
  checkBudget(): void {
    if (!this.spillable) this.mem.check();
    else if (this.mem.shouldSpill(this.budget)) this.spill();
  }

  /** The aggregate definitions, in output order. */
  get aggregateDefs(): readonly AggregateDef[] {
    return this.defs;
  }

  /** Whether addCounted applies: every aggregate is argument-free and unconditioned. */
  get countsOnly(): boolean {
    return this.args.every((a) => a === undefined) && this.wheres.every((w) => w === undefined);
  }

  /**
   * Whether the groups of values summarized elsewhere can be merged in
   * (mergeGroups) with the same result as summarizing those values here:
   * every aggregate merges saved states exactly.
   */
  get merges(): boolean {
    return this.defs.every((d) => d.mergeable === true);
  }

  /**
   * Whether groups from elsewhere can be merged in when the aggregates
   * that do not merge are fed numbers from columns there (recordNumbers):
   * every aggregate merges, or takes numbers that can be offered again.
   */
  get mergesNumbers(): boolean {
    return this.defs.every((d, i) => d.mergeable === true || this.takesNumbers[i]);
  }

  /**
   * Before any value: the aggregates that do not merge keep the numbers
   * offered them from columns, in order, rather than aggregate them, for
   * savedGroups to send on; any other value offered them throws
   * NotRecordable (such a summarize is not ended: its groups go elsewhere).
   */
  recordNumbers(): void {
    this.recording = true;
  }

  /**
   * The table's groups, their keys and aggregators' saved states in
   * first-seen order (ZNG), and the numbers recorded (recordNumbers), in
   * the same order, for a summarize of the values before these to merge;
   * null once the table has spilled (the caller summarizes the values
   * there instead).
   */
  savedGroups(): { groups: Uint8Array; numbers: Float64Array | null } | null {
    if (this.runs !== null) return null;
    let numbers: Float64Array | null = null;
    if (this.recording && this.takesNumbers.some((t) => t)) {
      let n = 0;
      for (const g of this.table.values()) {
        for (const a of g.aggs) if (a instanceof NumberRecorder) n += a.length;
      }
      numbers = new Float64Array(n);
      let at = 0;
      for (const g of this.table.values()) {
        for (const a of g.aggs) {
          if (!(a instanceof NumberRecorder)) continue;
          numbers.set(a.numbers.subarray(0, a.length), at);
          at += a.length;
        }
      }
    }
    const groups = encodeGroups(this.table, this.keyExprs.length, this.defs.length);
    return { groups, numbers };
  }

  /**
   * Merges groups from savedGroups of a summarize over the values that come
   * after those summarized here (only where `merges`, or `mergesNumbers`
   * when that summarize recorded numbers): the same table, in the same
   * first-seen order, as summarizing those values next.
   */
  mergeGroups(saved: Uint8Array, numbers: Float64Array | null = null): void {
    const grows = this.grows;
    // Recorded numbers are offered as the column rows 0..n-1, every one a value.
    let rows: Int32Array | null = null, state: Uint8Array | null = null;
    if (numbers !== null) {
      rows = new Int32Array(numbers.length);
      for (let i = 0; i < rows.length; i++) rows[i] = i;
      state = new Uint8Array(numbers.length).fill(VALUE);
    }
    let at = 0;
    for (const row of decodeGroups(saved, this.keyExprs.length, this.defs.length)) {
      const group = this.table.get(row.key) ?? this.newGroup(row.key, row.keys);
      const aggs = group.aggs;
      for (let i = 0; i < aggs.length; i++) {
        if (numbers !== null && this.takesNumbers[i]) {
          const n = Number(row.states![i][0].body);
          aggs[i].consumeNumbers!(numbers, state!, rows!, at, at + n);
          at += n;
          continue;
        }
        const before = grows !== undefined && grows[i] ? aggs[i].size!() : 0;
        aggs[i].restore!(row.states![i]);
        if (grows !== undefined && grows[i]) this.mem.add(aggs[i].size!() - before);
      }
    }
    this.checkBudget();
  }

  override end(): Ended {
    return this.finish(this.emitAll());
  }

  /** Sends a record per group, a batch per slice. */
  private *emitAll(): Work {
    // The groups go on downstream from here.
    this.mem.clear();
    const runs = this.runs;
    if (runs !== null) {
      this.runs = null;
      try {
        yield* this.emitGroups(yield* runs.merge(this.table));
      } finally {
        this.table = new Map();
        runs.close();
      }
      return;
    }
    let groups: Iterable<Group> = this.table.values();
    if (this.overLimit) {
      groups = yield* sortSliced([...groups], (a, b) => compareGroupKeys(a.keys, b.keys));
    }
    this.table = new Map();
    yield* this.emitGroups(groups);
  }

  private *emitGroups(groups: Iterable<KeyedGroup>): Work {
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
        yield;
      }
    }
    if (out.length > 0 && !this.next.done) this.next.push(out);
  }
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
