// Builds the columns of a data object from its values' ZNG bodies, in the
// object's order: one column per leaf field path and type (nested records
// flattened to their paths), each row's record type noted. The bodies are
// read where the sort buffer keeps them; no values are made.
//
// A field of a type columns do not hold (unions, maps, records inside
// arrays, nets, type values, errors, enums) gets no column and marks its
// record type incomplete, as does a nested record that is ever null (its
// leaves read as null, which field access agrees with, but the record itself
// cannot be rebuilt from them). Values that are not records have no columns.

import {
  ID_BOOL,
  ID_BYTES,
  ID_DURATION,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  ID_INT8,
  ID_IP,
  ID_NULL,
  ID_STRING,
  ID_TIME,
  ID_UINT16,
  ID_UINT32,
  ID_UINT64,
  ID_UINT8,
  Kind,
  type RecordType,
  type Type,
  typeUnder,
} from "../../zed/types.ts";
import type { BuiltObjectColumns } from "./built.ts";
import {
  BinaryWriter,
  BoolWriter,
  type ColumnWriter,
  FloatWriter,
  Int64Writer,
  IntWriter,
  ListWriter,
  NullWriter,
  WriterKind,
} from "./writers.ts";

/** Where the values' encoded bodies are: value i's body is bufs[chunk[i]][start[i], end[i]). */
export interface EncodedValues {
  readonly types: readonly Type[];
  readonly bufs: readonly Uint8Array[];
  readonly chunk: ArrayLike<number>;
  readonly start: ArrayLike<number>;
  readonly end: ArrayLike<number>;
}

const SKIP = 0, LEAF = 1, NESTED = 2;

/** Bytes of each value's body kept as its prefix (built.ts). */
export const PREFIX = 8;

/** How a record body's fields reach their columns. */
interface Plan {
  /** Per field: SKIP, LEAF or NESTED. */
  what: Uint8Array;
  writers: (ColumnWriter | null)[];
  nested: (Plan | null)[];
}

interface Slot {
  path: string[];
  type: Type;
  writer: ColumnWriter;
  covers: number[];
}

interface TypeEntry {
  index: number;
  type: Type;
  plan: Plan | null;
  complete: boolean;
}

/** The columns of values, in the order given (order[i] is the value of row i). */
export function buildColumns(vals: EncodedValues, order: Uint32Array): BuiltObjectColumns {
  const b = new ColumnsBuilder(order.length);
  b.add(vals, order, 0, order.length);
  return b.finish();
}

/**
 * Columns built incrementally: each add() appends rows (value order[k] of
 * vals for k in [from, to), or value k itself without an order), and
 * finish() lays out what was added. (A loader's values can be added in the
 * order they arrive, while more arrive, and put in the object's order at
 * the end: permute.ts.)
 */
export class ColumnsBuilder {
  private types = new Map<Type, TypeEntry>();
  private entries: TypeEntry[] = [];
  private slots = new Map<string, Slot>();
  private slotList: Slot[] = [];
  private current!: TypeEntry;
  private rows = 0;
  private typeIdx: Uint32Array;
  private sizes: Uint32Array;
  private prefixes: Uint8Array;

  /** cap: the rows expected (arrays grow past it). */
  constructor(private cap: number) {
    this.cap = Math.max(cap, 16);
    this.typeIdx = new Uint32Array(this.cap);
    this.sizes = new Uint32Array(this.cap);
    this.prefixes = new Uint8Array(this.cap * PREFIX);
  }

  private room(n: number): void {
    let cap = this.cap;
    while (cap < n) cap *= 2;
    if (cap === this.cap) return;
    const t = new Uint32Array(cap), z = new Uint32Array(cap), p = new Uint8Array(cap * PREFIX);
    t.set(this.typeIdx);
    z.set(this.sizes);
    p.set(this.prefixes);
    this.typeIdx = t;
    this.sizes = z;
    this.prefixes = p;
    this.cap = cap;
  }

  add(vals: EncodedValues, order: Uint32Array | null, from: number, to: number): void {
    this.room(this.rows + (to - from));
    const { bufs, chunk, start, end } = vals;
    const typeIdx = this.typeIdx, sizes = this.sizes, prefixes = this.prefixes;
    for (let k = from; k < to; k++) {
      const i = order === null ? k : order[k];
      const row = this.rows++;
      const s = start[i], e = end[i];
      sizes[row] = e - s;
      const b = bufs[chunk[i]], m = Math.min(PREFIX, e - s);
      for (let q = 0; q < m; q++) prefixes[row * PREFIX + q] = b[s + q];
      const t = vals.types[i];
      let te = this.types.get(t);
      if (te === undefined) te = this.newType(t);
      typeIdx[row] = te.index;
      if (te.plan === null) continue;
      this.current = te;
      if (e > s) this.walk(b, s, te.plan, row);
      else if (te.plan.what.length > 0) te.complete = false; // a null record
    }
  }

  finish(): BuiltObjectColumns {
    const n = this.rows;
    const typeIdx = this.typeIdx.subarray(0, n);
    const typeCounts = new Array<number>(this.entries.length).fill(0);
    for (let row = 0; row < n; row++) typeCounts[typeIdx[row]]++;
    let typeOf: Uint16Array | Uint32Array | null = null;
    if (this.entries.length > 1) {
      typeOf = this.entries.length > 0xffff ? typeIdx : Uint16Array.from(typeIdx);
    }
    return {
      rows: n,
      types: this.entries.map((e) => e.type),
      complete: this.entries.map((e) => e.complete),
      typeCounts,
      typeOf,
      sizes: this.sizes.subarray(0, n),
      prefixes: this.prefixes.subarray(0, n * PREFIX),
      columns: this.slotList.map((s) => ({
        path: s.path,
        type: s.type,
        covers: s.covers,
        column: s.writer.finish(n),
      })),
    };
  }

