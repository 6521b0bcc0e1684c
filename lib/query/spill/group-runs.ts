// The spilled runs of a summarize. Rows are sorted by the group keys (the
// reference's order for spilled output: key by key, nulls and missing last,
// then by the group's key string so distinct groups that compare equal stay
// apart) and merged at the end, rows of one group in input order.
//
// A row is either a group's saved aggregator states (a spilled group table)
// or, once a table was spilled and some aggregate cannot merge saved states
// exactly (sum, avg, min and max, whose float arithmetic depends on order),
// one input value's aggregate arguments ("raw" rows). With mergeable
// aggregates every spill is a table and the merge restores the states of a
// group one after another; otherwise the first spill is the table and
// everything after it goes to raw rows, so the merge restores the one saved
// state into fresh aggregators and feeds them the rest of the group's
// arguments in input order. Either way the result equals the in-memory one.

import { compareValues } from "../../zed/compare.ts";
import { TypeUint64 } from "../../zed/types.ts";
import { Value } from "../../zed/value.ts";
import type { AggregateDef, Aggregator } from "../aggregates/registry.ts";
import { groupKey } from "../aggregates/value-key.ts";
import { isMissing } from "../runtime/values.ts";
import type { SpillFile, ValueIn, ValueOut } from "./file.ts";
import { encodeZng } from "../../formats/zng/writer.ts";
import { decodeZng } from "../../formats/zng/reader.ts";
import {
  ArraySource,
  compactNewest,
  compactRuns,
  type EntryCodec,
  FileSource,
  Merger,
  type RunSource,
  writeRun,
} from "./merge.ts";
import { valueSize } from "./size.ts";
import { sortSliced } from "../runtime/sliced-sort.ts";

/** A spilled row: the group's keys and key string, then saved states or arguments. */
export class Row {
  constructor(
    readonly keys: Value[],
    readonly key: string,
    /** Saved states, one list per aggregate (a table row), or undefined. */
    readonly states: Value[][] | undefined,
    /** Arguments, one per aggregate, MISSING when not offered (a raw row), or undefined. */
    readonly args: Value[] | undefined,
  ) {}
}

/** A group: its keys and aggregators (in summarize's table, or out of the merge). */
export interface KeyedGroup {
  readonly keys: Value[];
  readonly aggs: Aggregator[];
}

