// Running a query against a lake: the program's `from` sources open as pool
// scans or meta-query results; a program without `from` reads `from HEAD`.

import type { ValueReader, ValueWriter } from "../formats/io.ts";
import {
  type ast,
  type CompiledQuery,
  compileQuery,
  runQuery,
  runScoped,
  type SourceAccess,
  type SourcePlan,
  withinStack,
} from "../query/mod.ts";
import type { Lake } from "./lake.ts";
import { newScanStats, type ScanStats } from "./scan.ts";
import { CountScan } from "./count.ts";
import { type Head, openLakeSource } from "./sources.ts";
import { type ScanHelpers, ShareContext, type SharedPart } from "./share.ts";

const HEAD_SOURCE: ast.Source = {
  kind: "Pool",
  spec: { pool: { kind: "String", text: "HEAD" }, commit: null, meta: null },
  at: null,
  range: null,
  scan_order: null,
};

export interface LakeQueryOptions {
  head?: Head;
  /** Receives the counters of the query's scans (also returned). */
  stats?: ScanStats;
  /** What `file` and `get` sources may read (default: nothing; the CLI: everything). */
  access?: SourceAccess;
  /** Stops the work sources do on their own (a sort or summarize they perform) when aborted. */
  signal?: AbortSignal;
  /** Threads the query's counts and summaries may share their objects with (share.ts). */
  helpers?: ScanHelpers;
  /**
   * The output writes values as they are encoded (ZNG): a source whose
   * values are the output (SourcePlan.straight) decodes only what its
   * filter reads.
   */
  encodedOutput?: boolean;
}

/** A query compiled and its sources opened, ready to run. */
export interface PreparedQuery {
  query: CompiledQuery;
  readers: ValueReader[];
  stats: ScanStats;
  /** The query's shareable scans. */
  sharing: ShareContext;
}

/**
 * Compiles a query and opens its sources. Everything that can fail before
 * any output (syntax, unknown pools or branches) fails here.
 */
export function prepareLakeQuery(
  lake: Lake,
  text: string,
  opts: LakeQueryOptions = {},
): PreparedQuery {
  const query = compileQuery(text.trim() === "" ? "*" : text, { defaultSource: HEAD_SOURCE });
  const stats = opts.stats ?? newScanStats();
  const sharing = new ShareContext(opts.helpers ?? null);
  // Planning walks the query's expressions too.
  const encoded = opts.encodedOutput === true;
  const readers = withinStack(() =>
    query.sources!.map((plan) =>
      openLakeSource(lake, encoded && plan.straight ? straightEncoded(plan) : plan, {
        head: opts.head,
        stats,
        access: opts.access,
        signal: opts.signal,
        sharing,
      })
    )
  );
  return { query, readers, stats, sharing };
}

/** A straight source's plan for a writer of encoded values: only what its filters read decoded. */
function straightEncoded(plan: SourcePlan): SourcePlan {
  return { ...plan, encoded: { after: [] }, fields: plan.straight!.fields };
}

/**
 * A helper's share of a query's scan: the query planned again as its own
 * thread planned it, and the scan numbered `source` run over the objects
 * named (share.ts); null when there is no such scan, an object is not in its
 * snapshot or the part cannot be kept apart (it spilled).
 */
export async function runSharedPart(
  lake: Lake,
  text: string,
  opts: LakeQueryOptions & { memoryLimit?: number },
  source: number,
  objects: string[],
): Promise<SharedPart | null> {
  const p = prepareLakeQuery(lake, text, { ...opts, helpers: undefined });
  try {
    const scan = p.sharing.scan(source);
    if (scan === undefined) return null;
    return await runScoped(() => scan.partial(new Set(objects)), opts.memoryLimit);
  } finally {
    for (const r of p.readers) await r.close?.().catch(() => {});
  }
}

/**
 * True when every source of a prepared query is a count the catalog answers
 * (no object's data is read): work too small to be worth a worker thread.
 */
export function answeredFromMetadata(p: PreparedQuery): boolean {
  return p.readers.length > 0 &&
    p.readers.every((r) => r instanceof CountScan && r.fromMetadataOnly());
}

/**
 * False when no data could make answeredFromMetadata hold of the query:
 * some source is not a count with no filter or a key range's.
 */
export function mayAnswerFromMetadata(p: PreparedQuery): boolean {
  return p.readers.length > 0 && p.readers.every((r) => r instanceof CountScan && r.metadataShaped);
}

/** Compiles and runs a query over the lake, writing its output; returns what the scans read. */
export async function runLakeQuery(
  lake: Lake,
  text: string,
  writer: ValueWriter,
  opts: LakeQueryOptions = {},
): Promise<ScanStats> {
  const p = prepareLakeQuery(lake, text, opts);
  await runQuery(p.query, p.readers, writer, { signal: opts.signal });
  return p.stats;
}
