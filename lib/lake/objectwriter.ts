// Writes one data object from a sorted buffer (lake-api.md §7.4, §15.3): a
// ZNG file with LZ4 frames that starts a new stream (and a seek-index entry)
// each time the pool keys written since the last one reach the seek stride
// and the key changes, so runs of equal keys are never split.

import { bytesEqual, ByteWriter } from "../zed/bytes.ts";
import type { Value } from "../zed/value.ts";
import { isFloat, Kind, underId } from "../zed/types.ts";
import { utf8Length } from "../zed/utf8.ts";
import { appendTagged } from "../zed/zcode.ts";
import { ZngEncoder } from "../formats/zng/writer.ts";
import type { KSUID } from "./ksuid.ts";
import type { DataObject, KeySpan, SeekEntry } from "./objects.ts";
import type { PoolKey } from "./poolkey.ts";
import type { SortBuffer } from "./sortbuffer.ts";
import type { Storage } from "./storage.ts";

/** Bytes gathered before they go to the file. */
const WRITE_CHUNK = 1 << 20;

export interface WrittenObject {
  object: DataObject;
  seek: SeekEntry[];
}

/** Where an object's files go: its ZNG rows and its Arrow columns. */
export interface ObjectPaths {
  data: string;
  columns: string;
}

/**
 * Writes an object's ZNG file, then its columns (columns/), each whole or
 * not at all; the object's metadata carries the columns' manifest.
 */
export async function writeObject(
  storage: Storage,
  paths: ObjectPaths,
  id: KSUID,
  buf: SortBuffer,
  order: Uint32Array,
  key: PoolKey,
  seekStride: number,
): Promise<WrittenObject> {
  // The columns (built on another thread for big objects) are written while
  // the rows are. They can be made again from the rows (columns/mod.ts), so
  // their file is not flushed to disk: only the rows' file is.
  const [manifest, written] = await Promise.all([
    buf.writeColumns(storage, paths.columns, order),
    writeRows(storage, paths.data, id, buf, order, key, seekStride),
  ]);
  written.object.columns = manifest;
  return written;
}

async function writeRows(
  storage: Storage,
  path: string,
  id: KSUID,
  buf: SortBuffer,
  order: Uint32Array,
  key: PoolKey,
  seekStride: number,
): Promise<WrittenObject> {
  const seek: SeekEntry[] = [];
  const keys = buf.keys;
  const scratch = new ByteWriter(64);
  let prev: Value | null = null;
  let trigger = 0;
  const size = await storage.createAtomic(path, async (sink) => {
    const enc = new ZngEncoder();
    for (let n = 0; n < order.length; n++) {
      const i = order[n];
      const k = keys[i];
      trigger += keyLength(scratch, k);
      if (n === 0) {
        seek.push({ key: k, count: 0, offset: 0 });
      } else if (trigger >= seekStride && !sameKey(scratch, k, prev!)) {
        enc.endStream();
        trigger = 0;
        seek.push({ key: k, count: n, offset: enc.offset });
      }
      prev = k;
      enc.writeTagged(buf.types[i], buf.tagged(i));
      if (enc.pending >= WRITE_CHUNK) await sink.write(enc.take());
    }
    enc.endStream();
    if (enc.pending > 0) await sink.write(enc.take());
  });
  const object: DataObject = {
    id,
    first: keys[order[0]],
    last: keys[order[order.length - 1]],
    span: spanOf(keys, order, key),
    count: order.length,
    size,
    bytes: buf.bodyBytes,
    columns: null,
  };
  return { object, seek };
}

/** The body bytes of a key (a view into scratch). */
function keyBytes(scratch: ByteWriter, k: Value): Uint8Array {
  scratch.reset();
  appendTagged(scratch, k.type, k.body);
  const b = scratch.view();
  let p = 0;
  while (b[p] & 0x80) p++;
  return b.subarray(p + 1);
}

/** The length of a key's body bytes (what the seek stride counts). */
function keyLength(scratch: ByteWriter, k: Value): number {
  const b = k.body;
  if (typeof b === "string" && k.type.kind === Kind.Primitive) return utf8Length(b);
  return keyBytes(scratch, k).length;
}

/** Whether two keys have the same body bytes (the reference compares those). */
function sameKey(scratch: ByteWriter, a: Value, b: Value): boolean {
  const x = a.body;
  // Same type and a body whose encoding is a function of its JS value.
  if (
    a.type === b.type && x !== null && b.body !== null &&
    (typeof x === "string" || typeof x === "bigint" || typeof x === "boolean" ||
      (typeof x === "number" && !isFloat(underId(a.type))))
  ) {
    return x === b.body;
  }
  return bytesEqual(keyBytes(scratch, a).slice(), keyBytes(scratch, b));
}

/** The least and greatest non-null keys of sorted values (nulls are last). */
function spanOf(keys: Value[], order: Uint32Array, key: PoolKey): KeySpan {
  let end = order.length;
  while (end > 0 && keys[order[end - 1]].body === null) end--;
  if (end === 0) return { lo: null, hi: null, mixed: false };
  const a = keys[order[0]], b = keys[order[end - 1]];
  let mixed = false;
  for (let n = 1; n < end && !mixed; n++) mixed = keys[order[n]].type !== a.type;
  return key.desc ? { lo: b, hi: a, mixed } : { lo: a, hi: b, mixed };
}
