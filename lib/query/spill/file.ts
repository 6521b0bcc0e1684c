// Spill files: temporary files of ZNG written and read back synchronously
// (operators run synchronously), in small frames so that reading one back
// holds little memory. A file belongs to a SpillScope, which removes it if
// its operator does not.

import { LochError, messageOf } from "../../errors.ts";
import type { Value } from "../../zed/value.ts";
import { ZngEncoder } from "../../formats/zng/writer.ts";
import { ZngDecoder } from "../../formats/zng/reader.ts";
import { currentScope, type Removable, type SpillScope } from "./scope.ts";
import { ownedTempFileSync } from "../../tempdir.ts";

/** Frame size of spill files, and the size of reads. */
const FRAME = 64 * 1024;

export class SpillFile implements Removable {
  private handles = new Set<Deno.FsFile>();
  private removed = false;
  /** Bytes written (by the last writer). */
  size = 0;

  private constructor(private readonly scope: SpillScope, readonly path: string) {}

  /** A new empty file in the scope's directory, owned by the scope. */
  static create(scope: SpillScope = currentScope()): SpillFile {
    let path: string;
    try {
      path = ownedTempFileSync(scope.dir, "loch-spill-", ".zng");
    } catch (e) {
      throw new LochError("internal", `cannot create a spill file: ${messageOf(e)}`);
    }
    const f = new SpillFile(scope, path);
    scope.add(f);
    return f;
  }

  /** Opens the file for writing from its start. */
  writer(): RunWriter {
    return new RunWriter(this, this.open({ write: true, truncate: true }));
  }

  /** Opens the file for reading from its start. */
  reader(): RunReader {
    return new RunReader(this, this.open({ read: true }));
  }

  private open(opts: Deno.OpenOptions): Deno.FsFile {
    if (this.removed) throw new Error(`spill file removed: ${this.path}`);
    const h = Deno.openSync(this.path, opts);
    this.handles.add(h);
    return h;
  }

  /** Closes a handle opened by writer() or reader(). */
  release(h: Deno.FsFile): void {
    if (this.handles.delete(h)) h.close();
  }

  /** Closes the file's handles and deletes it (once). */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    for (const h of this.handles) {
      try {
        h.close();
      } catch {
        // already closed
      }
    }
    this.handles.clear();
    this.scope.forget(this);
    try {
      Deno.removeSync(this.path);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
}

/** Where entries are written, value by value (a spill file, or values in memory). */
export interface ValueOut {
  write(v: Value): void;
}

/** Where entries are read back, value by value; undefined at the end. */
export interface ValueIn {
  next(): Value | undefined;
}

/** Encoders not in use: each holds sizable buffers, and a small run needs little of them. */
const encoders: ZngEncoder[] = [];

/** Writes values to a spill file as one ZNG stream. */
export class RunWriter implements ValueOut {
  private enc = encoders.pop() ?? new ZngEncoder({ compress: false, frameThreshold: FRAME });
  private closed = false;

  constructor(private readonly file: SpillFile, private readonly handle: Deno.FsFile) {
    file.size = 0;
  }

  write(v: Value): void {
    this.enc.write(v);
    if (this.enc.pending >= FRAME) this.drain();
  }

  /** Ends the stream and closes the handle. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.enc.endStream();
    this.drain();
    encoders.push(this.enc);
    this.file.release(this.handle);
  }

  private drain(): void {
    const b = this.enc.take();
    for (let off = 0; off < b.length;) off += this.handle.writeSync(b.subarray(off));
    this.file.size += b.length;
  }
}

/** Reads a spill file's values back one at a time. */
export class RunReader implements ValueIn {
  private dec = new ZngDecoder();
  private batch: Value[] = [];
  private pos = 0;
  private ended = false;
  /** Bytes not read yet. */
  private left: number;

  constructor(private readonly file: SpillFile, private readonly handle: Deno.FsFile) {
    this.left = file.size;
  }

  /** The next value, or undefined at the end (the handle is closed then). */
  next(): Value | undefined {
    while (this.pos >= this.batch.length) {
      if (this.ended) return undefined;
      const r = this.dec.next();
      if (r === undefined) this.fill();
      else if (r === null) this.close();
      else if (Array.isArray(r)) {
        this.batch = r;
        this.pos = 0;
      }
    }
    return this.batch[this.pos++];
  }

  /** Closes the handle (early, or at the end). */
  close(): void {
    this.ended = true;
    this.batch = [];
    this.pos = 0;
    this.file.release(this.handle);
  }

  private fill(): void {
    const want = Math.min(Math.max(FRAME, this.dec.needed), this.left);
    const buf = new Uint8Array(want);
    const n = want === 0 ? null : this.handle.readSync(buf);
    if (n === null) this.dec.feed(new Uint8Array(0), true);
    else {
      this.left -= n;
      this.dec.feed(buf.subarray(0, n));
    }
  }
}
