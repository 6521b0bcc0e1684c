// Columns laid out in an object's order, ready to be written as Arrow
// (arrowfile.ts): what the builder (build.ts) produces.

import type { Type } from "../../zed/types.ts";

/** How a column's values are stored (its Arrow type). */
export type Encoding =
  | "int8"
  | "int16"
  | "int32"
  | "int64"
  | "uint8"
  | "uint16"
  | "uint32"
  | "uint64"
  | "float32"
  | "float64"
  | "time"
  | "duration"
  | "bool"
  | "string"
  | "bytes"
  | "ip4"
  | "ip16"
  | "ip"
  | "null"
  | "list";

export type FixedValues =
  | Int8Array
  | Int16Array
  | Int32Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | BigInt64Array
  | Float32Array
  | Float64Array;

export interface BuiltColumn {
  enc: Encoding;
  /** Rows. */
  length: number;
  /** Per row: 1 when it holds a value (not null, not absent). */
  valid: Uint8Array;
  nullCount: number;
  /** Fixed-width values, one per row (zero where not valid); bools one byte each. */
  values?: FixedValues;
  /** Variable-width values: row i is data[offsets[i], offsets[i+1]); ips of one family: data only. */
  offsets?: Int32Array;
  data?: Uint8Array;
  /** Dictionary encoding: per row its entry; the entries are `dict` (no nulls). */
  index?: Int32Array;
  dict?: BuiltColumn;
  /** Lists: row i's elements are child rows offsets[i] to offsets[i+1]. */
  child?: BuiltColumn;
}

export interface BuiltObjectColumns {
  rows: number;
  types: Type[];
  /** Per type: whether every field is in columns (and no nested record was ever null). */
  complete: boolean[];
  /** Per type: how many rows have it. */
  typeCounts: number[];
  /** Per row (object order): its type's index; null when there is one type. */
  typeOf: Uint16Array | Uint32Array | null;
  /** Per row: the size of its value's body (QueryStats count these bytes). */
  sizes: Uint32Array;
  /**
   * Per row: the first 8 bytes of its value's body (zeros past its end), so
   * equal keys can often be ordered by their values' bytes without the rows.
   */
  prefixes: Uint8Array;
  columns: { path: string[]; type: Type; covers: number[]; column: BuiltColumn }[];
}
