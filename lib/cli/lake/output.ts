// Output flags and the stdout writer, shared by `loch query` and the lake
// commands (the reference's outputflags): -f names a format (any of
// lib/formats/registry.ts, or `lake`), -z/-Z/-j are shortcuts, and ZNG is
// not written to a terminal unless -B.

import { LochError } from "../../errors.ts";
import type { Sink, ValueWriter } from "../../formats/io.ts";
import { openWriter, type WriterOptions } from "../../formats/registry.ts";
import type { FlagSpec, FlagValues } from "../flags.ts";
import { LakeWriter } from "./lakewriter.ts";

/** The output flags; defaultFormat is what -f means when it is not given. */
export function outputFlags(defaultFormat: string, defaultHelp = defaultFormat): FlagSpec[] {
  return [
    {
      name: "f",
      kind: "string",
      arg: "format",
      help:
        `output format: zng, zson, json, zjson, csv, table, text, zeek, parquet, arrows, lake ` +
        `(default ${defaultHelp})`,
    },
    { name: "z", kind: "bool", help: "one-line ZSON output" },
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
  ];
}

export interface OutputChoice {
  format: string;
  opts: WriterOptions;
}

/**
 * The output format and options the flags ask for. stdoutIsTerminal is a
 * parameter so the terminal rule can be tested.
 */
export function chooseOutput(
  flags: FlagValues,
  defaultFormat: string,
  stdoutIsTerminal = Deno.stdout.isTerminal(),
): OutputChoice {
  const { f, z, Z, j } = flags as { f?: string; z?: boolean; Z?: boolean; j?: boolean };
  if (j && (f !== undefined || z || Z)) {
    throw new LochError("invalid", "cannot use -j with -f, -z, or -Z");
  }
  if ((z || Z) && f !== undefined) throw new LochError("invalid", "cannot use -z or -Z with -f");
  let pretty = flags.pretty as number;
  let persist: RegExp | undefined;
  if (flags.persist !== undefined) {
    try {
      persist = new RegExp(flags.persist as string);
    } catch (e) {
      throw new LochError("invalid", (e as Error).message);
    }
  }
  let format = j ? "json" : (z || Z) ? "zson" : f ?? defaultFormat;
  if (z) pretty = 0;
  // ZNG is binary: onto a terminal it becomes one-line ZSON (as the reference).
  if (format === "zng" && !flags.B && stdoutIsTerminal) {
    format = "zson";
    pretty = 0;
  }
  return {
    format,
    opts: {
      pretty,
      persist,
      zngCompress: flags.zngcompress as boolean,
      zngFrameThreshold: flags.zngframethresh as number,
    },
  };
}

/** Writes to stdout; returns the sink and a function that releases stdout. */
export function stdoutSink(): [Sink, () => Promise<void>] {
  const w = Deno.stdout.writable.getWriter();
  const sink: Sink = async (chunk) => {
    await w.write(chunk);
  };
  return [sink, async () => {
    await w.ready;
    w.releaseLock();
  }];
}

/** A writer for a chosen format (`lake` included). */
export function openOutput(sink: Sink, choice: OutputChoice, head?: string): ValueWriter {
  if (choice.format === "lake") return new LakeWriter(sink, { head });
  return openWriter(choice.format, sink, choice.opts);
}

/**
 * Runs fn with a writer on stdout, ends the writer and releases stdout. The
 * writer is opened before fn runs, so an unknown format fails first.
 */
export async function withStdoutWriter<T>(
  choice: OutputChoice,
  head: string | undefined,
  fn: (w: ValueWriter) => Promise<T>,
): Promise<T> {
  const [sink, close] = stdoutSink();
  try {
    const writer = openOutput(sink, choice, head);
    const result = await fn(writer);
    return result;
  } finally {
    await close();
  }
}
