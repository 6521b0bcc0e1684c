// Single rows of a column, read alone: for a binary search over an object's
// key column (count.ts), which needs some forty rows of a column that may
// hold millions. Each row takes a few small reads (its type, validity bit and
// value, or its offsets and bytes) instead of the whole column; a column
// already in the cache is read from there.

import { Value } from "../../zed/value.ts";
import { BinaryVector, VALUE, type Vector } from "../../zed/vector.ts";
import type { Type } from "../../zed/types.ts";
import type { ColumnEntry, ColumnRef, Range } from "./manifest.ts";
import { Buffers, plainVector, WIDTHS } from "./decode.ts";
import type { ObjectColumns } from "./reader.ts";

/** Row i's value, or null when the row has none (null, or no such field). */
export type ColumnProbe = (i: number) => Value | null;

/** A probe of a column; undefined where rows cannot be read alone (then read the vector). */
export function columnProbe(cols: ObjectColumns, c: ColumnRef): ColumnProbe | undefined {
  const cached = cols.cachedVector(c);
  if (cached !== undefined) return vectorProbe(cached);
  if (!cols.readsAlone) return undefined;
  const entry = cols.info.entryOf(c);
  const type = cols.info.typeOf(entry);
  const value = valueReader(cols, entry, type);
  if (value === undefined) return undefined;
  const hasType = typeTest(cols, entry);
  const valid = validityTest(cols, entry.bufs[0]);
  // Rows probed before are remembered: searches for the same or nearby
  // ranges probe the same rows (the first steps of every search alike).
  let seen = probed.get(cols);
  if (seen === undefined) probed.set(cols, seen = new Map());
  let rows = seen.get(c);
  if (rows === undefined) seen.set(c, rows = new Map());
  const known = rows;
  return (i) => {
    let v = known.get(i);
    if (v === undefined) {
      v = hasType(i) && valid(i) ? new Value(type, value(i)) : null;
      if (known.size >= PROBED_MAX) known.clear();
      known.set(i, v);
    }
    return v;
  };
}

/** Rows probed so far, per object's columns and column (at most PROBED_MAX per column). */
const probed = new WeakMap<ObjectColumns, Map<ColumnRef, Map<number, Value | null>>>();
const PROBED_MAX = 4096;

function vectorProbe(v: Vector): ColumnProbe {
  return (i) => v.state[i] === VALUE ? new Value(v.type, v.body(i)) : null;
}

/** Whether row i's record type has the column. */
function typeTest(cols: ObjectColumns, entry: ColumnEntry): (i: number) => boolean {
  const t = cols.info.manifest.typeOf;
  if (t === null) return () => entry.covers.includes(0);
  const covered = new Set(entry.covers);
  const width = t.enc === "uint32" ? 4 : 2;
  const [off] = t.bufs[1];
  return (i) => {
    const b = cols.readAt(off + i * width, width);
    const k = width === 4 ? (b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24) >>> 0 : b[0] | b[1] << 8;
    return covered.has(k);
  };
}

/** Whether row i's validity bit is set (all rows are valid without a bitmap). */
function validityTest(cols: ObjectColumns, [off, len]: Range): (i: number) => boolean {
  if (len === 0) return () => true;
  return (i) => (cols.readAt(off + (i >> 3), 1)[0] & (1 << (i & 7))) !== 0;
}

/** Row i's body (the row has a value), or undefined for encodings not read this way. */
function valueReader(
  cols: ObjectColumns,
  entry: ColumnEntry,
  type: Type,
): ((i: number) => Value["body"]) | undefined {
  const one = Uint8Array.of(VALUE);
  if (entry.dict !== undefined) {
    let entries: Vector | null = null;
    const [off] = entry.bufs[1];
    return (i) => {
      entries ??= cols.entriesOf(entry);
      const b = cols.readAt(off + i * 4, 4);
      return entries.body(b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24);
    };
  }
  const width = WIDTHS[entry.enc];
  if (width !== undefined) {
    const [off] = entry.bufs[1];
    return (i) => {
      const at = off + i * width;
      const bytes = cols.readAt(at, width);
      return plainVector(type, entry.enc, one, new Buffers(bytes, at, [[at, width]])).body(0);
    };
  }
  if (entry.enc === "string" || entry.enc === "bytes" || entry.enc === "ip") {
    const [offsets] = entry.bufs[1];
    const [data] = entry.bufs[2];
    return (i) => {
      const o = cols.readAt(offsets + i * 4, 8);
      const a = o[0] | o[1] << 8 | o[2] << 16 | o[3] << 24;
      const b = o[4] | o[5] << 8 | o[6] << 16 | o[7] << 24;
      const bytes = cols.readAt(data + a, b - a);
      const v = new BinaryVector(type, one, Int32Array.of(0, b - a), bytes, entry.enc === "string");
      return v.body(0);
    };
  }
  return undefined;
}
