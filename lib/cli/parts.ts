// `loch query` over large JSON files on every core: a query whose head is
// filters and a summarize that merges (query/split.ts) reads its files in
// shards, contiguous byte ranges of about equal size cut where JSON text may
// be cut (formats/json/cuts.ts). This thread reads the first shard while
// worker threads (partworker.ts) read the others, each summarizing its
// values on its own; their groups, saved, come back in transferred buffers
// and are merged in file order, so the answer is the one a single pass
// gives. Anything out of the ordinary — an input that is not plain JSON, a
// part that fails to parse, groups that spilled, a worker that dies — makes
// the caller run the query the usual way, in one pass (nothing has been
// written by then), so its output and errors are exactly as before.

import { messageOf } from "../errors.ts";
import { detectedFormat, openReader } from "../formats/detect.ts";
import { ByteInput, type ValueWriter } from "../formats/io.ts";
import { CONTINUATION, findCut } from "../formats/json/cuts.ts";
import { fileRange, readAtSync } from "../lake/storage.ts";
import { maybeYield, type PartRun, runScoped, SplitQuery } from "../query/mod.ts";
import { envNumber } from "../env.ts";

/** Bytes [start, end) of a file, of size bytes in all. */
export interface FileRange {
  path: string;
  start: number;
  end: number;
  size: number;
}

/** What a shard's reading gave: its groups saved, and how many values it read. */
export interface ShardResult {
  saved: Uint8Array | null;
  records: number;
}

/** Files of fewer bytes in all are read in one pass (LOCH_QUERY_SPLIT_BYTES overrides). */
export function splitMinBytes(): number {
  return envNumber("LOCH_QUERY_SPLIT_BYTES", 128 << 20, 0);
}

/**
 * Runs the query over the files in shards, one per thread (threads: this
 * one and threads - 1 workers), writing its output; the values and bytes
 * it read, or null, having written nothing, when it cannot (the caller
 * runs it in one pass).
 */
export async function queryInShards(
  text: string,
  paths: string[],
  format: string,
  threads: number,
  writer: ValueWriter,
): Promise<{ records: number; bytes: number } | null> {
  if (threads < 2 || (format !== "auto" && format !== "json")) return null;
  const split = SplitQuery.of(text);
  if (split === null) return null;
  const sizes: number[] = [];
  for (const p of paths) {
    if (p === "-") return null;
    const info = await Deno.stat(p).catch(() => null);
    if (info === null || !info.isFile || !(await isJson(p, format))) return null;
    sizes.push(info.size);
  }
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total < Math.max(1, splitMinBytes())) return null;
  const shards = await shardsOf(paths, sizes, threads);
  if (shards.length < 2) return null;
  const workers = shards.slice(1).map((s) => readInWorker(text, s));
  workers.forEach((p) => p.catch(() => {}));
  const done = await runScoped(async () => {
    let first: PartRun;
    try {
      first = await readShard(split, shards[0]);
    } catch {
      return null;
    }
    const others = await Promise.all(workers.map((p) => p.catch(() => null)));
    if (others.some((o) => o === null || o.saved === null)) return null;
    await split.finish(first, others.map((o) => o!.saved!), writer);
    return first.records + others.reduce((n, o) => n + o!.records, 0);
  });
  return done === null ? null : { records: done, bytes: total };
}

/** Whether openReader would read the file as JSON (not gzip, not another format). */
async function isJson(path: string, format: string): Promise<boolean> {
  const file = await Deno.open(path);
  const input = ByteInput.fromFile(file, path, 64 << 10);
  try {
    return (await detectedFormat(input, format)) === "json";
  } finally {
    await input.cancel().catch(() => {});
  }
}

/**
 * The files cut into n shards of about equal bytes: shard k runs from
 * the first cut at or after k/n of the bytes in all to the next shard's
 * start (fewer shards where no cut is found near a mark).
 */
export async function shardsOf(
  paths: string[],
  sizes: number[],
  n: number,
): Promise<FileRange[][]> {
  const total = sizes.reduce((a, b) => a + b, 0);
  // Marks: [file index, offset] where each shard after the first starts.
  const marks: [number, number][] = [];
  for (let k = 1; k < n; k++) {
    let at = Math.floor((total * k) / n);
    let f = 0;
    while (at >= sizes[f]) at -= sizes[f++];
    const cut = await cutNear(paths[f], at);
    const mark: [number, number] = cut === null ? [f + 1, 0] : [f, cut];
    const last = marks[marks.length - 1];
    if (mark[0] >= paths.length) continue;
    if (last !== undefined && (mark[0] < last[0] || (mark[0] === last[0] && mark[1] <= last[1]))) {
      continue;
    }
    if (mark[0] === 0 && mark[1] === 0) continue;
    marks.push(mark);
  }
  const shards: FileRange[][] = [];
  const starts: [number, number][] = [[0, 0], ...marks];
  for (let k = 0; k < starts.length; k++) {
    const [f0, o0] = starts[k];
    const [f1, o1] = k + 1 < starts.length ? starts[k + 1] : [paths.length, 0];
    const ranges: FileRange[] = [];
    for (let f = f0; f <= f1 && f < paths.length; f++) {
      const start = f === f0 ? o0 : 0;
      const end = f === f1 ? o1 : sizes[f];
      if (end > start) ranges.push({ path: paths[f], start, end, size: sizes[f] });
    }
    shards.push(ranges);
  }
  return shards;
}

/** Bytes looked at past a mark for a place to cut, at most. */
const CUT_WINDOW = 4 << 20;

/** The offset of the first cut at or after at in the file (null: none near it). */
async function cutNear(path: string, at: number): Promise<number | null> {
  // A file's start is a cut.
  if (at === 0) return 0;
  const file = await Deno.open(path);
  try {
    const buf = new Uint8Array(CUT_WINDOW);
    const cut = findCut(buf.subarray(0, readAtSync(file, at, buf)), 0);
    return cut < 0 ? null : at + cut;
  } finally {
    file.close();
  }
}

/** Reads a shard's ranges in order into a fresh run of the query's head. */
export async function readShard(split: SplitQuery, ranges: FileRange[]): Promise<PartRun> {
  const run = split.part();
  for (const r of ranges) {
    const reader = await openReader(rangeInput(r), "json", {
      continuation: r.end < r.size ? () => CONTINUATION : () => null,
    });
    try {
      for (let b = await reader.read(); b !== null; b = await reader.read()) {
        run.push(b);
        await maybeYield();
      }
    } finally {
      await reader.close?.();
    }
  }
  return run;
}

/** The bytes [start, end) of a file. */
function rangeInput(r: FileRange): ByteInput {
  const it = (async function* () {
    yield* fileRange(await Deno.open(r.path), r.start, r.end - r.start);
  })();
  return new ByteInput(it, r.path);
}

/** What the main thread sends a part worker. */
export interface ShardJob {
  text: string;
  ranges: FileRange[];
}

/** What a part worker answers. */
export type ShardAnswer = ShardResult | { error: string };

/** Reads a shard on a worker of its own (which ends with it). */
function readInWorker(text: string, ranges: FileRange[]): Promise<ShardResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL("./partworker.ts", import.meta.url).href, { type: "module" });
    const end = () => w.terminate();
    w.onmessage = (e: MessageEvent<ShardAnswer>) => {
      end();
      if ("error" in e.data) reject(new Error(e.data.error));
      else resolve(e.data);
    };
    w.onerror = (e) => {
      e.preventDefault();
      end();
      reject(new Error(`query part worker failed: ${messageOf(e.message)}`));
    };
    w.postMessage({ text, ranges } satisfies ShardJob);
  });
}
