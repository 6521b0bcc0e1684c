// Data objects: immutable ZNG files of sorted values, and their metadata in
// the catalog (lake-api.md §7.4, §15.3). Metadata never changes once written,
// so parsed copies are cached by id.

import { LruMap } from "../lru.ts";
import { formatZson } from "../formats/zson/formatter.ts";
import { parseZsonValue } from "../formats/zson/reader.ts";
import { NULL } from "../query/mod.ts";
import type { Value } from "../zed/value.ts";
import type { Catalog } from "./catalog/catalog.ts";
import { type KSUID, toHex } from "./ksuid.ts";
import { type ColumnsManifest, parseManifest } from "./columns/mod.ts";

/**
 * The keys of an object's values, for pruning: the least and greatest
 * non-null key in value order. `mixed` when the non-null keys are of more than
 * one type (no pruning then); lo and hi are null when every key is null.
 */
export interface KeySpan {
  lo: Value | null;
  hi: Value | null;
  mixed: boolean;
}

export interface DataObject {
  id: KSUID;
  /** Key of the first value written (pool order); may be null. */
  first: Value;
  /** Key of the last value written; null when the object has null keys. */
  last: Value;
  span: KeySpan;
  /** Number of values. */
  count: number;
  /** Size of the ZNG file in bytes. */
  size: number;
  /** Total size of the values' bodies (what QueryStats count as bytes read). */
  bytes: number;
  /** What the object's columns file holds, or null when it has none (yet). */
  columns: ColumnsManifest | null;
}

/** A point where a new ZNG stream starts in an object. */
export interface SeekEntry {
  /** Key of the first value of the stream. */
  key: Value;
  /** Values before the stream. */
  count: number;
  /** Byte offset of the stream. */
  offset: number;
}

interface ObjectRow {
  id: Uint8Array;
  first: string;
  last: string;
  key_lo: string | null;
  key_hi: string | null;
  key_mixed: number;
  count: number;
  size: number;
  bytes: number | null;
  vector: string | null;
}

const objectCache = new Map<string, DataObject>();
const seekCache = new LruMap<string, SeekEntry[]>(4096);

function zson(v: Value): string {
  return formatZson(v.type, v.body);
}

function parseKey(text: string): Value {
  return text === "null" ? NULL : parseZsonValue(text);
}

function fromRow(r: ObjectRow): DataObject {
  return {
    id: r.id,
    first: parseKey(r.first),
    last: parseKey(r.last),
    span: {
      lo: r.key_lo === null ? null : parseKey(r.key_lo),
      hi: r.key_hi === null ? null : parseKey(r.key_hi),
      mixed: r.key_mixed !== 0,
    },
    count: r.count,
    size: r.size,
    // Lakes from before body sizes were kept: estimated from the file's size.
    bytes: r.bytes ?? r.size,
    columns: r.vector === null ? null : parseManifest(r.vector),
  };
}

