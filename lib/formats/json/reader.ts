// JSON input (formats.md §5.1): a stream of JSON values separated by
// whitespace, each becoming one Zed value. See parser.ts for the grammar and
// the type mapping.

import { messageOf } from "../../errors.ts";
import type { Batch, Value } from "../../zed/value.ts";
import { BATCH_SIZE, type Detection, NeedMore, type TextInput, type ValueReader } from "../io.ts";
import { JsonParser } from "./parser.ts";

/** Values the format detector must read (formats.md §8). */
const DETECT_VALUES = 10;

export class JsonReader implements ValueReader {
  private parser = new JsonParser();
  /** An error found after some values of a batch; reported by the next read. */
  private failure: unknown = null;
  private done = false;

  constructor(private input: TextInput) {}

  async read(): Promise<Batch | null> {
    if (this.failure !== null) throw this.failure;
    if (this.done) return null;
    const input = this.input;
    const parser = this.parser;
    const batch: Value[] = [];
    for (;;) {
      parser.reset(input.text, input.pos, input.eof);
      try {
        parser.parseValues(batch, BATCH_SIZE);
      } catch (e) {
        input.pos = parser.valueStart;
        if (e instanceof NeedMore) {
          await this.more();
          continue;
        }
        // Values before the bad one are delivered first, as the reference does.
        if (batch.length === 0) throw e;
        this.failure = e;
        return batch;
      }
      input.pos = parser.pos;
      if (batch.length >= BATCH_SIZE) return batch;
      if (input.eof) {
        this.done = true;
        return batch.length > 0 ? batch : null;
      }
      await this.more();
    }
  }

  private async more(): Promise<void> {
    await this.input.more();
  }
}

/** Whether text (a prefix of the input; all of it when eof) starts with JSON values. */
export function detectJson(text: string, eof: boolean): Detection {
  const parser = new JsonParser();
  parser.reset(text, 0, eof);
  const out: Value[] = [];
  try {
    parser.parseValues(out, DETECT_VALUES);
  } catch (e) {
    if (e instanceof NeedMore) return { ok: "more" };
    return { ok: false, error: messageOf(e) };
  }
  return out.length >= DETECT_VALUES || eof ? { ok: true } : { ok: "more" };
}
