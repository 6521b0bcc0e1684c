// `loch query`: run a query over files or stdin, in the manner of Zed's zq.

import { LochError, messageOf } from "../errors.ts";
import { openReader } from "../formats/detect.ts";
import { ByteInput, type Sink, type ValueReader } from "../formats/io.ts";
import { openWriter, type WriterOptions } from "../formats/registry.ts";
import { compileQuery } from "../query/compiler/compile.ts";
import { isYieldQuery } from "../query/compiler/inputs.ts";
import { runQuery } from "../query/run.ts";
import { NULL } from "../query/runtime/values.ts";
import type { Batch } from "../zed/value.ts";
import { type FlagSpec, flagUsage, parseFlags } from "./flags.ts";

export const queryFlags: FlagSpec[] = [
  { name: "i", kind: "string", arg: "format", default: "auto", help: "input format" },
  {
    name: "f",
    kind: "string",
    arg: "format",
    help: "output format (default zng, or zson on a terminal)",
  },
  { name: "z", kind: "bool", help: "one-line ZSON output (the default on a terminal)" },
  { name: "Z", kind: "bool", help: "pretty ZSON output" },
  { name: "j", kind: "bool", help: "JSON output, one value per line" },
  { name: "pretty", kind: "int", arg: "N", default: 4, help: "ZSON indent for -Z and -f zson" },
  {
    name: "persist",
    kind: "string",
    arg: "regexp",
    help: "keep ZSON type definitions matching regexp across values",
  },
  { name: "B", kind: "bool", help: "allow binary ZNG output to a terminal" },
  { name: "zngcompress", kind: "bool", default: true, help: "compress ZNG frames" },
  {
    name: "zngframethresh",
    kind: "int",
    arg: "bytes",
    default: 524288,
    help: "minimum ZNG frame size in uncompressed bytes",
  },
  { name: "h", kind: "bool", help: "show this help" },
];

export const queryUsage = `usage: loch query [options] [query] [file ...]

Runs a Zed query over the files given (or stdin, as "-") and writes the
results to stdout. With no query, or "*" or "pass", values pass through.
If the first argument names an existing file, it is an input and the query
is "*". Input formats are detected unless -i names one.

options:
${flagUsage(queryFlags)}`;

/** A reader of the given values. */
class ValuesReader implements ValueReader {
  constructor(private values: Batch | null) {}
  read(): Promise<Batch | null> {
    const v = this.values;
    this.values = null;
    return Promise.resolve(v);
  }
}

/** Errors from an input carry its name, as `stdio:stdin: ...` or `path: ...`. */
class NamedReader implements ValueReader {
  private reader: ValueReader | undefined;
  constructor(private open: () => Promise<ValueReader>, private name: string) {}

  async read(): Promise<Batch | null> {
    try {
      this.reader ??= await this.open();
      return await this.reader.read();
    } catch (e) {
      const kind = e instanceof LochError ? e.kind : "invalid";
      throw new LochError(kind, `${this.name}: ${messageOf(e)}`);
    }
  }
}

async function fileExists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

function inputReader(path: string, format: string): ValueReader {
  const name = path === "-" ? "stdio:stdin" : path;
  return new NamedReader(async () => {
    let input: ByteInput;
    if (path === "-") {
      input = ByteInput.fromStream(Deno.stdin.readable, name);
    } else {
      try {
        input = ByteInput.fromFile(await Deno.open(path), name);
      } catch {
        throw new LochError("not found", "no such file or directory");
      }
    }
    return openReader(input, format);
  }, name);
}

function outputOptions(flags: Record<string, unknown>): [string, WriterOptions] {
  const { f, z, Z, j } = flags as { f?: string; z?: boolean; Z?: boolean; j?: boolean };
  if (j && (f !== undefined || z || Z)) {
    throw new LochError("invalid", "cannot use -j with -f, -z, or -Z");
  }
  if ((z || Z) && f !== undefined) throw new LochError("invalid", "cannot use -z or -Z with -f");
  const pretty = flags.pretty as number;
  const persist = flags.persist === undefined ? undefined : new RegExp(flags.persist as string);
  const zng = {
    zngCompress: flags.zngcompress as boolean,
    zngFrameThreshold: flags.zngframethresh as number,
  };
  if (j) return ["json", {}];
  if (Z) return ["zson", { pretty, persist }];
  if (z) return ["zson", { pretty: 0, persist }];
  if (f !== undefined) return [f, { pretty, persist, ...zng }];
  // ZNG by default, but not onto a terminal (as zq).
  if (!flags.B && Deno.stdout.isTerminal()) return ["zson", { pretty: 0, persist }];
  return ["zng", zng];
}

/** Writes to stdout; a closed pipe ends output quietly. */
function stdoutSink(): [Sink, () => Promise<void>] {
  const w = Deno.stdout.writable.getWriter();
  const sink: Sink = async (chunk) => {
    await w.write(chunk);
  };
  return [sink, async () => {
    await w.ready;
    w.releaseLock();
  }];
}

/** Runs `loch query`; returns the process exit code. */
export async function queryCommand(args: string[]): Promise<number> {
  const [flags, rest] = parseFlags(queryFlags, args);
  if (flags.h || rest.length === 0) {
    console.log(queryUsage);
    return flags.h ? 0 : 2;
  }
  const [format, opts] = outputOptions(flags);
  let text = "*";
  let paths = rest;
  let nullInput = false;
  if (rest[0] !== "-" && !(await fileExists(rest[0]))) {
    text = rest[0];
    paths = rest.slice(1);
    if (paths.length === 0) {
      // A lone query that yields values runs once over a null value (as zq).
      if (!isYieldQuery(text)) throw new LochError("invalid", `no such file: ${text}`);
      nullInput = true;
    }
  }
  const query = compileQuery(text);
  const [sink, close] = stdoutSink();
  const writer = openWriter(format, sink, opts);
  const readers = nullInput
    ? [new ValuesReader([NULL])]
    : paths.map((p) => inputReader(p, flags.i as string));
  try {
    await runQuery(query, readers, writer);
  } finally {
    await close();
  }
  return 0;
}
