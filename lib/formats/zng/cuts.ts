// Where a ZNG stream may be cut into parts read apart, each a stream of its
// own: at the start of a frame, the part beginning with the types frames the
// stream defined before the cut (since its last end of stream), so that its
// type ids mean what they mean in the whole (a reader numbers types in the
// order their typedefs come). Only frame headers are read: a frame whose
// header cannot be read (a wrong version bit) stops the cuts, and the part
// it is in reads it as the whole stream would; so do types frames past
// MAX_TYPES bytes in all (kept only to begin parts with, they are not let
// grow without bound).

import { concatBytes } from "../io.ts";
import { EOS } from "./scanner.ts";

/** The most bytes of types frames kept to begin parts with; past it, no more cuts. */
export const MAX_TYPES = 16 << 20;

/** Where a frame starts: its offset in the stream, and the types frames before it. */
interface Start {
  at: number;
  types: Uint8Array[];
  count: number;
}

export class ZngCuts {
  /** The types frames since the last end of stream (a new list after each end). */
  private types: Uint8Array[] = [];
  /** The header of the frame being read, while it is incomplete. */
  private header: number[] = [];
  /** Bytes of the current frame's payload still to come. */
  private left = 0;
  /** The pieces of the types frame being read (null when it is another kind). */
  private collect: Uint8Array[] | null = null;
  /** The frame starts in the chunk followed last. */
  private starts: Start[] = [];
  /** A frame header could not be read, or the types grew past maxTypes: no more cuts. */
  private lost = false;
  /** Bytes of types frames kept (and collected of the current one). */
  private typesBytes = 0;

  constructor(private readonly maxTypes = MAX_TYPES) {}

  /** Follows the stream through its next bytes, which start at offset base. */
  follow(chunk: Uint8Array, base: number): void {
    this.starts = [];
    let p = 0;
    const n = chunk.length;
    while (p < n && !this.lost) {
      if (this.left > 0) {
        const k = Math.min(this.left, n - p);
        if (this.collect !== null) {
          this.typesBytes += k;
          if (this.typesBytes > this.maxTypes) {
            this.lose();
            break;
          }
          this.collect.push(chunk.slice(p, p + k));
        }
        this.left -= k;
        p += k;
        if (this.left === 0) this.frameEnd();
        continue;
      }
      const c = chunk[p++];
      if (this.header.length === 0) {
        this.starts.push({ at: base + p - 1, types: this.types, count: this.types.length });
        if (c === EOS) {
          this.types = [];
          this.typesBytes = 0;
          continue;
        }
        if ((c & 0x80) !== 0) {
          this.lost = true;
          break;
        }
        this.header.push(c);
        continue;
      }
      this.header.push(c);
      if ((c & 0x80) !== 0) {
        // A length of more than ten bytes is no uvarint the reader takes.
        if (this.header.length > 11) this.lost = true;
        continue;
      }
      const h = this.header;
      let hi = 0, scale = 1;
      for (let i = 1; i < h.length; i++) {
        hi += (h[i] & 0x7f) * scale;
        scale *= 128;
      }
      this.left = hi * 16 + (h[0] & 0xf);
      this.collect = ((h[0] >> 4) & 3) === 0 ? [Uint8Array.from(h)] : null;
      this.header = [];
      if (this.left === 0) this.frameEnd();
    }
  }

  /** No more cuts (and nothing kept for them). */
  private lose(): void {
    this.lost = true;
    this.types = [];
    this.collect = null;
  }

  private frameEnd(): void {
    if (this.collect === null) return;
    let size = 0;
    for (const c of this.collect) size += c.length;
    this.types.push(concatBytes(this.collect, size));
    this.collect = null;
  }

  /** The first frame start at or after offset `from` in the chunk followed last, or -1. */
  at(from: number): number {
    for (const s of this.starts) if (s.at >= from) return s.at;
    return -1;
  }

  /**
   * What a part starting at `at` (from at()) begins with: the types frames
   * before it, in bytes of its own (a load sends them on, transferred).
   */
  prefix(at: number): Uint8Array {
    const s = this.starts.find((x) => x.at === at);
    if (s === undefined) throw new Error(`ZngCuts: no frame starts at ${at}`);
    const frames = s.types.slice(0, s.count);
    let size = 0;
    for (const f of frames) size += f.length;
    return frames.length === 1 ? frames[0].slice() : concatBytes(frames, size);
  }
}
