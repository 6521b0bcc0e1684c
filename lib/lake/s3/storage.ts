// Storage (../storage.ts) in S3-compatible object storage, for a lake at
// s3://bucket/prefix: every path is s3://bucket/key. Objects are written
// whole (upload.ts), read with ranged GETs (read.ts), listed with a "/"
// delimiter (common prefixes are the directories). A local read cache
// (cache.ts) keeps whole objects within a byte budget: written through,
// filled by whole-file reads, and by synchronous reads, which block on a
// worker doing the fetch (bridge.ts, bridge_worker.ts).

import { LochError } from "../../errors.ts";
import { LruMap } from "../../lru.ts";
import {
  type DirEntry,
  type FileInfo,
  fileRange,
  type FileSink,
  type Storage,
} from "../storage.ts";
import { SyncBridge } from "../syncbridge.ts";
import { ReadCache } from "./cache.ts";
import { S3Client } from "./client.ts";
import {
  env,
  parseS3URL,
  type S3Config,
  s3Config,
  type S3Location,
  type S3Options,
} from "./config.ts";
import { readObject } from "./read.ts";
import { Upload } from "./upload.ts";

export interface S3StorageOptions extends S3Options {
  /** The read cache's directory (LOCH_S3_CACHE_DIR); default a fresh temp dir, removed at close. */
  cacheDir?: string;
  /** The read cache's byte budget (LOCH_S3_CACHE_BYTES); default 1 GiB. */
  cacheBytes?: number;
  /** Multipart part size, and the largest object sent in one PUT; default 8 MiB (S3: ≥ 5 MiB). */
  partBytes?: number;
  /** Parts of one object on their way at once; default 4. */
  uploadConcurrency?: number;
  /** Longest a synchronous read waits (ms); default 120 000. */
  syncTimeoutMs?: number;
  /** Largest object readSync fetches whole into the cache (larger: ranged reads); default 64 MiB. */
  syncWholeBytes?: number;
}

const MiB = 1 << 20;
/** Sizes of uncached files sizeSync and readSync learned (objects are immutable). */
const KNOWN_SIZES = 10_000;

export class S3Storage implements Storage {
  readonly config: S3Config;
  readonly cache: ReadCache;
  private readonly client: S3Client;
  private bridge: SyncBridge | undefined;
  private readonly sizes = new LruMap<string, number>(KNOWN_SIZES);
  private readonly partBytes: number;
  private readonly concurrency: number;
  private readonly syncTimeoutMs: number;
  private readonly wholeBytes: number;
  private closed = false;

  constructor(opts: S3StorageOptions = {}) {
    this.config = s3Config(opts);
    this.client = new S3Client(this.config);
    this.partBytes = opts.partBytes ?? 8 * MiB;
    if (!(this.partBytes >= 5 * MiB)) {
      throw new LochError("invalid", `S3 part size ${this.partBytes} is under 5 MiB (S3's least)`);
    }
    this.concurrency = Math.max(1, opts.uploadConcurrency ?? 4);
    this.syncTimeoutMs = opts.syncTimeoutMs ?? 120_000;
    const budget = opts.cacheBytes ?? bytesFromEnv("LOCH_S3_CACHE_BYTES") ?? 1024 * MiB;
    this.cache = ReadCache.open(opts.cacheDir ?? env("LOCH_S3_CACHE_DIR"), budget);
    this.wholeBytes = Math.min(opts.syncWholeBytes ?? 64 * MiB, budget / 4);
  }

  async createAtomic(
    path: string,
    fill: (sink: FileSink) => Promise<void>,
    _opts?: { durable?: boolean }, // an object is durable once it exists
  ): Promise<number> {
    this.open();
    const loc = this.locate(path);
    const up = new Upload(this.client, loc, this.cache, path, this.partBytes, this.concurrency);
    let copy: string | undefined;
    try {
      await fill(up.sink);
      copy = await up.finish();
    } catch (e) {
      await up.abort();
      throw e;
    }
    this.forget(path);
    if (copy !== undefined) {
      if (this.closed) removeQuietly(copy); // closed while it was written
      else this.cache.admit(path, copy, up.size);
    }
    return up.size;
  }

