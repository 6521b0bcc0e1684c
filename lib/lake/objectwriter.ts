// Writes one data object from a sorted buffer (lake-api.md §7.4, §15.3): a
// ZNG file with LZ4 frames that starts a new stream (and a seek-index entry)
// each time the pool keys written since the last one reach the seek stride
// and the key changes, so runs of equal keys are never split.

import { ByteWriter } from "../zed/bytes.ts";
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
  const scratch = new ByteWriter(64);
  let prev = 0;
  let trigger = 0;
  const size = await storage.createAtomic(path, async (sink) => {
    const enc = new ZngEncoder();
    for (let n = 0; n < order.length; n++) {
      const i = order[n];
      trigger += buf.keyLength(i, scratch);
      if (n === 0) {
        seek.push({ key: buf.key(i), count: 0, offset: 0 });
      } else if (trigger >= seekStride && !buf.sameKey(i, prev, scratch)) {
        enc.endStream();
        trigger = 0;
        seek.push({ key: buf.key(i), count: n, offset: enc.offset });
      }
      prev = i;
      enc.writeTagged(buf.types[i], buf.tagged(i));
      if (enc.pending >= WRITE_CHUNK) await sink.write(enc.take());
    }
    enc.endStream();
    if (enc.pending > 0) await sink.write(enc.take());
  });
  const object: DataObject = {
    id,
    first: buf.key(order[0]),
    last: buf.key(order[order.length - 1]),
    span: spanOf(buf, order, key),
    count: order.length,
    size,
    bytes: buf.bodyBytes,
    columns: null,
  };
  return { object, seek };
}

/** The least and greatest non-null keys of sorted values (nulls are last). */
function spanOf(buf: SortBuffer, order: Uint32Array, key: PoolKey): KeySpan {
  let end = order.length;
  while (end > 0 && buf.keyIsNull(order[end - 1])) end--;
  if (end === 0) return { lo: null, hi: null, mixed: false };
  const a = buf.key(order[0]), b = buf.key(order[end - 1]);
  let mixed = false;
  for (let n = 1; n < end && !mixed; n++) mixed = buf.keyType(order[n]) !== a.type;
  return key.desc ? { lo: b, hi: a, mixed } : { lo: a, hi: b, mixed };
}
