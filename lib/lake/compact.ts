// Compacting a branch (lake-api.md §8.9): objects are read as one stream in
// pool order (overlapping ones merged) and written out again as objects of
// up to the pool threshold that do not overlap; one commit swaps them in.
// The content and its order are unchanged.
//
// Either the caller names the objects (two or more, as the reference), or
// the automatic mode picks them: walking the tip's objects in pool order,
// objects whose key spans overlap form a group; consecutive groups that are
// either overlapping (two or more objects) or one small object (under a
// quarter of the threshold, as the reference's lake manager judges) form a
// run, and a large object on its own ends a run. Every run of two or more
// objects is compacted, each into its own objects, so the new objects never
// reach into the key range of an object left alone.

import { invalid, LochError } from "../errors.ts";
import { commitToBranch, getBranch } from "./branches.ts";
import type { Action, CommitInfo } from "./commits.ts";
import { objectLines, onTip, plural, removeWritten } from "./delete.ts";
import { requestMeta } from "./load.ts";
import { type KSUID, newKSUID, toBase62, toHex } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import type { CommitRequest } from "./load.ts";
import { writeObject, type WrittenObject } from "./objectwriter.ts";
import { type DataObject, getObjects, insertObject, tipObjects } from "./objects.ts";
import { PoolKey } from "./poolkey.ts";
import { notFound, type PoolConfig } from "./pools.ts";
import { groupOverlapping, PoolScan } from "./scan.ts";
import { SortBuffer } from "./sortbuffer.ts";

/** Objects listed in a generated message before `...` (as the reference). */
const MESSAGE_OBJECTS = 10;

export const NOTHING_TO_COMPACT = "compact: nothing to compact";

/**
 * Compacts the named objects of a branch's tip, or with "auto" the ones
 * planCompaction picks. Returns the commit.
 */
export async function compact(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  objectIds: KSUID[] | "auto",
  commit: CommitRequest = {},
): Promise<CommitInfo> {
  const cat = lake.catalog;
  let runs: DataObject[][];
  if (objectIds === "auto") {
    getBranch(cat, pool.id, branch);
    runs = planCompaction(tipObjects(cat, pool.id, branch), PoolKey.of(pool), pool.threshold);
    if (runs.length === 0) throw invalid(NOTHING_TO_COMPACT);
  } else {
    const ids = unique(objectIds);
    if (ids.length < 2) {
      throw new LochError("invalid", "compact: two or more source objects required");
    }
    getBranch(cat, pool.id, branch);
    for (const id of ids) {
      if (!onTip(lake, pool.id, branch, id)) {
        throw notFound(`${toBase62(id)}: commit object not found`);
      }
    }
    runs = [getObjects(cat, ids)];
  }
  const meta = requestMeta(commit.meta);
  const written: WrittenObject[] = [];
  try {
    for (const run of runs) await rewrite(lake, pool, run, written);
    const sources = runs.flat();
    const created = written.map((w) => w.object);
    const message = commit.body || compactMessage(sources, created);
    // The sources are checked against the tip in the commit's transaction:
    // deleting one that is gone by then is a write conflict.
    return await commitToBranch(lake, pool.id, branch, () => ({
      author: commit.author ?? "",
      message,
      meta,
      actions: [
        ...sources.map((o): Action => ({ kind: "delete", objectId: o.id })),
        ...created.map((o): Action => ({ kind: "add", objectId: o.id })),
      ],
      record: () => {
        for (const w of written) insertObject(cat, pool.id, w.object, w.seek);
      },
    }));
  } catch (e) {
    await removeWritten(lake, pool, written);
    throw e;
  }
}

function unique(ids: KSUID[]): KSUID[] {
  const seen = new Set<string>();
  return ids.filter((id) => {
    const k = toHex(id);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The runs of objects the automatic mode compacts (see the file comment),
 * in pool order.
 */
export function planCompaction(
  objects: DataObject[],
  key: PoolKey,
  threshold: number,
): DataObject[][] {
  const runs: DataObject[][] = [];
  let run: DataObject[] = [];
  const end = () => {
    if (run.length >= 2) runs.push(run);
    run = [];
  };
  for (const group of groupOverlapping(objects, (o) => o, key)) {
    if (group.length >= 2 || group[0].size < threshold / 4) {
      run.push(...group);
    } else {
      end();
    }
  }
  end();
  return runs;
}

/**
 * Writes the values of objects (merged in pool order) as new objects of up
 * to the threshold (bytes of value bodies, as loads count them). An object
 * ends only where the key changes, so equal keys stay in one object (which
 * may then pass the threshold) and no two new objects overlap.
 */
async function rewrite(
  lake: Lake,
  pool: PoolConfig,
  objects: DataObject[],
  written: WrittenObject[],
): Promise<void> {
  const key = PoolKey.of(pool);
  const scan = new PoolScan(lake, pool, key, objects, { range: null, filter: null });
  let writing: Promise<void> = Promise.resolve();
  const flush = async (buf: SortBuffer) => {
    // One object is written while the next buffer fills.
    await writing;
    const id = newKSUID();
    const order = Uint32Array.from({ length: buf.length }, (_, i) => i);
    writing = writeObject(
      lake.storage,
      lake.objectPaths(pool.id, id),
      id,
      buf,
      order,
      key,
      pool.seekStride,
    ).then((w) => {
      written.push(w);
    });
  };
  let buf = new SortBuffer();
  let prev: ReturnType<PoolKey["keyOf"]> | null = null;
  try {
    for (let b = await scan.read(); b !== null; b = await scan.read()) {
      for (let i = 0; i < b.length; i++) {
        const v = b[i];
        const k = key.keyOf(v);
        buf.add(v, k);
        if (buf.bodyBytes > pool.threshold && prev !== null && key.compare(prev, k) !== 0) {
          // The value that crossed the threshold starts the next object.
          const last = buf.takeLast();
          await flush(buf);
          buf = new SortBuffer();
          buf.addTagged(last.type, last.tagged, last.key);
        }
        prev = k;
      }
    }
    if (buf.length > 0) await flush(buf);
  } finally {
    await writing.catch(() => {});
    await scan.close();
  }
  await writing;
}

/** The reference's message: the objects compacted, then the ones created. */
export function compactMessage(sources: DataObject[], created: DataObject[]): string {
  return `compacted ${sources.length} object${plural(sources.length)}\n\n` +
    objectLines(sources, MESSAGE_OBJECTS) +
    `\ncreated ${created.length} object${plural(created.length)}\n\n` +
    objectLines(created, MESSAGE_OBJECTS - sources.length);
}
