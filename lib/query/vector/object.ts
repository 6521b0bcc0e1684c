// What the vectorized operators see of a data object: its record types, the
// columns it has (by leaf path), each row's type, and the columns' vectors.
// The lake provides it from an object's Arrow columns (lake/columns/).

import type { Type } from "../../zed/types.ts";
import type { Vector } from "../../zed/vector.ts";

/** A column of an object: one leaf path with one type, over the record types it covers. */
export interface ColumnRef {
  readonly path: readonly string[];
  readonly type: Type;
  /** Indexes (into the object's types) of the record types that have it. */
  readonly covers: readonly number[];
  /**
   * For a column of strings: the ASCII characters its values (or its
   * dictionary's entries) hold, as asciiSetOf (asciiset.ts) gives them;
   * absent where not known.
   */
  readonly ascii?: string;
}

export interface ColumnarObject {
  readonly rows: number;
  /** The types of the object's values, by index. */
  readonly types: readonly Type[];
  /** Per type: whether all of its values' fields are in columns. */
  readonly complete: readonly boolean[];
  /** Per type: how many rows have it. */
  readonly typeCounts: readonly number[];
  /** The columns of a leaf path (one per type the path has in the object). */
  columnsOf(path: readonly string[]): readonly ColumnRef[];
  /** Every column. */
  columns(): readonly ColumnRef[];
  /**
   * What make() works out from the object's types and columns alone (not
   * their data), kept with the object: made once per key.
   */
  derived<T>(key: string, make: () => T): T;
  /**
   * What make() works out from a column's data (its whole vector), kept in
   * the column cache as the column is, its bytes counted against the
   * cache's budget: made again once dropped.
   */
  fromColumn<T extends { readonly bytes: number }>(c: ColumnRef, kind: string, make: () => T): T;
  /** Each row's type index; null when the object has one type. */
  typeIndex(): Promise<Uint16Array | Uint32Array | null>;
  vector(c: ColumnRef): Promise<Vector>;
  /** A column's dictionary entries (the same vector its DictVector has), or null without one. */
  dictionary(c: ColumnRef): Promise<Vector | null>;
  /** Each row's value size (what QueryStats count). */
  sizes(): Promise<Uint32Array>;
}