/** Records an object and its seek index (inside the caller's transaction). */
export function insertObject(
  cat: Catalog,
  poolId: KSUID,
  o: DataObject,
  seek: SeekEntry[],
): void {
  cat.run(
    `INSERT INTO objects (id, pool_id, first, last, key_lo, key_hi, key_mixed, count, size,
       bytes, vector)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    o.id,
    poolId,
    zson(o.first),
    zson(o.last),
    o.span.lo === null ? null : zson(o.span.lo),
    o.span.hi === null ? null : zson(o.span.hi),
    o.span.mixed ? 1 : 0,
    o.count,
    o.size,
    o.bytes,
    o.columns === null ? null : JSON.stringify(o.columns),
  );
  seek.forEach((e, seq) => {
    cat.run(
      'INSERT INTO seek_index (object_id, seq, key, count, "offset") VALUES (?, ?, ?, ?, ?)',
      o.id,
      seq,
      zson(e.key),
      e.count,
      e.offset,
    );
  });
}

/**
 * An object's metadata as plain data, as the catalog holds it: what a
 * worker thread that wrote an object hands to the thread that commits it.
 */
export interface ObjectRecord {
  row: ObjectRow;
  seek: { key: string; count: number; offset: number }[];
}

export function objectRecord(o: DataObject, seek: SeekEntry[]): ObjectRecord {
  return {
    row: {
      id: o.id,
      first: zson(o.first),
      last: zson(o.last),
      key_lo: o.span.lo === null ? null : zson(o.span.lo),
      key_hi: o.span.hi === null ? null : zson(o.span.hi),
      key_mixed: o.span.mixed ? 1 : 0,
      count: o.count,
      size: o.size,
      bytes: o.bytes,
      vector: o.columns === null ? null : JSON.stringify(o.columns),
    },
    seek: seek.map((e) => ({ key: zson(e.key), count: e.count, offset: e.offset })),
  };
}

export function fromObjectRecord(r: ObjectRecord): { object: DataObject; seek: SeekEntry[] } {
  return {
    object: fromRow(r.row),
    seek: r.seek.map((e) => ({ key: parseKey(e.key), count: e.count, offset: e.offset })),
  };
}

const OBJECT_COLUMNS = "id, first, last, key_lo, key_hi, key_mixed, count, size, bytes, vector";

/** The metadata of the objects with these ids, in the same order; absent ones are left out. */
export function getObjects(cat: Catalog, ids: KSUID[]): DataObject[] {
  const out: DataObject[] = [];
  for (const id of ids) {
    const key = toHex(id);
    let o = objectCache.get(key);
    if (o === undefined) {
      const r = cat.get<ObjectRow>(`SELECT ${OBJECT_COLUMNS} FROM objects WHERE id = ?`, id);
      if (r === undefined) continue;
      o = fromRow(r);
      objectCache.set(key, o);
    }
    out.push(o);
  }
  return out;
}

/** The objects of a branch tip. */
export function tipObjects(cat: Catalog, poolId: KSUID, branch: string): DataObject[] {
  const ids = cat.all<{ object_id: Uint8Array }>(
    "SELECT object_id FROM tip_objects WHERE pool_id = ? AND branch = ?",
    poolId,
    branch,
  ).map((r) => r.object_id);
  return getObjects(cat, ids);
}

/**
 * Branch tips' object lists by the commit they are the tip at (what a
 * commit holds never changes): the queries of a branch between its commits
 * read no catalog rows for its objects (~0.07 ms a query warm over 32
 * objects, ~0.35 in a server's first queries).
 */
const tipsByCommit = new LruMap<string, DataObject[]>(64);

/**
 * The objects of a branch tip at commit, the branch's commit read just
 * before. A list read from the catalog is kept only when stillAt() says
 * the branch had not moved on while it was read.
 */
export function tipObjectsAt(
  cat: Catalog,
  poolId: KSUID,
  branch: string,
  commit: KSUID,
  stillAt: () => boolean,
): DataObject[] {
  const key = toHex(commit);
  let objects = tipsByCommit.get(key);
  if (objects === undefined) {
    objects = tipObjects(cat, poolId, branch);
    if (!stillAt()) return objects;
    tipsByCommit.set(key, objects);
  }
  return objects.slice();
}

/** The seek index of an object (at least one entry for a non-empty object). */
export function seekIndex(cat: Catalog, id: KSUID): SeekEntry[] {
  const key = toHex(id);
  let entries = seekCache.get(key);
  if (entries === undefined) {
    entries = cat.all<{ key: string; count: number; offset: number }>(
      'SELECT key, count, "offset" FROM seek_index WHERE object_id = ? ORDER BY seq',
      id,
    ).map((r) => ({ key: parseKey(r.key), count: r.count, offset: r.offset }));
    seekCache.set(key, entries);
  }
  return entries;
}

/** Records the columns written for an object made before columns were (the upgrade). */
export function setObjectColumns(cat: Catalog, id: KSUID, manifest: ColumnsManifest): void {
  cat.run("UPDATE objects SET vector = ? WHERE id = ?", JSON.stringify(manifest), id);
  const o = objectCache.get(toHex(id));
  if (o !== undefined) o.columns = manifest;
}

/** Objects of a pool that have no columns yet. */
export function objectsWithoutColumns(cat: Catalog, poolId: KSUID): DataObject[] {
  const ids = cat.all<{ id: Uint8Array }>(
    "SELECT id FROM objects WHERE pool_id = ? AND vector IS NULL",
    poolId,
  ).map((r) => r.id);
  return getObjects(cat, ids);
}

/** Forgets cached metadata of objects (when their pool is dropped). */
export function forgetObjects(ids: KSUID[]): void {
  tipsByCommit.clear();
  for (const id of ids) {
    const key = toHex(id);
    objectCache.delete(key);
    seekCache.delete(key);
  }
}
