// The byte order of values with equal keys, from columns. A pool's merge (a
// head's, head.ts; a summary's, a top's or a tail's, keymerge.ts through
// poolorder.ts) orders such values by their encoded bytes. A record's encoding is
// its fields' tagged encodings one after another, and a tag gives its
// field's length, so two records compare as their first fields whose
// encodings differ do — and those encodings can be made from the fields'
// columns, reading only the rows up to the tied ones. Values that are not
// records, or fields that are not primitive, are left to the caller (which
// decodes them).

import { Kind, type RecordType, typeUnder } from "../zed/types.ts";
import { ByteWriter } from "../zed/bytes.ts";
import { NULL_ROW, VALUE, type Vector } from "../zed/vector.ts";
import { appendTagged } from "../zed/zcode.ts";
import type { ObjectColumns } from "./columns/mod.ts";
import { comparePrefixes } from "./headmerge.ts";

type TypeIndex = Uint16Array | Uint32Array | null;

class ColumnTies {
  /** Field columns read so far, by object, type index and field (undefined: not yet). */
  private vectors: (Vector | null | undefined)[][][] = [];

  constructor(
    private cols: readonly ObjectColumns[],
    /** Per object: the record type index of its rows (up to the tied ones). */
    private types: ReadonlyMap<number, TypeIndex>,
    /** Per object: how many of its first rows to read (past its last tied row). */
    private upTo: ReadonlyMap<number, number>,
  ) {}

  /**
   * The byte order of the values of row i of object a and row j of object b,
   * or undefined when the columns cannot tell it.
   */
  compare(a: number, i: number, b: number, j: number): number | undefined {
    const cx = this.cols[a], cy = this.cols[b];
    if (!cx.readsAlone || !cy.readsAlone) return undefined;
    const kx = this.typeOf(a, i), ky = this.typeOf(b, j);
    const rx = typeUnder(cx.types[kx]), ry = typeUnder(cy.types[ky]);
    if (rx.kind !== Kind.Record || ry.kind !== Kind.Record) return undefined;
    // Field names are not in the encoding: records of different types compare alike.
    const n = Math.min(rx.fields.length, ry.fields.length);
    const wa = this.a, wb = this.b;
    for (let f = 0; f < n; f++) {
      if (!this.encode(wa, a, i, kx, rx, f) || !this.encode(wb, b, j, ky, ry, f)) return undefined;
      const c = compareWritten(wa, wb);
      if (c !== 0) return c;
    }
    // One's fields' bytes begin the other's: the shorter first.
    return rx.fields.length - ry.fields.length;
  }

  private typeOf(obj: number, row: number): number {
    const idx = this.types.get(obj);
    return idx === null || idx === undefined ? 0 : idx[row];
  }

  /** Where the two rows' fields are encoded, one pair at a time. */
  private a = new ByteWriter(64);
  private b = new ByteWriter(64);

  /** Writes the tagged encoding of field f of a row to w alone; false when no column holds it. */
  private encode(
    w: ByteWriter,
    obj: number,
    row: number,
    k: number,
    rec: RecordType,
    f: number,
  ): boolean {
    const field = rec.fields[f];
    // Primitives, and arrays or sets of them (list columns); nested records are left to rows.
    if (typeUnder(field.type).kind === Kind.Record) return false;
    const byType = this.vectors[obj] ??= [];
    const byField = byType[k] ??= [];
    let v = byField[f];
    if (v === undefined) {
      const c = this.cols[obj];
      const ref = c.columnsOf([field.name]).find((x) =>
        x.type === field.type && x.covers.includes(k)
      );
      v = byField[f] = ref === undefined ? null : c.prefixVectorNow(ref, this.upTo.get(obj)!);
    }
    if (v === null) return false;
    const s = v.state[row];
    if (s !== VALUE && s !== NULL_ROW) return false;
    w.reset();
    appendTagged(w, field.type, s === VALUE ? v.body(row) : null);
    return true;
  }
}

/** The byte order of what two writers hold. */
function compareWritten(a: ByteWriter, b: ByteWriter): number {
  const x = a.buf, y = b.buf, m = a.pos, n = b.pos;
  const k = m < n ? m : n;
  for (let i = 0; i < k; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return m < n ? -1 : m > n ? 1 : 0;
}

/**
 * The pool order of rows with equal keys in different objects: by their
 * values' encoded bytes (in the pool's direction), from the bytes' prefixes
 * and sizes the columns keep where those decide, else field by field from
 * the columns (ColumnTies); undefined where neither can tell.
 */
export class RowTies {
  private constructor(
    private prefixes: (Uint8Array | null)[],
    private sizes: (Uint32Array | null)[],
    private byColumns: ColumnTies,
    private dir: number,
  ) {}

  /**
   * For rows [0, upTo) of the objects named in upTo (by their index in
   * cols), with the pool's direction.
   */
  static async of(
    cols: readonly ObjectColumns[],
    upTo: ReadonlyMap<number, number>,
    desc: boolean,
  ): Promise<RowTies> {
    const prefixes: (Uint8Array | null)[] = cols.map(() => null);
    const sizes: (Uint32Array | null)[] = cols.map(() => null);
    const types = new Map<number, TypeIndex>();
    for (const [o, n] of upTo) {
      prefixes[o] = await cols[o].prefixes(n);
      sizes[o] = await cols[o].sizesPrefix(n);
      types.set(o, await cols[o].typeIndexUpTo(n));
    }
    return new RowTies(prefixes, sizes, new ColumnTies(cols, types, upTo), desc ? -1 : 1);
  }

  /** The pool order of row i of object a and row j of object b (equal keys), or undefined. */
  compare(a: number, i: number, b: number, j: number): number | undefined {
    const pa = this.prefixes[a]!, pb = this.prefixes[b]!;
    const c = comparePrefixes(pa, i, this.sizes[a]![i], pb, j, this.sizes[b]![j]) ??
      this.byColumns.compare(a, i, b, j);
    return c === undefined ? undefined : c * this.dir;
  }
}
