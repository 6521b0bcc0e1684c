// Reading the legacy zng21 layout (read-only, formats.md §4.11): the async
// reader over a ByteInput and the format detector.

import { messageOf } from "../../errors.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { BATCH_SIZE, type ByteInput, type Detection, type ValueReader } from "../io.ts";
import { Zng21Decoder, type Zng21Options } from "./decoder.ts";

export { Zng21Decoder } from "./decoder.ts";

export class Zng21Reader implements ValueReader {
  private decoder: Zng21Decoder;

  constructor(private input: ByteInput, opts: Zng21Options = {}) {
    this.decoder = new Zng21Decoder(opts);
  }

  /**
   * The next batch. Values read before an error are returned first; the error
   * comes with the next call.
   */
  async read(): Promise<Batch | null> {
    const batch: Value[] = [];
    for (;;) {
      let r: Value | null | undefined;
      try {
        r = this.decoder.next();
      } catch (e) {
        if (batch.length > 0) return batch;
        throw e;
      }
      if (r === undefined) {
        if (batch.length > 0) return batch;
        await this.fill(this.decoder.wanted);
        continue;
      }
      if (r === null) return batch.length > 0 ? batch : null;
      batch.push(r);
      if (batch.length >= BATCH_SIZE) return batch;
    }
  }

  /** Feeds at least `want` more bytes as one chunk (fewer, then none, at the end of the input). */
  private async fill(want: number): Promise<void> {
    const [chunk, eof] = await this.input.readAtLeast(want);
    this.decoder.feed(chunk, eof);
  }
}

/**
 * The most input the reference's detection can replay (its buffer doubles
 * from 8 KiB while under 10 MiB): reading past it is an error there.
 */
const REPLAY_LIMIT = 8 * 1024 * 1024;

/**
 * Whether the input starts with zng21: the reference reads one value.
 * `bytes` is a prefix of the input (all of it when eof).
 */
export function detectZng21(_text: string, eof: boolean, bytes: Uint8Array): Detection {
  const d = new Zng21Decoder();
  if (bytes.length >= REPLAY_LIMIT) {
    d.feed(bytes.subarray(0, REPLAY_LIMIT), false);
    d.cap();
  } else {
    d.feed(bytes, eof);
  }
  try {
    return d.next() === undefined ? { ok: "more" } : { ok: true };
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}