/** The order of the reference's spill merge: key by key, ascending, nulls (and missing) last. */
export function compareGroupKeys(a: readonly Value[], b: readonly Value[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i], y = b[i];
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

function compareRows(a: Row, b: Row): number {
  const c = compareGroupKeys(a.keys, b.keys);
  if (c !== 0) return c;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function readKeys(r: ValueIn, nk: number): Value[] | undefined {
  // (Rows without keys are read by count: decodeGroups.)
  if (nk === 0) return [];
  const first = r.next();
  if (first === undefined) return undefined;
  const keys = new Array<Value>(nk);
  keys[0] = first;
  for (let i = 1; i < nk; i++) keys[i] = must(r.next());
  return keys;
}

function must<T>(v: T | undefined): T {
  if (v === undefined) throw new Error("spill file ends inside a row");
  return v;
}

/** Table rows: keys, then per aggregate the number of state values and the values. */
function tableCodec(nk: number, na: number): EntryCodec<Row> {
  return {
    read(r) {
      const keys = readKeys(r, nk);
      if (keys === undefined) return undefined;
      const states = new Array<Value[]>(na);
      for (let i = 0; i < na; i++) {
        const n = Number(must(r.next()).body);
        const s = new Array<Value>(n);
        for (let k = 0; k < n; k++) s[k] = must(r.next());
        states[i] = s;
      }
      return new Row(keys, groupKey(keys), states, undefined);
    },
    write(w: ValueOut, row: Row) {
      for (const k of row.keys) w.write(k);
      for (const s of row.states!) {
        w.write(new Value(TypeUint64, s.length));
        for (const v of s) w.write(v);
      }
    },
  };
}

/** Raw rows: keys, then one argument per aggregate. */
function rawCodec(nk: number, na: number): EntryCodec<Row> {
  return {
    read(r) {
      const keys = readKeys(r, nk);
      if (keys === undefined) return undefined;
      const args = new Array<Value>(na);
      for (let i = 0; i < na; i++) args[i] = must(r.next());
      return new Row(keys, groupKey(keys), undefined, args);
    },
    write(w: ValueOut, row: Row) {
      for (const k of row.keys) w.write(k);
      for (const a of row.args!) w.write(a);
    },
  };
}

interface Run {
  file: SpillFile;
  level: number;
  raw: boolean;
}

export class GroupRuns {
  private runs: Run[] = [];
  private readonly table: EntryCodec<Row>;
  private readonly raw: EntryCodec<Row>;
  /** Raw rows held since the last raw spill, and their estimated bytes. */
  private held: Row[] = [];
  private heldBytes = 0;
  /** Set after the first table spill when the aggregates are not mergeable. */
  rawMode = false;

  constructor(
    nk: number,
    private readonly defs: readonly AggregateDef[],
    private readonly mergeable: boolean,
    private readonly budget: number,
  ) {
    this.table = tableCodec(nk, defs.length);
    this.raw = rawCodec(nk, defs.length);
  }

  /** Spills a group table (by key string): its groups' states, sorted. */
  addTable(groups: Map<string, KeyedGroup>): void {
    const rows = tableRows(groups);
    this.add({ file: writeRun(rows, this.table), level: 0, raw: false });
    if (!this.mergeable) this.rawMode = true;
  }

  /** Holds a raw row (keys and args are the caller's to give away), spilling past the budget. */
  addRaw(keys: Value[], key: string, args: Value[]): void {
    this.held.push(new Row(keys, key, undefined, args));
    let b = 64 + key.length;
    for (let i = 0; i < keys.length; i++) b += valueSize(keys[i]);
    for (let i = 0; i < args.length; i++) b += valueSize(args[i]);
    this.heldBytes += b;
    if (this.heldBytes > this.budget) this.spillRaw();
  }

  /**
   * The groups of every run and of the last table (whose aggregators it
   * saves), merged, in key order. What is held in memory is sorted first,
   * pausing in slices (sliced-sort.ts).
   */
  *merge(last: Map<string, KeyedGroup>): Generator<void, Iterable<KeyedGroup>, void> {
    const sources: RunSource<Row>[] = this.runs.map((r) =>
      new FileSource(r.file, r.raw ? this.raw.read : this.table.read)
    );
    sources.push(new ArraySource(yield* sortSliced(unsortedRows(last), compareRows)));
    if (this.held.length > 0) {
      sources.push(new ArraySource(yield* sortSliced(this.held, compareRows)));
      this.held = [];
    }
    return this.groups(sources);
  }

  /** The merged groups of the sources. */
  private *groups(sources: RunSource<Row>[]): Generator<KeyedGroup> {
    const merger = new Merger(sources, compareRows);
    try {
      let row = merger.next();
      while (row !== undefined) {
        const { keys, key } = row;
        const aggs = this.defs.map((d) => d.make());
        do {
          apply(row, aggs);
          row = merger.next();
        } while (row !== undefined && row.key === key);
        yield { keys, aggs };
      }
    } finally {
      merger.close();
    }
  }

  /** Removes every run file. */
  close(): void {
    for (const r of this.runs) r.file.remove();
    this.runs = [];
    this.held = [];
  }

  private spillRaw(): void {
    const rows = this.held.sort(compareRows); // stable: a group's rows stay in input order
    this.held = [];
    this.heldBytes = 0;
    this.add({ file: writeRun(rows, this.raw), level: 0, raw: true });
  }

  private add(run: Run): void {
    this.runs.push(run);
    compactNewest(this.runs, (a, b) => a.raw === b.raw, (group) => {
      const raw = group[0].raw;
      const file = compactRuns(group.map((r) => r.file), raw ? this.raw : this.table, compareRows);
      return { file, level: 0, raw };
    });
  }
}

/**
 * A table's groups, their keys and saved states in table order, as one ZNG
 * stream (for a summarize on another thread to merge: decodeGroups).
 */
export function encodeGroups(groups: Map<string, KeyedGroup>, nk: number, na: number): Uint8Array {
  // How many groups first: rows without keys have nothing to end on.
  const values: Value[] = [new Value(TypeUint64, groups.size)];
  const out: ValueOut = { write: (v) => values.push(v) };
  const codec = tableCodec(nk, na);
  for (const row of unsortedRows(groups)) codec.write(out, row);
  return encodeZng(values);
}

/** The groups encodeGroups wrote, in its order. */
export function decodeGroups(bytes: Uint8Array, nk: number, na: number): Row[] {
  const values = decodeZng(bytes);
  let i = 1;
  const input: ValueIn = { next: () => values[i++] };
  const codec = tableCodec(nk, na);
  const rows: Row[] = [];
  for (let n = Number(values[0].body); n > 0; n--) rows.push(must(codec.read(input)));
  return rows;
}

/** A table's groups as rows of saved states, sorted. */
function tableRows(groups: Map<string, KeyedGroup>): Row[] {
  return unsortedRows(groups).sort(compareRows);
}

/** A table's groups as rows of saved states, in table order. */
function unsortedRows(groups: Map<string, KeyedGroup>): Row[] {
  const rows: Row[] = [];
  for (const [key, g] of groups) {
    const states = g.aggs.map((a) => {
      const s: Value[] = [];
      a.save!(s);
      return s;
    });
    rows.push(new Row(g.keys, key, states, undefined));
  }
  return rows;
}

function apply(row: Row, aggs: Aggregator[]): void {
  if (row.states !== undefined) {
    for (let i = 0; i < aggs.length; i++) aggs[i].restore!(row.states[i]);
    return;
  }
  const args = row.args!;
  for (let i = 0; i < aggs.length; i++) {
    if (!isMissing(args[i])) aggs[i].consume(args[i]);
  }
}