  async *readRange(path: string, offset: number, length: number): AsyncIterable<Uint8Array> {
    this.open();
    if (length <= 0) return;
    const local = await this.cache.openFile(path);
    if (local !== undefined) {
      yield* fileRange(local, offset, length);
      return;
    }
    // A read of the whole object fills the cache on the way (a local failure costs only the copy).
    const fill: { copy?: { file: Deno.FsFile; tmp: string; size: number } } = {};
    const drop = () => {
      fill.copy?.file.close();
      if (fill.copy !== undefined) removeQuietly(fill.copy.tmp);
      fill.copy = undefined;
    };
    const onTotal = (total: number) => {
      if (offset === 0 && total > 0 && total <= length && this.cache.fits(total)) {
        const tmp = this.cache.tmpFile(path);
        try {
          fill.copy = {
            file: Deno.openSync(tmp, { write: true, createNew: true }),
            tmp,
            size: total,
          };
        } catch {
          // no copy
        }
      }
      return true;
    };
    let got = 0;
    try {
      const loc = this.locate(path);
      for await (const chunk of readObject(this.client, loc, offset, length, onTotal)) {
        const copy = fill.copy;
        try {
          for (let p = 0; copy !== undefined && p < chunk.length;) {
            p += await copy.file.write(chunk.subarray(p));
          }
        } catch {
          drop();
        }
        got += chunk.length;
        yield chunk;
      }
      const copy = fill.copy;
      if (copy !== undefined && got === copy.size && !this.closed) {
        fill.copy = undefined;
        copy.file.close();
        this.cache.admit(path, copy.tmp, copy.size);
      }
    } finally {
      drop();
    }
  }

  readSync(path: string, offset: number, out: Uint8Array): number {
    this.open();
    const cached = this.cache.readSync(path, offset, out);
    if (cached !== undefined) return cached;
    const loc = this.locate(path);
    let size = this.sizes.get(path);
    if (size === undefined || size <= this.wholeBytes) {
      const file = this.cache.tmpFile(path);
      const r = this.call({ op: "fetch", ...loc, file, max: this.wholeBytes });
      size = r.size as number;
      if (r.file && this.cache.admit(path, file, size)) {
        const n = this.cache.readSync(path, offset, out);
        if (n !== undefined) return n;
      }
      this.learn(path, size);
    }
    if (offset >= size || out.length === 0) return 0;
    const r = this.call({ op: "range", ...loc, offset, length: out.length });
    const bytes = r.bytes as Uint8Array;
    out.set(bytes);
    return bytes.length;
  }

  sizeSync(path: string): number | undefined {
    this.open();
    const known = this.cache.lookup(path) ?? this.sizes.get(path);
    if (known !== undefined) return known;
    const size = this.call({ op: "head", ...this.locate(path) }).size as number | null;
    if (size === null) return undefined;
    this.learn(path, size);
    return size;
  }

  async stat(path: string): Promise<FileInfo | undefined> {
    this.open();
    return await this.client.head(this.locate(path));
  }

  async list(dir: string): Promise<DirEntry[]> {
    this.open();
    const { bucket, key } = this.locate(dir);
    const prefix = key === "" ? "" : key + "/";
    const { keys, prefixes } = await this.client.list(bucket, prefix, "/");
    const out: DirEntry[] = [];
    for (const p of prefixes) out.push({ name: p.slice(prefix.length, -1), isDir: true });
    for (const k of keys) {
      if (k.length > prefix.length) out.push({ name: k.slice(prefix.length), isDir: false });
    }
    return out.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  }

  async remove(path: string): Promise<void> {
    this.open();
    const loc = this.locate(path);
    this.forget(path);
    await this.client.delete(loc);
  }

  async removeTree(path: string): Promise<void> {
    this.open();
    const { bucket, key } = this.locate(path);
    const { keys } = await this.client.list(bucket, key === "" ? "" : key + "/");
    for (const k of keys) this.forget(`s3://${bucket}/${k}`);
    await this.client.deleteMany(bucket, keys);
  }

  /** Ends the bridge worker and closes the cache (removing it if it is a temp dir). Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.bridge?.close();
    this.bridge = undefined;
    this.cache.close();
  }

  private open(): void {
    if (this.closed) throw new LochError("internal", "S3 storage is closed");
  }

  private locate(path: string): S3Location {
    return parseS3URL(path);
  }

  /** A synchronous call through the bridge (started on first use, again after a failure). */
  private call(request: Record<string, unknown>): Record<string, unknown> {
    if (this.bridge === undefined || this.bridge.dead !== undefined) {
      this.bridge?.close();
      const url = new URL("./bridge_worker.ts", import.meta.url).href;
      this.bridge = new SyncBridge(url, this.config);
    }
    return this.bridge.call(request, this.syncTimeoutMs);
  }

  private learn(path: string, size: number): void {
    this.sizes.set(path, size);
  }

  /** Forgets what is known of path (written again, or removed). */
  private forget(path: string): void {
    this.sizes.delete(path);
    if (!this.closed) this.cache.drop(path);
  }
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // gone already
  }
}

/** A byte count from a variable: digits, optionally with k, m, g or t (powers of 1024). */
function bytesFromEnv(name: string): number | undefined {
  const v = env(name);
  if (v === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i.exec(v);
  if (m === null) {
    throw new LochError("invalid", `invalid ${name}: ${v} (want bytes, e.g. 1073741824 or 1g)`);
  }
  return Math.floor(Number(m[1]) * 1024 ** " kmgt".indexOf(m[2].toLowerCase() || " "));
}
