// `loch query` against a lake (as `zed query`): the query's `from` sources are
// pools and meta-queries of the lake; `from HEAD`, and a query without
// `from`, read the pool and branch of -use (or `loch use`). Against a lake
// service the query runs there and its results are written here.

import type { FlagValues } from "../flags.ts";
import { parseQuery } from "../../query/mod.ts";
import { newQueryStats } from "../../client/query.ts";
import { type Commitish, withLake } from "./lakeflags.ts";
import { type OutputChoice, withStdoutWriter } from "./output.ts";

/** True when the query starts with `from` and reads a pool (files and URLs may join it). */
export function isLakeQuery(text: string): boolean {
  let first;
  try {
    first = parseQuery(text).ops[0];
  } catch {
    return false;
  }
  return first?.kind === "From" && first.trunks.some((t) => t.source.kind === "Pool");
}

/** `-s` output: what was read and matched, as one-line ZSON. */
export function statsText(bytesRead: number, recordsRead: number, recordsMatched: number): string {
  return `{bytes_read:${bytesRead},records_read:${recordsRead},records_matched:${recordsMatched}}`;
}

export async function queryLake(
  flags: FlagValues,
  text: string,
  output: OutputChoice,
  head: Commitish | undefined,
): Promise<number> {
  return await withLake(flags, async (api) => {
    const stats = newQueryStats();
    await withStdoutWriter(output, undefined, (w) =>
      api.query(text, w, {
        head: head === undefined ? undefined : { pool: head.pool, branch: head.branch },
        stats,
        encodedOutput: output.format === "zng",
      }));
    if (flags.s) console.error(statsText(stats.bytesRead, stats.recordsRead, stats.recordsMatched));
    return 0;
  });
}
