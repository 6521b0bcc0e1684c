// Where the lake's immutable files live: a local directory (LocalStorage)
// or S3-compatible object storage (s3/). Everything the lake does with its
// files goes through this interface. Paths are the lake's: its root (a
// directory, or s3://bucket/prefix) followed by /pools/….

import { LochError } from "../errors.ts";

/** Writes the bytes of one new file. */
export interface FileSink {
  write(chunk: Uint8Array): Promise<void>;
}

/** What is at a path. */
export interface FileInfo {
  size: number;
  /** When it was last written, in ms since the epoch. */
  mtimeMs: number;
}

/** An entry of a directory listing: a file, or a directory (a common prefix in an object store). */
export interface DirEntry {
  name: string;
  isDir: boolean;
}

export interface Storage {
  /**
   * Creates a file whole or not at all: fill() writes it under a temporary
   * name, which is flushed to disk and then renamed to path. A failure (or a
   * crash) leaves no file at path. Returns the file's size.
   */
  createAtomic(
    path: string,
    fill: (sink: FileSink) => Promise<void>,
    opts?: { durable?: boolean },
  ): Promise<number>;
  /** Reads length bytes at offset (fewer at the end of the file), in chunks. */
  readRange(path: string, offset: number, length: number): AsyncIterable<Uint8Array>;
  /**
   * Reads length bytes at offset into out (starting at out[0]); returns how
   * many were read. Where storage has it: a synchronous read, for the small
   * reads of columns, whose cost is mostly that of the request (local files).
   */
  readSync?(path: string, offset: number, out: Uint8Array): number;
  /** The size of the file at path, or undefined when there is none; synchronous. */
  sizeSync(path: string): number | undefined;
  /** The file at path, or undefined when there is none. */
  stat(path: string): Promise<FileInfo | undefined>;
  /** The entries directly under a directory (none when it is absent). */
  list(dir: string): Promise<DirEntry[]>;
  /** Removes a directory tree (nothing when it is absent). */
  removeTree(path: string): Promise<void>;
  /** Removes a file (nothing when it is absent). */
  remove(path: string): Promise<void>;
  /** Lets go of what it holds open (the lake is closing). */
  close?(): void;
}

const READ_CHUNK = 1 << 20;
const FIRST_READ = 64 << 10;
/** Files readSync keeps open (columns files, read in many small pieces). */
const OPEN_FILES = 128;

export class LocalStorage implements Storage {
  /** Open files for readSync, least recently used first. */
  private open = new Map<string, Deno.FsFile>();

  /**
   * With durable false (for files that can be made again from others, as an
   * object's columns can from its rows), the file is not flushed: a crash of
   * the machine may lose it, not a crash of the process.
   */
  async createAtomic(
    path: string,
    fill: (sink: FileSink) => Promise<void>,
    opts: { durable?: boolean } = {},
  ): Promise<number> {
    const durable = opts.durable ?? true;
    const dir = dirname(path);
    await Deno.mkdir(dir, { recursive: true });
    const tmp = `${path}.tmp-${crypto.randomUUID()}`;
    const file = await Deno.open(tmp, { write: true, createNew: true });
    let size = 0;
    let closed = false;
    try {
      await fill({
        async write(chunk: Uint8Array) {
          let off = 0;
          while (off < chunk.length) off += await file.write(chunk.subarray(off));
          size += chunk.length;
        },
      });
      if (durable) await file.syncData();
      file.close();
      closed = true;
      await Deno.rename(tmp, path);
      this.forget(path);
    } catch (e) {
      if (!closed) file.close();
      await Deno.remove(tmp).catch(() => {});
      throw e;
    }
    if (durable) await syncDir(dir);
    return size;
  }

  sizeSync(path: string): number | undefined {
    try {
      return Deno.statSync(path).size;
    } catch {
      return undefined;
    }
  }

  async stat(path: string): Promise<FileInfo | undefined> {
    try {
      const s = await Deno.lstat(path);
      return { size: s.size, mtimeMs: s.mtime?.getTime() ?? 0 };
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return undefined;
      throw e;
    }
  }

  async list(dir: string): Promise<DirEntry[]> {
    const out: DirEntry[] = [];
    try {
      for await (const e of Deno.readDir(dir)) out.push({ name: e.name, isDir: e.isDirectory });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    return out;
  }

  async *readRange(path: string, offset: number, length: number): AsyncIterable<Uint8Array> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        throw new LochError("not found", `file://${path}: file does not exist`);
      }
      throw e;
    }
    yield* fileRange(file, offset, length);
  }

  readSync(path: string, offset: number, out: Uint8Array): number {
    return readAtSync(this.openSync(path), offset, out);
  }

  private openSync(path: string): Deno.FsFile {
    let file = this.open.get(path);
    if (file !== undefined) {
      this.open.delete(path); // most recently used goes last
      this.open.set(path, file);
      return file;
    }
    try {
      file = Deno.openSync(path, { read: true });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        throw new LochError("not found", `file://${path}: file does not exist`);
      }
      throw e;
    }
    this.open.set(path, file);
    if (this.open.size > OPEN_FILES) {
      const [oldest] = this.open.keys();
      this.forget(oldest);
    }
    return file;
  }

  /** Closes the open files at path or under it (a file replaced or removed). */
  private forget(path: string): void {
    for (const [p, file] of this.open) {
      if (p === path || p.startsWith(path + "/")) {
        this.open.delete(p);
        file.close();
      }
    }
  }

  /** Closes the files it keeps open. */
  close(): void {
    for (const file of this.open.values()) file.close();
    this.open.clear();
  }

  async removeTree(path: string): Promise<void> {
    this.forget(path);
    await Deno.remove(path, { recursive: true }).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
  }

  async remove(path: string): Promise<void> {
    this.forget(path);
    await Deno.remove(path).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
  }
}

/**
 * length bytes of an open file at offset (fewer at its end), in chunks;
 * closes the file when done. Small first reads serve `head` quickly; whole
 * scans soon read big chunks.
 */
export async function* fileRange(
  file: Deno.FsFile,
  offset: number,
  length: number,
): AsyncIterable<Uint8Array> {
  try {
    if (offset > 0) await file.seek(offset, Deno.SeekMode.Start);
    let left = length;
    let chunk = FIRST_READ;
    while (left > 0) {
      const buf = new Uint8Array(Math.min(chunk, left));
      chunk = Math.min(READ_CHUNK, chunk * 4);
      const n = await file.read(buf);
      if (n === null) return;
      left -= n;
      yield n === buf.length ? buf : buf.subarray(0, n);
    }
  } finally {
    file.close();
  }
}

/** Reads into out (from out[0]) at offset of an open file; returns how many bytes were read. */
export function readAtSync(file: Deno.FsFile, offset: number, out: Uint8Array): number {
  file.seekSync(offset, Deno.SeekMode.Start);
  let p = 0;
  while (p < out.length) {
    const n = file.readSync(out.subarray(p));
    if (n === null || n === 0) break;
    p += n;
  }
  return p;
}

/** Makes a rename in dir durable (a no-op where directories cannot be synced). */
async function syncDir(dir: string): Promise<void> {
  let f: Deno.FsFile | undefined;
  try {
    f = await Deno.open(dir, { read: true });
    await f.sync();
  } catch {
    // Some platforms cannot open or sync a directory; the rename still happened.
  } finally {
    f?.close();
  }
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? (i === 0 ? "/" : ".") : path.slice(0, i);
}
