// Shared pieces of the lake tests: a lake in a temporary directory, loading
// ZSON text, running a query to one-line ZSON text with its scan counters.

import { openReader } from "../../lib/formats/detect.ts";
import { ByteInput, type ValueReader } from "../../lib/formats/io.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import type { Batch } from "../../lib/zed/value.ts";
import { Lake } from "../../lib/lake/lake.ts";
import { load, type LoadOptions, type LoadResult } from "../../lib/lake/load.ts";
import { type CreatePool, createPool, type PoolConfig } from "../../lib/lake/pools.ts";
import { type LakeQueryOptions, runLakeQuery } from "../../lib/lake/query.ts";
import type { ScanStats } from "../../lib/lake/scan.ts";
import { setUseColumns } from "../../lib/lake/sources.ts";
import assert from "node:assert/strict";
import { testCatalog, testStorage } from "../infra/test_catalog.ts";
import { concatBytes } from "../formats/zng_helpers.ts";
import { bytesEqual } from "../../lib/zed/bytes.ts";

const encoder = new TextEncoder();

/** A query's results and stats read by rows only, then with columns. */
export async function bothPaths(lake: Lake, q: string) {
  setUseColumns(false);
  let rows;
  try {
    rows = await query(lake, q);
  } finally {
    setUseColumns(true);
  }
  return { rows, cols: await query(lake, q) };
}

/** Runs fn with a fresh lake in a temporary directory, then closes and removes it. */
export async function withLake(
  fn: (lake: Lake, dir: string) => void | Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "loch-lake-test-" });
  const lake = await Lake.open(testStorage(dir), { catalog: await testCatalog() });
  try {
    await fn(lake, dir);
  } finally {
    lake.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs fn with a temporary directory (no lake opened), then removes it. */
export async function withDir(fn: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "loch-lake-test-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A pool keyed on `key` (a dotted path) in the given order. */
export function keyedPool(
  lake: Lake,
  name: string,
  key: string,
  order: "asc" | "desc" = "asc",
  more: Omit<CreatePool, "name" | "layout"> = {},
): PoolConfig {
  return createPool(lake, { name, layout: { order, keys: [key.split(".")] }, ...more });
}

/** bytes as an input of chunks of the given sizes (cycled). */
export function chunked(bytes: Uint8Array, sizes: number[]): ByteInput {
  let at = 0, k = 0;
  const it = (async function* () {
    while (at < bytes.length) {
      const n = sizes[k++ % sizes.length];
      yield bytes.slice(at, at + n);
      at += n;
    }
  })();
  return new ByteInput(it, "body");
}

/** A reader a load cannot take bytes from: every value comes through read(). */
export function valuesOnly(r: ValueReader): ValueReader {
  return { read: () => r.read() };
}

/** A reader over text in any auto-detected format. */
export function textReader(text: string): Promise<ValueReader> {
  return openReader(ByteInput.fromBytes(encoder.encode(text)));
}

/** Loads text (ZSON or any detectable format) into a branch. */
export async function loadText(
  lake: Lake,
  pool: PoolConfig,
  text: string,
  branch = "main",
  opts: LoadOptions = {},
): Promise<LoadResult> {
  return await load(lake, pool, branch, await textReader(text), opts);
}

export interface QueryResult {
  /** The output, one ZSON value per line. */
  text: string;
  lines: string[];
  stats: ScanStats;
}

/** Runs a lake query, collecting its output as one-line ZSON. */
export async function query(
  lake: Lake,
  text: string,
  opts: LakeQueryOptions = {},
): Promise<QueryResult> {
  let out = "";
  const decoder = new TextDecoder();
  const writer = new ZsonWriter((c) => {
    out += decoder.decode(c, { stream: true });
    return Promise.resolve();
  });
  const stats = await runLakeQuery(lake, text, writer, opts);
  out += decoder.decode();
  return { text: out, lines: out.split("\n").filter((l) => l !== ""), stats };
}

/** The output lines of a lake query. */
export async function lines(lake: Lake, text: string, opts: LakeQueryOptions = {}) {
  return (await query(lake, text, opts)).lines;
}

/** The error message a promise rejects with (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected a rejection");
}

/** The error message a function throws (fails when it returns). */
export function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected an exception");
}

/** One ZSON record per line: `{<key>:<n>,...rest}` for each n. */
export function records(ns: Iterable<number>, make: (n: number) => string): string {
  let s = "";
  for (const n of ns) s += make(n) + "\n";
  return s;
}

/** 0, 1, ..., n-1 */
export function range(n: number, from = 0): number[] {
  return Array.from({ length: n }, (_, i) => from + i);
}

/** A time literal n seconds after the epoch. */
export function secs(n: number): string {
  return new Date(n * 1000).toISOString().replace(".000Z", "Z");
}

/** The files under a pool's data directory (names only; none when absent), through storage. */
export async function dataFiles(lake: Lake, pool: PoolConfig): Promise<string[]> {
  const entries = await lake.storage.list(`${lake.poolDir(pool.id)}/data`);
  return entries.filter((e) => !e.isDir).map((e) => e.name).sort();
}

/** A file of the lake, whole, through its storage (a directory or S3). */
export async function readStored(lake: Lake, path: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const c of lake.storage.readRange(path, 0, Number.MAX_SAFE_INTEGER)) chunks.push(c);
  return concatBytes(chunks);
}

