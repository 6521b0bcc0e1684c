// The byte order of values with equal keys, from columns. A head's merge
// (head.ts) orders such values by their encoded bytes. A record's encoding is
// its fields' tagged encodings one after another, and a tag gives its
// field's length, so two records compare as their first fields whose
// encodings differ do — and those encodings can be made from the fields'
// columns, reading only the rows up to the tied ones. Values that are not
// records, or fields that are not primitive, are left to the caller (which
// decodes them).

import { Kind, type RecordType, typeUnder } from "../zed/types.ts";
import { compareBytes } from "../zed/bytes.ts";
import { NULL_ROW, VALUE, type Vector } from "../zed/vector.ts";
import { encodeTagged } from "../zed/zcode.ts";
import type { ObjectColumns } from "./columns/mod.ts";

/** A row of one of the objects: its index among them and row number. */
export interface TiedRow {
  obj: number;
  row: number;
}

type TypeIndex = Uint16Array | Uint32Array | null;

export class ColumnTies {
  /** Field columns read so far, by object, type index and field. */
  private vectors = new Map<string, Vector | null>();

  constructor(
    private cols: readonly ObjectColumns[],
    /** Per object: the record type index of its rows (up to the tied ones). */
    private types: ReadonlyMap<number, TypeIndex>,
    /** Per object: how many of its first rows to read (past its last tied row). */
    private upTo: ReadonlyMap<number, number>,
  ) {}

  /** The byte order of two rows' values, or undefined when the columns cannot tell it. */
  compare(x: TiedRow, y: TiedRow): number | undefined {
    const cx = this.cols[x.obj], cy = this.cols[y.obj];
    if (!cx.readsAlone || !cy.readsAlone) return undefined;
    const kx = this.typeOf(x), ky = this.typeOf(y);
    const rx = typeUnder(cx.types[kx]), ry = typeUnder(cy.types[ky]);
    if (rx.kind !== Kind.Record || ry.kind !== Kind.Record) return undefined;
    // Field names are not in the encoding: records of different types compare alike.
    const n = Math.min(rx.fields.length, ry.fields.length);
    for (let f = 0; f < n; f++) {
      const a = this.encoding(x, kx, rx, f);
      const b = a === null ? null : this.encoding(y, ky, ry, f);
      if (a === null || b === null) return undefined;
      const c = compareBytes(a, b);
      if (c !== 0) return c;
    }
    // One's fields' bytes begin the other's: the shorter first.
    return rx.fields.length - ry.fields.length;
  }

  private typeOf(r: TiedRow): number {
    const idx = this.types.get(r.obj);
    return idx === null || idx === undefined ? 0 : idx[r.row];
  }

  /** Encodings made so far (a sort asks for each row's several times). */
  private encodings = new Map<string, Uint8Array | null>();

  /** The tagged encoding of field f of a row, or null when no column holds it. */
  private encoding(r: TiedRow, k: number, rec: RecordType, f: number): Uint8Array | null {
    const id = `${r.obj}/${r.row}/${f}`;
    let e = this.encodings.get(id);
    if (e === undefined) this.encodings.set(id, e = this.encode(r, k, rec, f));
    return e;
  }

  private encode(r: TiedRow, k: number, rec: RecordType, f: number): Uint8Array | null {
    const field = rec.fields[f];
    // Primitives, and arrays or sets of them (list columns); nested records are left to rows.
    if (typeUnder(field.type).kind === Kind.Record) return null;
    const key = `${r.obj}/${k}/${f}`;
    let v = this.vectors.get(key);
    if (v === undefined) {
      const c = this.cols[r.obj];
      const ref = c.columnsOf([field.name]).find((x) =>
        x.type === field.type && x.covers.includes(k)
      );
      v = ref === undefined ? null : c.prefixVectorNow(ref, this.upTo.get(r.obj)!);
      this.vectors.set(key, v);
    }
    if (v === null) return null;
    const s = v.state[r.row];
    if (s === VALUE) return encodeTagged(field.type, v.body(r.row));
    return s === NULL_ROW ? encodeTagged(field.type, null) : null;
  }
}
