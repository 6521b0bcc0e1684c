// Columns built in the order values arrived, put in the object's order:
// row i of the result is row order[i] of the input.

import type { BuiltColumn, BuiltObjectColumns, FixedValues } from "./built.ts";
import { PREFIX } from "./build.ts";

export function permuteColumns(b: BuiltObjectColumns, order: Uint32Array): BuiltObjectColumns {
  const n = order.length;
  const sizes = new Uint32Array(n);
  const prefixes = new Uint8Array(n * PREFIX);
  for (let i = 0; i < n; i++) {
    const r = order[i];
    sizes[i] = b.sizes[r];
    prefixes.set(b.prefixes.subarray(r * PREFIX, (r + 1) * PREFIX), i * PREFIX);
  }
  let typeOf: Uint16Array | Uint32Array | null = null;
  if (b.typeOf !== null) {
    typeOf = b.typeOf instanceof Uint32Array ? new Uint32Array(n) : new Uint16Array(n);
    for (let i = 0; i < n; i++) typeOf[i] = b.typeOf[order[i]];
  }
  return {
    ...b,
    rows: n,
    typeOf,
    sizes,
    prefixes,
    columns: b.columns.map((c) => ({ ...c, column: permute(c.column, order) })),
  };
}

function gather<T extends FixedValues>(a: T, order: Uint32Array): T {
  const out = new (a.constructor as new (n: number) => T)(order.length);
  for (let i = 0; i < order.length; i++) out[i] = a[order[i]];
  return out;
}

function permute(c: BuiltColumn, order: Uint32Array): BuiltColumn {
  const n = order.length;
  const out: BuiltColumn = {
    enc: c.enc,
    length: n,
    valid: gather(c.valid, order),
    nullCount: c.nullCount,
  };
  if (c.dict !== undefined) {
    out.index = gather(c.index!, order);
    out.dict = c.dict;
    return out;
  }
  if (c.enc === "list") {
    // Each row's elements move with it: the child in the new order of elements.
    const offsets = new Int32Array(n + 1);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const r = order[i];
      total += c.offsets![r + 1] - c.offsets![r];
      offsets[i + 1] = total;
    }
    const childOrder = new Uint32Array(total);
    let k = 0;
    for (let i = 0; i < n; i++) {
      const r = order[i];
      for (let e = c.offsets![r]; e < c.offsets![r + 1]; e++) childOrder[k++] = e;
    }
    out.offsets = offsets;
    out.child = permute(c.child!, childOrder);
    return out;
  }
  if (c.values !== undefined) {
    out.values = gather(c.values, order);
    return out;
  }
  if (c.enc === "ip4" || c.enc === "ip16") {
    const w = c.enc === "ip4" ? 4 : 16;
    const data = new Uint8Array(n * w);
    for (let i = 0; i < n; i++) {
      const r = order[i];
      for (let q = 0; q < w; q++) data[i * w + q] = c.data![r * w + q];
    }
    out.data = data;
    return out;
  }
  if (c.offsets !== undefined) {
    const offsets = new Int32Array(n + 1);
    let total = 0;
    for (let i = 0; i < n; i++) {
      const r = order[i];
      total += c.offsets[r + 1] - c.offsets[r];
      offsets[i + 1] = total;
    }
    const src = c.data!, data = new Uint8Array(total);
    for (let i = 0; i < n; i++) {
      const r = order[i];
      const a = c.offsets[r], len = c.offsets[r + 1] - a, at = offsets[i];
      if (len < 32) { for (let q = 0; q < len; q++) data[at + q] = src[a + q]; }
      else data.set(src.subarray(a, a + len), at);
    }
    out.offsets = offsets;
    out.data = data;
  }
  return out;
}