/** A reader that hands out batches from a list of batch factories (one call per read). */
export class ScriptedReader implements ValueReader {
  private i = 0;
  constructor(private steps: (() => Batch | Promise<Batch>)[]) {}

  async read(): Promise<Batch | null> {
    if (this.i >= this.steps.length) return null;
    return await this.steps[this.i++]();
  }
}

/** The project root (for running fixtures in subprocesses). */
export const ROOT = new URL("../../", import.meta.url).pathname;

/** The lines of a query with columns used and not, which must agree; those lines. */
export async function agreed(lake: Lake, q: string): Promise<string[]> {
  setUseColumns(false);
  let rows: string[];
  try {
    rows = await lines(lake, q);
  } finally {
    setUseColumns(true);
  }
  const cols = await lines(lake, q);
  assert.deepEqual(cols, rows, q);
  return cols;
}

/** What a load did: its error, or its warnings, its objects' bytes and the pool's values. */
export interface Outcome {
  error: string | null;
  warnings: string[];
  objects: Uint8Array[];
  zson: string[];
  /** Values that came through the readers' read(). */
  throughRead?: number;
}

/** The outcome of run, a load into pool. */
export async function outcome(
  lake: Lake,
  pool: PoolConfig,
  run: () => Promise<LoadResult>,
): Promise<Outcome> {
  let res: LoadResult;
  try {
    res = await run();
  } catch (e) {
    return { error: await rejection(Promise.reject(e)), warnings: [], objects: [], zson: [] };
  }
  const objects: Uint8Array[] = [];
  for (const o of res.objects) objects.push(await readStored(lake, lake.objectPath(pool.id, o.id)));
  return {
    error: null,
    warnings: res.warnings,
    objects,
    zson: await lines(lake, `from ${pool.name}`),
  };
}

/**
 * Loads bytes (in format, or detected) arriving in chunks of the given
 * sizes, as the service does (a read error warns); unless fast, every value
 * through the reader's read() (no intake of JSON or ZNG bytes).
 */
export function loadInto(
  lake: Lake,
  pool: PoolConfig,
  bytes: Uint8Array,
  sizes: number[],
  fast: boolean,
  format = "auto",
): Promise<Outcome> {
  return outcome(lake, pool, async () => {
    const reader = await openReader(chunked(bytes, sizes), format);
    return load(lake, pool, "main", fast ? reader : valuesOnly(reader), { warnOnReadError: true });
  });
}

/**
 * Fails unless two outcomes are the same (compared piece by piece: a deep
 * diff of large ones takes minutes to print). Unless exact, the objects'
 * bytes are not compared and the values not in order: values equal as ZSON
 * whose encodings differ sort apart where their keys tie.
 */
export function assertSameOutcome(a: Outcome, b: Outcome, what: string, exact = true): void {
  assert.equal(a.error, b.error, what);
  assert.deepEqual(a.warnings, b.warnings, what);
  assert.equal(a.objects.length, b.objects.length, what);
  if (exact) {
    a.objects.forEach((o, k) => assert.ok(bytesEqual(o, b.objects[k]), `${what}: object ${k}`));
  }
  const [x, y] = exact ? [a.zson, b.zson] : [a.zson.toSorted(), b.zson.toSorted()];
  const line = x.findIndex((l, k) => l !== y[k]);
  assert.equal(x.length, y.length, what);
  assert.equal(line, -1, `${what}: line ${line}: ${x[line]} vs ${y[line]}`);
}

/** A seeded sequence of numbers in [0, 1) (a linear congruential generator), for property tests. */
export class Random {
  constructor(private x: number) {}
  next(): number {
    this.x = (this.x * 1103515245 + 12345) % 2147483648;
    return this.x / 2147483648;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }
}
