// Writing one object for S3Storage.createAtomic: what fill() writes is
// collected; up to one part's size it goes in a single PUT, beyond it in a
// multipart upload whose parts are sent as they fill (a few at a time, so
// memory stays bounded by parts × concurrency), aborted on failure. Either
// way the object appears whole or not at all. A copy goes to a temporary
// file in the read cache as it is written; once the object exists, the
// storage admits it (write-through).

import type { FileSink } from "../storage.ts";
import type { ReadCache } from "./cache.ts";
import type { S3Location } from "./config.ts";
import type { S3Client } from "./client.ts";

/** The first buffer; it doubles up to a part's size, so small files stay small. */
const FIRST_BUFFER = 64 << 10;

export class Upload {
  /** Bytes written so far. */
  size = 0;
  private buf = new Uint8Array(0);
  private pos = 0;
  private uploadId: string | undefined;
  private readonly etags: string[] = [];
  private readonly inflight = new Set<Promise<void>>();
  private failed: unknown;
  /** The cache copy being written, until it is given up (too big, or a local failure). */
  private copy: { file: Deno.FsFile; tmp: string } | undefined;
  private copying = true;
  /** Bytes given to the copy. */
  private kept = 0;

  constructor(
    private readonly client: S3Client,
    private readonly loc: S3Location,
    private readonly cache: ReadCache | undefined,
    private readonly path: string,
    private readonly partBytes: number,
    private readonly concurrency: number,
  ) {}

  readonly sink: FileSink = { write: (chunk) => this.write(chunk) };

  private async write(chunk: Uint8Array): Promise<void> {
    if (this.failed !== undefined) throw this.failed;
    for (let p = 0; p < chunk.length;) {
      if (this.pos === this.partBytes) await this.sendPart();
      if (this.pos === this.buf.length) this.grow();
      const n = Math.min(chunk.length - p, this.buf.length - this.pos);
      this.buf.set(chunk.subarray(p, p + n), this.pos);
      this.pos += n;
      p += n;
    }
    this.size += chunk.length;
  }

  private grow(): void {
    const next = new Uint8Array(
      Math.min(this.partBytes, Math.max(FIRST_BUFFER, this.buf.length * 2)),
    );
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** Sends the full buffer as the next part, waiting while too many are on their way. */
  private async sendPart(): Promise<void> {
    this.uploadId ??= await this.client.createUpload(this.loc);
    const part = this.buf;
    this.buf = new Uint8Array(this.partBytes);
    this.pos = 0;
    await this.keep(part);
    const n = this.etags.length + 1;
    this.etags.push("");
    const sent: Promise<void> = this.client.uploadPart(this.loc, this.uploadId, n, part).then(
      (etag) => void (this.etags[n - 1] = etag),
      (e) => void (this.failed ??= e),
    ).finally(() => this.inflight.delete(sent));
    this.inflight.add(sent);
    while (this.inflight.size >= this.concurrency) await Promise.race(this.inflight);
    if (this.failed !== undefined) throw this.failed;
  }

  /** Makes the object; returns the cache copy's temporary file, if one was kept. */
  async finish(): Promise<string | undefined> {
    const last = this.buf.subarray(0, this.pos);
    if (this.uploadId === undefined) {
      await this.client.put(this.loc, last);
    } else {
      const n = this.etags.length + 1;
      this.etags.push(await this.client.uploadPart(this.loc, this.uploadId, n, last));
      await Promise.all(this.inflight);
      if (this.failed !== undefined) throw this.failed;
      await this.client.completeUpload(this.loc, this.uploadId, this.etags);
      this.uploadId = undefined;
    }
    await this.keep(last);
    const copy = this.copy;
    this.copy = undefined;
    copy?.file.close();
    return copy?.tmp;
  }

  /** Gives up: waits for the parts on their way, aborts the upload, drops the copy. */
  async abort(): Promise<void> {
    await Promise.allSettled(this.inflight);
    if (this.uploadId !== undefined) {
      // Best effort: a lifecycle rule on the bucket can clean up what is left.
      await this.client.abortUpload(this.loc, this.uploadId).catch(() => {});
      this.uploadId = undefined;
    }
    this.dropCopy();
  }

  /** Appends bytes to the cache copy while the file still fits the cache. */
  private async keep(bytes: Uint8Array): Promise<void> {
    const cache = this.cache;
    if (cache === undefined || !this.copying) return;
    this.kept += bytes.length;
    if (!cache.fits(this.kept)) return this.dropCopy();
    try {
      if (this.copy === undefined) {
        const tmp = cache.tmpFile(this.path);
        this.copy = { file: await Deno.open(tmp, { write: true, createNew: true }), tmp };
      }
      for (let p = 0; p < bytes.length;) p += await this.copy.file.write(bytes.subarray(p));
    } catch {
      this.dropCopy(); // a local failure costs the copy, not the upload
    }
  }

  private dropCopy(): void {
    this.copying = false;
    const copy = this.copy;
    if (copy === undefined) return;
    this.copy = undefined;
    copy.file.close();
    try {
      Deno.removeSync(copy.tmp);
    } catch {
      // gone already (the cache closed)
    }
  }
}
