// JSON input (formats.md §5.1): a stream of JSON values separated by
// whitespace, each becoming one Zed value. See parser.ts for the grammar and
// the type mapping.

import { LochError, messageOf } from "../../errors.ts";
import type { Batch, Value } from "../../zed/value.ts";
import {
  BATCH_SIZE,
  type ByteInput,
  type Detection,
  NeedMore,
  type TextInput,
  type ValueReader,
} from "../io.ts";
import { JsonParser, UnexpectedEof } from "./parser.ts";

/** Values the format detector must read (formats.md §8). */
const DETECT_VALUES = 10;

export class JsonReader implements ValueReader {
  private parser = new JsonParser();
  /** An error found after some values of a batch; reported by the next read. */
  private failure: unknown = null;
  private done = false;

  /**
   * continuation: for a part of a longer input, says at the part's end what
   * text comes next in the whole (null: nothing); see continuedError.
   */
  constructor(
    private input: TextInput,
    private continuation: () => string | null = () => null,
  ) {}

  /**
   * The bytes under this reader while it has read none (a loader may read
   * them itself, and put back what it leaves for this reader); else null.
   */
  jsonInput(): Promise<ByteInput | null> {
    const t = this.input;
    const fresh = t.text === "" && t.pos === 0 && !t.eof && !this.done && this.failure === null;
    return Promise.resolve(fresh ? t.input : null);
  }

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
        // A string or literal cut short by the end of a part goes on in the next.
        if (parser.truncated && this.continuation() !== null) throw new UnexpectedEof();
      } catch (e) {
        input.pos = parser.valueStart;
        if (e instanceof NeedMore) {
          await this.more();
          continue;
        }
        const next = e instanceof UnexpectedEof ? this.continuation() : null;
        const error = next !== null ? continuedError(input.text.slice(parser.valueStart), next) : e;
        // Values before the bad one are delivered first, as the reference does.
        if (batch.length === 0) throw error;
        this.failure = error;
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

/**
 * The error a whole input gives where one of its parts ends inside a value
 * (open: that value's text) and the next part starts with continuation.
 * Parts are cut only where the continuation makes this certain (see
 * service/workers/split.ts): a line ending `}` followed by one starting
 * `{"` — a value still open there fails at that `{` or, inside a string
 * token, at the string's end at that `"`.
 */
export function continuedError(open: string, continuation: string): unknown {
  const parser = new JsonParser();
  parser.reset(open + continuation, 0, true);
  try {
    parser.parseValues([], 1);
  } catch (e) {
    if (!(e instanceof UnexpectedEof)) return e;
  }
  return new LochError("internal", "JSON input was split inside a value");
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
