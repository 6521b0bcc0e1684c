// S3Storage's local read cache: whole objects in a directory, named by a
// hash of their path, within a byte budget, least recently used evicted
// first. Lake files are immutable, so an entry never goes stale; it goes
// when the file is removed through the storage. Files arrive under a
// temporary name (written by the storage, or by the bridge worker for a
// synchronous read) and are renamed into place by admit(). A directory
// given by the operator (LOCH_S3_CACHE_DIR) is kept across runs: what is
// in it is adopted at start, oldest first; a fresh temp dir is removed at close.

import { createHash } from "node:crypto";
import { readAtSync } from "../storage.ts";
import { ownedTempDirSync } from "../../tempdir.ts";

/** Files readSync keeps open (columns files, read in many small pieces). */
const OPEN_FILES = 128;
/** Temporary files older than this, found at start, are left over from a crash. */
const STALE_TMP_MS = 3600_000;

export class ReadCache {
  /** Cached files by name, least recently used first; sizes in bytes. */
  private readonly files = new Map<string, number>();
  private readonly open = new Map<string, Deno.FsFile>();
  private total = 0;

  private constructor(
    readonly dir: string,
    /** The byte budget. */
    readonly budget: number,
    /** Whether the directory is ours to remove at close. */
    private readonly owned: boolean,
  ) {}

  /** A cache in dir (made if missing; adopting its files), or in a fresh temp dir. */
  static open(dir: string | undefined, budget: number): ReadCache {
    if (dir === undefined) {
      return new ReadCache(ownedTempDirSync("loch-s3-cache-"), budget, true);
    }
    Deno.mkdirSync(dir, { recursive: true });
    const cache = new ReadCache(dir, budget, false);
    const found: [string, number, number][] = [];
    for (const e of Deno.readDirSync(dir)) {
      if (!e.isFile) continue;
      const st = Deno.statSync(`${dir}/${e.name}`);
      const mtime = st.mtime?.getTime() ?? 0;
      if (/^[0-9a-f]{64}$/.test(e.name)) found.push([e.name, st.size, mtime]);
      else if (e.name.includes(".tmp-") && Date.now() - mtime > STALE_TMP_MS) {
        cache.unlink(e.name);
      }
    }
    for (const [name, size] of found.sort((a, b) => a[2] - b[2])) {
      cache.files.set(name, size);
      cache.total += size;
    }
    cache.evict(0);
    return cache;
  }

  /** The bytes cached, for tests and metrics. */
  get bytes(): number {
    return this.total;
  }

  /** Whether a file of this size may be cached (at most a quarter of the budget). */
  fits(size: number): boolean {
    return size <= this.budget / 4;
  }

  /** The size of the cached file for path (marking it used), or undefined. */
  lookup(path: string): number | undefined {
    const name = nameOf(path);
    const size = this.files.get(name);
    if (size !== undefined) {
      this.files.delete(name);
      this.files.set(name, size);
    }
    return size;
  }

  /** A fresh temporary file name for path's file, for admit(). */
  tmpFile(path: string): string {
    return `${this.dir}/${nameOf(path)}.tmp-${crypto.randomUUID()}`;
  }

  /**
   * Moves tmp, holding path's whole file of size bytes, into the cache
   * (evicting), or removes it; whether path is now cached. Never throws: a
   * local failure costs the copy.
   */
  admit(path: string, tmp: string, size: number): boolean {
    const name = nameOf(path);
    if (this.fits(size) && !this.files.has(name)) {
      this.evict(size);
      try {
        Deno.renameSync(tmp, `${this.dir}/${name}`);
        this.files.set(name, size);
        this.total += size;
        return true;
      } catch {
        // below
      }
    }
    try {
      Deno.removeSync(tmp);
    } catch {
      // gone already
    }
    return this.files.has(name);
  }

  /** Reads from path's cached file into out at offset; undefined when it is not cached. */
  readSync(path: string, offset: number, out: Uint8Array): number | undefined {
    if (this.lookup(path) === undefined) return undefined;
    const name = nameOf(path);
    let file = this.open.get(name);
    if (file === undefined) {
      try {
        file = Deno.openSync(`${this.dir}/${name}`, { read: true });
      } catch {
        this.drop(path); // removed behind our back (another process sharing the dir)
        return undefined;
      }
      this.open.set(name, file);
      if (this.open.size > OPEN_FILES) this.closeFile(this.open.keys().next().value!);
    } else {
      this.open.delete(name);
      this.open.set(name, file);
    }
    return readAtSync(file, offset, out);
  }

  /** path's cached file opened for reading, or undefined. */
  async openFile(path: string): Promise<Deno.FsFile | undefined> {
    if (this.lookup(path) === undefined) return undefined;
    try {
      return await Deno.open(`${this.dir}/${nameOf(path)}`, { read: true });
    } catch {
      this.drop(path);
      return undefined;
    }
  }

  /** Forgets and removes path's file. */
  drop(path: string): void {
    const name = nameOf(path);
    const size = this.files.get(name);
    if (size === undefined) return;
    this.files.delete(name);
    this.total -= size;
    this.closeFile(name);
    this.unlink(name);
  }

  /** Closes the open files; removes the directory if it is a temp dir of ours. */
  close(): void {
    for (const name of [...this.open.keys()]) this.closeFile(name);
    if (this.owned) {
      try {
        Deno.removeSync(this.dir, { recursive: true });
      } catch {
        // gone already
      }
      this.files.clear();
      this.total = 0;
    }
  }

  /** Removes least recently used files until room more bytes fit in the budget. */
  private evict(room: number): void {
    for (const [name, size] of this.files) {
      if (this.total + room <= this.budget) break;
      this.files.delete(name);
      this.total -= size;
      this.closeFile(name);
      this.unlink(name);
    }
  }

  private closeFile(name: string): void {
    const file = this.open.get(name);
    if (file === undefined) return;
    this.open.delete(name);
    file.close();
  }

  private unlink(name: string): void {
    try {
      Deno.removeSync(`${this.dir}/${name}`);
    } catch {
      // gone already
    }
  }
}

/** A cached file's name: the SHA-256 of its path, in hex. */
export function nameOf(path: string): string {
  return createHash("sha256").update(path).digest("hex");
}
