// Opening an input: gzip is unwrapped transparently, and when no format is
// given the detectors run in the reference's order over a prefix of the input
// (formats.md §8); the first that reads its values without error wins.

import { invalid, LochError, messageOf } from "../errors.ts";
import { ByteInput, TextInput, type ValueReader } from "./io.ts";
import { JsonReader } from "./json/reader.ts";
import {
  detectionOrder,
  detectionReportOrder,
  type InputFormat,
  inputFormat,
  undetectable,
} from "./registry.ts";

/** The largest prefix detection may buffer (the reference's limit). */
const MAX_PREFIX = 10 * 1024 * 1024;
const FIRST_PREFIX = 64 * 1024;

/** Reads until at least n bytes are buffered or the input ends; returns the chunks read. */
async function readPrefix(input: ByteInput, n: number): Promise<[Uint8Array[], boolean]> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < n) {
    const c = await input.read();
    if (c === null) return [chunks, true];
    chunks.push(c);
    size += c.length;
  }
  return [chunks, false];
}

function unreadAll(input: ByteInput, chunks: Uint8Array[]): void {
  for (let i = chunks.length - 1; i >= 0; i--) input.unread(chunks[i]);
}

/** Whether input starts with a gzip header (what it reads is put back). */
async function isGzip(input: ByteInput): Promise<boolean> {
  const [chunks] = await readPrefix(input, 3);
  const head = concat(chunks);
  unreadAll(input, chunks);
  return head.length >= 3 && head[0] === 0x1f && head[1] === 0x8b && head[2] === 8;
}

/** Wraps input in a gunzip stream when it starts with a gzip header. */
export async function gunzipIfNeeded(input: ByteInput): Promise<ByteInput> {
  if (!(await isGzip(input))) return input;
  // Whether the compressed input itself failed (an upload that broke).
  let broken: { error: unknown } | null = null;
  const raw = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let c;
      try {
        c = await input.read();
      } catch (e) {
        broken = { error: e };
        throw e;
      }
      if (c === null) controller.close();
      else controller.enqueue(c);
    },
    async cancel() {
      await input.cancel();
    },
  });
  const unzipped = raw.pipeThrough(
    new DecompressionStream("gzip") as TransformStream<
      Uint8Array,
      Uint8Array
    >,
  ).getReader();
  // A corrupt or truncated gzip stream is the input's fault (a 400), not ours.
  const checked = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let r;
      try {
        r = await unzipped.read();
      } catch (e) {
        if (broken !== null) throw broken.error;
        throw e instanceof LochError ? e : invalid(messageOf(e));
      }
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    cancel(reason) {
      return unzipped.cancel(reason);
    },
  });
  return ByteInput.fromStream(checked, input.name);
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const n = chunks.reduce((s, c) => s + c.length, 0);
  const out = new Uint8Array(n);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

export interface OpenOptions {
  /**
   * The input is one part of a longer JSON input; called at its end, this
   * says what text follows it there (null: nothing, it is the last part).
   * See JsonReader.
   */
  continuation?: () => string | null;
}

/**
 * Opens a reader over input. format is a format name or "auto" (or empty) to
 * detect it. Errors name the input.
 */
export async function openReader(
  input: ByteInput,
  format = "auto",
  opts: OpenOptions = {},
): Promise<ValueReader> {
  if (format !== "parquet" && format !== "zst") input = await gunzipIfNeeded(input);
  if (opts.continuation !== undefined) {
    if (format !== "json") throw new LochError("internal", "only JSON is read in parts");
    return new JsonReader(new TextInput(input), opts.continuation);
  }
  if (format !== "" && format !== "auto") {
    const f = inputFormat(format);
    if (f === undefined) throw invalid(`no such format: ${JSON.stringify(format)}`);
    return f.open(input);
  }
  return (await detect(input)).open(input);
}

/**
 * The format openReader(input, format) would read input as, when it would
 * read it as is: null when input is gzip or detection fails. What it reads
 * is put back.
 */
export async function detectedFormat(input: ByteInput, format = "auto"): Promise<string | null> {
  try {
    if (await isGzip(input)) return null;
    if (format !== "" && format !== "auto") return inputFormat(format)?.name ?? null;
    return (await detect(input)).name;
  } catch {
    return null;
  }
}

/** The format the detectors pick for input (the prefix they read is put back). */
async function detect(input: ByteInput): Promise<InputFormat> {
  let want = FIRST_PREFIX;
  for (;;) {
    const [chunks, read] = await readPrefix(input, want);
    unreadAll(input, chunks);
    const [prefix, eof] = cut(concat(chunks), want, read);
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(prefix);
    const errors = new Map<string, string>();
    let needMore = false;
    for (const name of detectionOrder) {
      const f: InputFormat | undefined = inputFormat(name);
      if (f?.detect === undefined) continue;
      const d = f.detect(text, eof, prefix);
      if (d.ok === true) return f;
      if (d.ok === "more") {
        needMore = true;
        break;
      }
      errors.set(name, d.error);
    }
    if (!needMore) throw detectionError(errors);
    if (want >= MAX_PREFIX) throw invalid("buffer exceeded max size trying to infer input format");
    want = Math.min(want * 4, MAX_PREFIX);
  }
}

/**
 * The first n bytes of bytes (a chunk may hold a whole body: the detectors
 * need only its start), ending before any UTF-8 character they would split;
 * and whether that is the input's end (eof, and nothing cut).
 */
function cut(bytes: Uint8Array, n: number, eof: boolean): [Uint8Array, boolean] {
  if (bytes.length <= n) return [bytes, eof];
  while (n > 0 && (bytes[n] & 0xc0) === 0x80) n--;
  return [bytes.subarray(0, n), false];
}

function detectionError(errors: Map<string, string>): Error {
  let msg = "format detection error";
  for (const name of detectionReportOrder) {
    const e = errors.get(name);
    if (e !== undefined) msg += `\n\t${name}: ${e}`;
    else if (undetectable.has(name)) msg += `\n\t${name}: auto-detection not supported`;
  }
  return invalid(msg);
}
