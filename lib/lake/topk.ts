// `sort <key> | head N` against the pool's order (`sort -r ts` on a pool in
// ascending ts order, and the mirror case): objects are read from the far
// end of the key space inward — each object's last seek streams first, as
// its values are in pool order — keeping the best N values that pass the
// filter, and reading stops once no unread object or stream can hold a
// better one. The result is what the sort would give: the keys in the
// requested order, equal keys in pool order (a stable sort of the pool's
// order), since seek streams never split a run of equal keys.
//
// Null keys sort last and are not looked for here: when fewer than N values
// with keys pass, make() says so and the caller sorts the whole pool.

import type { ValueReader } from "../formats/io.ts";
import { type Expr, maybeYield, scanKeeps } from "../query/mod.ts";
import { ZngDecoder } from "../formats/zng/reader.ts";
import { encodeBody } from "../zed/zcode.ts";
import type { Batch, Value } from "../zed/value.ts";
import type { Lake } from "./lake.ts";
import { type DataObject, seekIndex } from "./objects.ts";
import type { PoolKey } from "./poolkey.ts";
import type { PoolConfig } from "./pools.ts";
import type { ScanStats } from "./scan.ts";

interface Candidate {
  value: Value;
  key: Value;
  /** The value's encoded body (made when a tie needs it). */
  enc: Uint8Array | null;
}

export class TopKScan implements ValueReader {
  private out: Value[] | null = null;

  constructor(
    private lake: Lake,
    private pool: PoolConfig,
    /** The pool key; the sort asks for its reverse order. */
    private key: PoolKey,
    private objects: DataObject[],
    private n: number,
    private filter: Expr | null,
    private stats: ScanStats,
  ) {}

  async read(): Promise<Batch | null> {
    if (this.out !== null) return null;
    this.out = await this.run();
    return this.out.length > 0 ? this.out : null;
  }

  /** Whether the N best values were all found with keys (else the caller sorts everything). */
  found = true;

  private async run(): Promise<Value[]> {
    const key = this.key;
    // Best first in the reverse of pool order: by their last non-null key.
    const far = (o: DataObject) => key.desc ? o.span.lo : o.span.hi;
    const order = this.objects.filter((o) => far(o) !== null)
      .sort((a, b) => key.compare(far(b)!, far(a)!));
    let best: Candidate[] = [];
    for (const o of order) {
      const kth = best.length >= this.n ? best[this.n - 1] : null;
      // Objects whose best key is worse than the Nth best found cannot contribute.
      if (kth !== null && key.compare(far(o)!, kth.key) < 0) break;
      best = this.merge(best, await this.tail(o, kth));
      await maybeYield();
    }
    if (best.length < this.n) this.found = false;
    return best.slice(0, this.n).map((c) => c.value);
  }

  /** An object's values from its last stream backwards, until N with keys passed or none can beat kth. */
  private async tail(o: DataObject, kth: Candidate | null): Promise<Candidate[]> {
    const entries = seekIndex(this.lake.catalog, o.id);
    const starts = entries.length === 0 ? [{ offset: 0, key: o.first }] : entries;
    const got: Candidate[] = [];
    this.stats.objectsRead++;
    for (let s = starts.length - 1; s >= 0; s--) {
      const offset = starts[s].offset;
      const end = s + 1 < starts.length ? starts[s + 1].offset : o.size;
      const vals = await this.readStream(o, offset, end - offset);
      for (const v of vals) {
        const k = this.key.keyOf(v);
        if (k.body === null) continue;
        got.push({ value: v, key: k, enc: null });
      }
      if (got.length >= this.n) break;
      // Earlier streams hold keys below this stream's first; stop when those cannot win.
      if (kth !== null && this.key.compare(starts[s].key, kth.key) < 0) break;
    }
    return got;
  }

  /** Decodes one seek stream of an object, keeping what passes the filter. */
  private async readStream(o: DataObject, offset: number, length: number): Promise<Value[]> {
    const dec = new ZngDecoder(undefined, {});
    const out: Value[] = [];
    const read = this.lake.storage.readRange(
      this.lake.objectPath(this.pool.id, o.id),
      offset,
      length,
    );
    for await (const chunk of read) {
      this.stats.bytesFetched += chunk.length;
      dec.feed(chunk);
      this.drain(dec, out);
    }
    dec.feed(new Uint8Array(0), true);
    this.drain(dec, out);
    return out;
  }

  private drain(dec: ZngDecoder, out: Value[]): void {
    for (;;) {
      const r = dec.next();
      if (r === null || r === undefined) return;
      if (!Array.isArray(r)) continue;
      this.stats.recordsRead += r.length;
      const pred = this.filter;
      for (const v of r) {
        if (pred !== null && !scanKeeps(pred(v))) continue;
        this.stats.recordsMatched++;
        out.push(v);
      }
    }
  }

  /** The best N of two lists: keys in reverse pool order, equal keys in pool order. */
  private merge(a: Candidate[], b: Candidate[]): Candidate[] {
    const all = a.concat(b);
    const key = this.key;
    all.sort((x, y) => {
      const c = key.compare(y.key, x.key);
      if (c !== 0) return c;
      x.enc ??= encodeBody(x.value.type, x.value.body);
      y.enc ??= encodeBody(y.value.type, y.value.body);
      return key.compareTies(x.enc, y.enc);
    });
    return all.slice(0, this.n);
  }
}