  /** Reads a record body at b[p] (its fields' tags and bodies) into the columns. */
  private walk(b: Uint8Array, p: number, plan: Plan, row: number): number {
    const what = plan.what;
    for (let f = 0; f < what.length; f++) {
      let tag = b[p++];
      if (tag >= 0x80) {
        let shift = 7;
        tag &= 0x7f;
        for (;;) {
          const x = b[p++];
          tag += (x & 0x7f) * 2 ** shift;
          if (x < 0x80) break;
          shift += 7;
        }
      }
      if (tag === 0) {
        // A null field: its leaves stay invalid; a null record makes its type incomplete.
        if (what[f] === NESTED) this.current.complete = false;
        continue;
      }
      const len = tag - 1;
      const w = what[f];
      if (w === LEAF) {
        const wr = plan.writers[f]!;
        // A call site per class keeps each call monomorphic.
        switch (wr.kind) {
          case WriterKind.Int:
            (wr as IntWriter).put(b, p, len, row);
            break;
          case WriterKind.Int64:
            (wr as Int64Writer).put(b, p, len, row);
            break;
          case WriterKind.Float:
            (wr as FloatWriter).put(b, p, len, row);
            break;
          case WriterKind.Bool:
            (wr as BoolWriter).put(b, p, len, row);
            break;
          case WriterKind.Binary:
            (wr as BinaryWriter).put(b, p, len, row);
            break;
          default:
            wr.put(b, p, len, row);
        }
      } else if (w === NESTED) {
        this.walk(b, p, plan.nested[f]!, row);
      }
      p += len;
    }
    return p;
  }

  private newType(t: Type): TypeEntry {
    const te: TypeEntry = { index: this.entries.length, type: t, plan: null, complete: true };
    const rec = typeUnder(t);
    if (rec.kind === Kind.Record) te.plan = this.plan(te, rec, []);
    else te.complete = false;
    this.types.set(t, te);
    this.entries.push(te);
    return te;
  }

  private plan(te: TypeEntry, rec: RecordType, prefix: string[]): Plan {
    const n = rec.fields.length;
    const plan: Plan = { what: new Uint8Array(n), writers: new Array(n), nested: new Array(n) };
    rec.fields.forEach((f, i) => {
      plan.writers[i] = null;
      plan.nested[i] = null;
      const path = [...prefix, f.name];
      const u = typeUnder(f.type);
      if (u.kind === Kind.Record) {
        plan.what[i] = NESTED;
        plan.nested[i] = this.plan(te, u, path);
        return;
      }
      const slot = this.slot(path, f.type);
      if (slot === null) {
        plan.what[i] = SKIP;
        te.complete = false;
        return;
      }
      slot.covers.push(te.index);
      plan.what[i] = LEAF;
      plan.writers[i] = slot.writer;
    });
    return plan;
  }

  private slot(path: string[], type: Type): Slot | null {
    const key = JSON.stringify(path) + "#" + type.id;
    let s = this.slots.get(key);
    if (s !== undefined) return s;
    const writer = writerFor(type, this.cap);
    if (writer === null) return null;
    s = { path, type, writer, covers: [] };
    this.slots.set(key, s);
    this.slotList.push(s);
    return s;
  }
}

/** A writer for values of type t, or null when t is not held in columns. */
function writerFor(t: Type, rows: number): ColumnWriter | null {
  const u = typeUnder(t);
  switch (u.kind) {
    case Kind.Primitive:
      return primitiveWriter(u.id, rows, true);
    case Kind.Array:
    case Kind.Set: {
      const e = typeUnder(u.elem);
      if (e.kind !== Kind.Primitive) return null;
      // Elements are not dictionary-encoded (searches read them as they are).
      const child = primitiveWriter(e.id, rows, false);
      return child === null ? null : new ListWriter(child, rows);
    }
  }
  return null;
}

function primitiveWriter(id: number, rows: number, dict: boolean): ColumnWriter | null {
  switch (id) {
    case ID_INT8:
      return new IntWriter("int8", rows, dict);
    case ID_INT16:
      return new IntWriter("int16", rows, dict);
    case ID_INT32:
      return new IntWriter("int32", rows, dict);
    case ID_UINT8:
      return new IntWriter("uint8", rows, dict);
    case ID_UINT16:
      return new IntWriter("uint16", rows, dict);
    case ID_UINT32:
      return new IntWriter("uint32", rows, dict);
    case ID_INT64:
      return new Int64Writer("int64", rows, dict);
    case ID_UINT64:
      return new Int64Writer("uint64", rows, dict);
    case ID_TIME:
      return new Int64Writer("time", rows, dict);
    case ID_DURATION:
      return new Int64Writer("duration", rows, dict);
    case ID_FLOAT32:
      return new FloatWriter("float32", rows);
    case ID_FLOAT64:
      return new FloatWriter("float64", rows);
    case ID_BOOL:
      return new BoolWriter(rows);
    case ID_STRING:
      return new BinaryWriter("string", rows, dict);
    case ID_BYTES:
      return new BinaryWriter("bytes", rows, dict);
    case ID_IP:
      return new BinaryWriter("ip", rows, dict);
    case ID_NULL:
      return new NullWriter(rows);
  }
  // net and type values stay in the rows.
  return null;
}
