// The formats loch reads and writes, by name. Input formats may carry a
// detector for auto-detection (see detect.ts); output formats make a writer
// for a sink.

import {
  type ByteInput,
  type Detector,
  type Sink,
  TextInput,
  type ValueReader,
  type ValueWriter,
} from "./io.ts";
import { detectJson, JsonReader } from "./json/reader.ts";
import { JsonWriter } from "./json/writer.ts";
import { detectZjson, ZjsonReader } from "./zjson/reader.ts";
import { ZjsonWriter } from "./zjson/writer.ts";
import { detectZson, ZsonReader } from "./zson/reader.ts";
import { ZsonWriter } from "./zson/writer.ts";
import { lazyReader, lazyWriter } from "./lazy.ts";
import { CsvReader, detectCsv } from "./csv/reader.ts";
import { CsvWriter } from "./csv/writer.ts";
import { LineReader } from "./line/reader.ts";
import { detectZng, ZngReader } from "./zng/reader.ts";
import { detectZng21, Zng21Reader } from "./zng21/reader.ts";
import { ZngWriter } from "./zng/writer.ts";
import { detectZeek, ZeekReader } from "./zeek/reader.ts";
import { ZeekWriter } from "./zeek/writer.ts";
import { TableWriter } from "./text/table.ts";
import { TextWriter } from "./text/text.ts";
import { invalid } from "../errors.ts";

export interface InputFormat {
  readonly name: string;
  open(input: ByteInput): ValueReader;
  /** Tries the start of the input as this format. */
  detect?: Detector;
}

const textFormat = (
  name: string,
  make: (t: TextInput) => ValueReader,
  detect?: Detector,
): InputFormat => ({ name, open: (input) => make(new TextInput(input)), detect });

const binaryFormat = (
  name: string,
  make: (input: ByteInput) => ValueReader,
  detect?: Detector,
): InputFormat => ({ name, open: make, detect });

const inputFormats: InputFormat[] = [
  textFormat("zeek", (t) => new ZeekReader(t), detectZeek),
  binaryFormat(
    "parquet",
    lazyReader(async (i) => new (await import("./parquet/reader.ts")).ParquetReader(i)),
  ),
  binaryFormat(
    "arrows",
    lazyReader(async (i) => new (await import("./arrow/reader.ts")).ArrowStreamReader(i)),
  ),
  textFormat("csv", (t) => new CsvReader(t), detectCsv),
  textFormat("line", (t) => new LineReader(t)),
  textFormat("zjson", (t) => new ZjsonReader(t), detectZjson),
  textFormat("json", (t) => new JsonReader(t), detectJson),
  textFormat("zson", (t) => new ZsonReader(t), detectZson),
  binaryFormat("zng", (input) => new ZngReader(input), detectZng),
  binaryFormat("zng21", (input) => new Zng21Reader(input), detectZng21),
];

/** Detectors in the order the reference tries them. */
export const detectionOrder = ["zeek", "zjson", "json", "zson", "zng", "zng21", "csv"];
/** The order the reference lists failures in `format detection error`. */
export const detectionReportOrder = [
  "zeek",
  "zjson",
  "zson",
  "zng",
  "zng21",
  "csv",
  "json",
  "parquet",
  "zst",
  "line",
];

/** Formats the reference lists as not auto-detectable. */
export const undetectable = new Set(["parquet", "zst", "line", "arrows"]);

const aliases: Record<string, string> = { ndjson: "json" };

export function inputFormat(name: string): InputFormat | undefined {
  const n = aliases[name] ?? name;
  return inputFormats.find((f) => f.name === n);
}

export function inputFormatNames(): string[] {
  return inputFormats.map((f) => f.name);
}

export interface WriterOptions {
  /** ZSON indent (default 4 for `-f zson`). */
  pretty?: number;
  /** ZSON: keep named type definitions matching this across values. */
  persist?: RegExp;
  /** ZNG: LZ4-compress frames (default true). */
  zngCompress?: boolean;
  /** ZNG: buffered bytes that make a frame (default 512 KiB). */
  zngFrameThreshold?: number;
}

type WriterFactory = (sink: Sink, opts: WriterOptions) => ValueWriter;

const outputFormats: Record<string, WriterFactory> = {
  zson: (sink, o) => new ZsonWriter(sink, { pretty: o.pretty ?? 4, persist: o.persist }),
  zjson: (sink) => new ZjsonWriter(sink),
  json: (sink) => new JsonWriter(sink),
  ndjson: (sink) => new JsonWriter(sink),
  parquet: lazyWriter(async (s) => new (await import("./parquet/writer.ts")).ParquetWriter(s)),
  arrows: lazyWriter(async (s) => new (await import("./arrow/writer.ts")).ArrowStreamWriter(s)),
  csv: (sink) => new CsvWriter(sink),
  zeek: (sink) => new ZeekWriter(sink),
  table: (sink) => new TableWriter(sink),
  text: (sink) => new TextWriter(sink),
  zng: (sink, o) =>
    new ZngWriter(sink, { compress: o.zngCompress, frameThreshold: o.zngFrameThreshold }),
};

export function outputFormatNames(): string[] {
  return Object.keys(outputFormats);
}

/** A writer for the named output format; unknown names are an error. */
export function openWriter(name: string, sink: Sink, opts: WriterOptions = {}): ValueWriter {
  const f = outputFormats[name];
  if (f === undefined) throw invalid(`unknown format: ${name}`);
  return f(sink, opts);
}
