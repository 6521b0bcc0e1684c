// Command-line inputs: files or stdin ("-"), opened lazily one after another,
// their format detected unless named, errors prefixed with the input's name
// (`stdio:stdin: ...`, `path: ...`). The bytes read are counted as they come
// in, for `loch load`'s progress line and `loch query -s`.

import { LochError, messageOf } from "../../errors.ts";
import { openReader } from "../../formats/detect.ts";
import { ByteInput, type EncodedSink, type ValueReader } from "../../formats/io.ts";
import type { Batch } from "../../zed/value.ts";
import type { ByteSource } from "./api.ts";

/** What has been read from the inputs so far. */
export class InputCounters {
  /** Raw bytes read (before any gunzip). */
  bytes = 0;
  /** Inputs read to their end. */
  completed = 0;
  /** Values read. */
  records = 0;
  /** False when the values are read elsewhere (by a lake service) and not counted. */
  countsRecords = true;
}

/** Errors from an input carry its name, as `stdio:stdin: ...` or `path: ...`. */
export class NamedReader implements ValueReader {
  private reader: ValueReader | undefined;
  constructor(private open: () => Promise<ValueReader>, private name: string) {}

  async read(): Promise<Batch | null> {
    try {
      this.reader ??= await this.open();
      return await this.reader.read();
    } catch (e) {
      throw this.nameError(e);
    }
  }

  async jsonInput(): Promise<ByteInput | null> {
    try {
      this.reader ??= await this.open();
    } catch (e) {
      throw this.nameError(e);
    }
    return await this.reader.jsonInput?.() ?? null;
  }

  /** The encoded values of a ZNG input (ValueReader.readEncoded); null for another format. */
  async readEncoded(sink: EncodedSink): Promise<boolean | null> {
    try {
      this.reader ??= await this.open();
      return await this.reader.readEncoded?.(sink) ?? null;
    } catch (e) {
      throw this.nameError(e);
    }
  }

  nameError(e: unknown): LochError {
    const kind = e instanceof LochError ? e.kind : "invalid";
    return new LochError(kind, `${this.name}: ${messageOf(e)}`);
  }

  async close(): Promise<void> {
    await this.reader?.close?.();
  }
}

const CHUNK = 1 << 20;

async function* fileChunks(file: Deno.FsFile, counters: InputCounters) {
  try {
    for (;;) {
      const buf = new Uint8Array(CHUNK);
      const n = await file.read(buf);
      if (n === null) break;
      counters.bytes += n;
      yield n === CHUNK ? buf : buf.subarray(0, n);
    }
    counters.completed++;
  } finally {
    file.close();
  }
}

async function* streamChunks(s: ReadableStream<Uint8Array>, counters: InputCounters) {
  for await (const c of s) {
    counters.bytes += c.length;
    yield c;
  }
  counters.completed++;
}

/** The name errors give an input. */
export function inputName(path: string): string {
  return path === "-" ? "stdio:stdin" : path;
}

/** The raw bytes of one input (a path or "-"), counted as they are read. */
export function byteSource(path: string, counters = new InputCounters()): ByteSource {
  return {
    name: inputName(path),
    async open() {
      if (path === "-") return streamChunks(Deno.stdin.readable, counters);
      let file: Deno.FsFile;
      try {
        file = await Deno.open(path);
      } catch {
        throw new LochError("not found", "no such file or directory");
      }
      return fileChunks(file, counters);
    },
  };
}

/** A reader of an input's values, opened on first read; errors carry the input's name. */
export function sourceReader(
  src: ByteSource,
  format: string,
  counters = new InputCounters(),
): ValueReader {
  return new NamedReader(async () => {
    const input = new ByteInput((await src.open())[Symbol.asyncIterator](), src.name);
    return new CountingReader(await openReader(input, format), counters);
  }, src.name);
}

/** A reader of one input (a path or "-"), opened on first read. */
export function inputReader(
  path: string,
  format: string,
  counters = new InputCounters(),
): ValueReader {
  return sourceReader(byteSource(path, counters), format, counters);
}

/** Counts the values a reader gives. */
class CountingReader implements ValueReader {
  constructor(private reader: ValueReader, private counters: InputCounters) {}

  async read(): Promise<Batch | null> {
    const b = await this.reader.read();
    if (b !== null) this.counters.records += b.length;
    return b;
  }

  /** The bytes of a JSON input: values the caller reads from them are not counted here. */
  jsonInput(): Promise<ByteInput | null> {
    return this.reader.jsonInput?.() ?? Promise.resolve(null);
  }

  /** The encoded values of a ZNG input: not counted here either. */
  readEncoded(sink: EncodedSink): Promise<boolean | null> {
    return this.reader.readEncoded?.(sink) ?? Promise.resolve(null);
  }

  async close(): Promise<void> {
    await this.reader.close?.();
  }
}
