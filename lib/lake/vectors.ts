// Columnar companions of data objects (ARCHITECTURE.md: "per-field vectors
// … built at load or on first use, immutable like the object"). A column
// holds one top-level field of every value of an object, in object order,
// dictionary-encoded: the distinct values (as the query's field access sees
// them: error("missing") where a value has no such field) and, per value,
// its dictionary index. Queries that only count by such fields read the
// columns instead of decoding the object.
//
// A column is built the first time a query asks for it, written beside the
// object under vectors/<object-id>/<field as hex>.zng (a ZNG stream of the
// dictionary followed by one bytes value: the little-endian uint32 indexes),
// and kept in a bounded in-memory cache. Objects never change, so neither
// do their columns.

import { decodeZng } from "../formats/zng/reader.ts";
import { encodeZng } from "../formats/zng/writer.ts";
import { valueKey } from "../query/aggregates/value-key.ts";
import { compileFieldPath } from "../query/expr/access.ts";
import { TypeBytes } from "../zed/types.ts";
import { encodeUtf8 } from "../zed/utf8.ts";
import { Value } from "../zed/value.ts";
import { toBase62 } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import type { DataObject } from "./objects.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import { newScanStats, PoolScan } from "./scan.ts";

export class Column {
  constructor(
    /** Distinct values, each as the field access yields it. */
    readonly dict: Value[],
    /** Per value of the object, its index in dict. */
    readonly index: Uint32Array,
  ) {}

  /** Rough memory held, for the cache's budget. */
  get size(): number {
    return this.index.byteLength + this.dict.length * 64;
  }
}

/** In-memory columns by `<object id>/<field>`, least recently used evicted first. */
const cache = new Map<string, Column>();
let cached = 0;
const CACHE_BUDGET = 256 << 20;

function remember(key: string, col: Column): void {
  cache.set(key, col);
  cached += col.size;
  for (const [k, c] of cache) {
    if (cached <= CACHE_BUDGET) break;
    cache.delete(k);
    cached -= c.size;
  }
}

function hex(s: string): string {
  let out = "";
  for (const b of encodeUtf8(s)) out += b.toString(16).padStart(2, "0");
  return out;
}

export function columnPath(lake: Lake, pool: PoolConfig, objectId: Uint8Array, field: string) {
  return `${lake.poolDir(pool.id)}/vectors/${toBase62(objectId)}/${hex(field)}.zng`;
}

/** The column of a top-level field of an object: cached, read, or built and saved. */
export async function column(
  lake: Lake,
  pool: PoolConfig,
  key: PoolKey,
  o: DataObject,
  field: string,
): Promise<Column> {
  const ck = toBase62(o.id) + "/" + field;
  const hit = cache.get(ck);
  if (hit !== undefined) {
    cache.delete(ck); // re-inserted below as most recently used
    cache.set(ck, hit);
    return hit;
  }
  const path = columnPath(lake, pool, o.id, field);
  let col = await readColumn(path, o.count);
  if (col === null) {
    col = await buildColumn(lake, pool, key, o, field);
    const bytes = encodeColumn(col);
    await lake.storage.createAtomic(path, (sink) => sink.write(bytes));
  }
  remember(ck, col);
  return col;
}

async function readColumn(path: string, count: number): Promise<Column | null> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  const vals = decodeZng(bytes);
  const last = vals.pop();
  if (last === undefined || !(last.body instanceof Uint8Array)) return null;
  const raw = last.body;
  if (raw.length !== count * 4) return null; // not this object's column: rebuild
  const index = new Uint32Array(count);
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  for (let i = 0; i < count; i++) index[i] = view.getUint32(4 * i, true);
  return new Column(vals, index);
}

function encodeColumn(col: Column): Uint8Array {
  const raw = new Uint8Array(col.index.length * 4);
  const view = new DataView(raw.buffer);
  for (let i = 0; i < col.index.length; i++) view.setUint32(4 * i, col.index[i], true);
  return encodeZng([...col.dict, new Value(TypeBytes, raw)]);
}

/** Reads the object (decoding only the field) and dictionary-encodes the field. */
async function buildColumn(
  lake: Lake,
  pool: PoolConfig,
  key: PoolKey,
  o: DataObject,
  field: string,
): Promise<Column> {
  const get = compileFieldPath([field]);
  const dict: Value[] = [];
  const ids = new Map<string, number>();
  const index = new Uint32Array(o.count);
  let n = 0;
  // Object order: a scan of this one object, unfiltered.
  const scan = new PoolScan(lake, pool, key, [o], {
    range: null,
    filter: null,
    fields: [field],
    stats: newScanStats(),
  });
  for (let b = await scan.read(); b !== null; b = await scan.read()) {
    for (const v of b) {
      const f = get(v);
      const k = valueKey(f.type, f.body);
      let id = ids.get(k);
      if (id === undefined) {
        id = dict.length;
        ids.set(k, id);
        dict.push(f);
      }
      index[n++] = id;
    }
  }
  if (n !== o.count) throw new Error(`column of ${toBase62(o.id)}: read ${n} of ${o.count} values`);
  return new Column(dict, index);
}
