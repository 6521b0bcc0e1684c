// The manifest of an object's columns, kept with the object in the catalog:
// what the Arrow file holds and where each column's buffers are in it, so a
// query plans from the catalog alone and reads just the bytes of the columns
// it needs.

import { parseZsonType } from "../../formats/zson/reader.ts";
import type { Type } from "../../zed/types.ts";
import type { Encoding } from "./built.ts";

/** A byte range of the Arrow file: [offset, length]. */
export type Range = [number, number];

export interface ColumnEntry {
  /** The leaf field path. */
  path: string[];
  /** ZSON text of the values' type. */
  type: string;
  /** Indexes of the record types that have the path with this type. */
  covers: number[];
  enc: Encoding;
  /** For lists: how the elements are stored. */
  elem?: Encoding;
  /** The column's buffers in the record batch (validity, then data or offsets and data, …). */
  bufs: Range[];
  /** For dictionary-encoded columns: the entries' buffers and how many there are. */
  dict?: { bufs: Range[]; length: number };
  /** For strings: the ASCII characters the values hold (see ColumnRef.ascii); absent in older lakes. */
  ascii?: string;
}

export interface ColumnsManifest {
  v: 1;
  /** Size of the Arrow file. */
  size: number;
  rows: number;
  /** ZSON text of each record type (by index). */
  types: string[];
  /** Per type: whether all of it is in columns. */
  complete: boolean[];
  /** Per type: how many rows have it. */
  typeCounts: number[];
  /** The per-row type index column (uint16 or uint32), absent with one type. */
  typeOf: { enc: "uint16" | "uint32"; bufs: Range[] } | null;
  /** The per-row body size column (uint32). */
  sizes: { bufs: Range[] };
  /** The per-row body prefix column (8 bytes each). */
  prefixes: { bufs: Range[] };
  columns: ColumnEntry[];
}

/** A column as queries see it: its path, type and the record types it covers. */
export interface ColumnRef {
  readonly path: readonly string[];
  readonly type: Type;
  readonly covers: readonly number[];
  readonly ascii?: string;
}

/** A manifest with its types parsed (cached per object). */
export class ObjectColumnsInfo {
  readonly types: Type[];
  /** Each column's reference, in manifest order. */
  readonly refs: ColumnRef[];
  private byPath = new Map<string, ColumnRef[]>();
  private entries = new Map<ColumnRef, ColumnEntry>();
  private derivedValues = new Map<string, unknown>();

  constructor(readonly manifest: ColumnsManifest) {
    const typeCache = new Map<string, Type>();
    const parse = (text: string) => {
      let t = typeCache.get(text);
      if (t === undefined) typeCache.set(text, t = parseZsonType(text));
      return t;
    };
    this.types = manifest.types.map(parse);
    this.refs = manifest.columns.map((c) => {
      const ref: ColumnRef = {
        path: c.path,
        type: parse(c.type),
        covers: c.covers,
        ascii: c.ascii,
      };
      this.entries.set(ref, c);
      const k = JSON.stringify(c.path);
      let list = this.byPath.get(k);
      if (list === undefined) this.byPath.set(k, list = []);
      list.push(ref);
      return ref;
    });
  }

  /** The columns of a leaf path (one per type the path has), possibly none. */
  refsOf(path: readonly string[]): ColumnRef[] {
    return this.byPath.get(JSON.stringify(path)) ?? EMPTY;
  }

  /** What make() works out from the object's metadata alone, made once per key. */
  derived<T>(key: string, make: () => T): T {
    if (this.derivedValues.has(key)) return this.derivedValues.get(key) as T;
    const v = make();
    this.derivedValues.set(key, v);
    return v;
  }

  entryOf(ref: ColumnRef): ColumnEntry {
    return this.entries.get(ref)!;
  }

  typeOf(c: ColumnEntry): Type {
    return this.refs[this.manifest.columns.indexOf(c)].type;
  }
}

const EMPTY: ColumnRef[] = [];

export function parseManifest(text: string): ColumnsManifest | null {
  try {
    const m = JSON.parse(text) as ColumnsManifest;
    return m.v === 1 ? m : null;
  } catch {
    return null;
  }
}
