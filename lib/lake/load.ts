// Loading data into a branch (lake-api.md §7): values are read from the
// input, buffered encoded until the pool threshold, sorted into pool order and
// written as data objects (the next buffer fills while the last one is
// written); then one commit adds them all. Objects are on disk before the
// commit that names them, so a failure at any point leaves the branch as it
// was.

import { invalid, LochError, messageOf } from "../errors.ts";
import type { EncodedSink, ValueReader } from "../formats/io.ts";
import type { Type } from "../zed/types.ts";
import { formatZson } from "../formats/zson/formatter.ts";
import { parseZsonValue } from "../formats/zson/reader.ts";
import { commitToBranch, getBranch } from "./branches.ts";
import type { CommitInfo } from "./commits.ts";
import { newKSUID, toBase62 } from "./ksuid.ts";
import type { Lake } from "./lake.ts";
import { writeObject, type WrittenObject } from "./objectwriter.ts";
import { type DataObject, insertObject } from "./objects.ts";
import { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import { SortBuffer } from "./sortbuffer.ts";
import { JsonIntake } from "./jsonintake.ts";

/** Commit metadata a client supplies (the Zed-Commit header). */
export interface CommitRequest {
  author?: string;
  /** The commit message; generated when absent or empty. */
  body?: string;
  /** A ZSON value recorded with the commit. */
  meta?: string;
}

export interface LoadProgress {
  records: number;
  objects: number;
}

export interface LoadOptions {
  commit?: CommitRequest;
  /**
   * Treat a read error as the end of the input and report it as a warning
   * (the service's behaviour); otherwise the load fails.
   */
  warnOnReadError?: boolean;
  /** Called after each batch read. */
  onProgress?: (p: LoadProgress) => void;
}

export interface LoadResult {
  commit: CommitInfo;
  objects: DataObject[];
  warnings: string[];
}

/** Objects listed in a generated commit message before `...`. */
const MESSAGE_OBJECTS = 10;

export async function load(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  reader: ValueReader,
  opts: LoadOptions = {},
): Promise<LoadResult> {
  getBranch(lake.catalog, pool.id, branch);
  const meta = requestMeta(opts.commit?.meta);
  const { written, warnings } = await writeLoad(lake, pool, reader, opts);
  return await commitLoad(lake, pool, branch, written, warnings, opts.commit, meta);
}

/** The objects a load wrote (not yet committed), and its warnings. */
export interface WrittenLoad {
  written: WrittenObject[];
  warnings: string[];
}

/**
 * The first half of a load: reads the input and writes its objects. On
 * failure the objects written are removed. (A worker thread may do this
 * half; the thread that commits does the other.)
 */
export async function writeLoad(
  lake: Lake,
  pool: PoolConfig,
  reader: ValueReader,
  opts: LoadOptions = {},
): Promise<WrittenLoad> {
  const key = PoolKey.of(pool);
  const warnings: string[] = [];
  const written: WrittenObject[] = [];
  let writing: Promise<void> = Promise.resolve();
  let records = 0;
  const flush = async (buf: SortBuffer) => {
    // One object is written while the next buffer fills.
    await writing;
    const id = newKSUID();
    const paths = lake.objectPaths(pool.id, id);
    writing = writeObject(lake.storage, paths, id, buf, buf.order(key), key, pool.seekStride)
      .then((w) => {
        written.push(w);
      });
  };
  let buf = new SortBuffer();
  /** Starts the next object: the value that crossed the threshold starts it (objects stay within). */
  const next = async () => {
    const last = buf.takeLast();
    await flush(buf);
    buf = new SortBuffer();
    // (Its key found in its body again, as the buffer's others are.)
    buf.addTaggedEncoded(last.type, last.tagged, key);
  };
  /** A read error: a format error ends the input with a warning; an input that broke fails the load. */
  const readError = (e: unknown) => {
    if (!opts.warnOnReadError || !(e instanceof LochError)) throw e;
    warnings.push(messageOf(e));
  };
  /** Whether the buffer holds an object's worth (the value that crossed starts the next). */
  const full = () => buf.bodyBytes > pool.threshold && buf.length > 1;
  const progress = () => opts.onProgress?.({ records, objects: written.length });
  /** Reads one input into the buffer; false when a read error ended the load's input there. */
  const readPart = async (part: ValueReader): Promise<boolean> => {
    let intake;
    try {
      intake = await JsonIntake.of(part, key);
    } catch (e) {
      readError(e);
      return false;
    }
    // JSON goes from its bytes into the buffer where it can (jsonintake.ts).
    while (intake !== null) {
      records += intake.take(buf, pool.threshold);
      if (full()) {
        await next();
        continue;
      }
      if (intake.done || intake.handedOver) break;
      progress();
      try {
        await intake.more();
      } catch (e) {
        readError(part.nameError?.(e) ?? e);
        return false;
      }
    }
    if (intake !== null && !intake.handedOver) return true;
    if (intake === null && part.readEncoded !== undefined) {
      // ZNG: its values' bodies go into the buffer as they are (checked as decoding would).
      const sink = new BufferSink(key, full);
      for (;;) {
        sink.buf = buf;
        let more;
        try {
          more = await part.readEncoded(sink);
        } catch (e) {
          readError(e);
          return false;
        } finally {
          records += sink.count;
          sink.count = 0;
        }
        if (more === null) break;
        if (full()) await next();
        if (!more) return true;
        progress();
      }
    }
    // The reader reads the input, or what the intake handed back of it.
    for (;;) {
      let batch;
      try {
        batch = await part.read();
      } catch (e) {
        readError(e);
        return false;
      }
      if (batch === null) return true;
      for (let i = 0; i < batch.length; i++) {
        const v = batch[i];
        buf.add(v, key.keyOf(v));
        if (full()) await next();
      }
      records += batch.length;
      progress();
    }
  };
  try {
    for (const part of reader.parts?.() ?? [reader]) {
      if (!(await readPart(part))) break;
      await part.close?.();
      progress();
    }
    if (buf.length > 0) await flush(buf);
    await writing;
  } catch (e) {
    await writing.catch(() => {});
    await removeObjects(lake, pool, written);
    throw e;
  }
  return { written, warnings };
}

/** Encoded values (a ZNG input's) into a load's sort buffer as they are. */
class BufferSink implements EncodedSink {
  buf!: SortBuffer;
  /** Values added since count was last reset. */
  count = 0;

  constructor(private readonly key: PoolKey, readonly full: () => boolean) {}

  add(t: Type, b: Uint8Array, from: number, to: number): void {
    this.buf.begin().range(b, from, to);
    this.buf.addedEncoded(t, this.key);
    this.count++;
  }
}

/**
 * The second half of a load: one commit adds the objects written (on
 * failure they are removed). meta is the request's, normalized.
 */
export async function commitLoad(
  lake: Lake,
  pool: PoolConfig,
  branch: string,
  written: WrittenObject[],
  warnings: string[],
  request: CommitRequest | undefined,
  meta: string | null,
): Promise<LoadResult> {
  if (written.length === 0) throw invalid("no records in request");
  const objects = written.map((w) => w.object);
  const message = request?.body || loadMessage(objects);
  let commit: CommitInfo;
  try {
    commit = await commitToBranch(lake, pool.id, branch, () => ({
      author: request?.author ?? "",
      message,
      meta,
      actions: objects.map((o) => ({ kind: "add" as const, objectId: o.id })),
      record: () => {
        for (const w of written) insertObject(lake.catalog, pool.id, w.object, w.seek);
      },
    }), newKSUID);
  } catch (e) {
    await removeObjects(lake, pool, written);
    throw e;
  }
  return { commit, objects, warnings };
}

/** A request's commit metadata (ZSON text) normalized, or null. */
export function requestMeta(text: string | undefined): string | null {
  if (text === undefined || text === "") return null;
  try {
    const v = parseZsonValue(text);
    return formatZson(v.type, v.body);
  } catch {
    throw invalid("invalid commit metadata in request");
  }
}

/** Removes object files no commit refers to (after a failed load). */
export async function removeObjects(lake: Lake, pool: PoolConfig, written: WrittenObject[]) {
  for (const w of written) {
    await lake.removeObjectFiles(pool.id, w.object.id);
  }
}

function plural(n: number): string {
  return n === 1 ? "" : "s";
}

/** `loaded N data objects` and a line per object (the reference's text). */
export function loadMessage(objects: DataObject[]): string {
  let s = `loaded ${objects.length} data object${plural(objects.length)}\n\n`;
  for (let k = 0; k < objects.length; k++) {
    const o = objects[k];
    s += `  ${toBase62(o.id)} ${o.count} record${plural(o.count)} in ${o.size} data bytes\n`;
    if (k >= MESSAGE_OBJECTS) {
      s += "  ...\n";
      break;
    }
  }
  return s;
}
