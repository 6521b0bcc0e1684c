// `loch query` against a lake (as `zed query`): the query's `from` sources are
// pools and meta-queries of the lake; `from HEAD`, and a query without
// `from`, read the pool and branch of -use (or `loch use`).

import type { FlagValues } from "../flags.ts";
import { parseQuery } from "../../query/parser/parse.ts";
import { runLakeQuery } from "../../lake/query.ts";
import { newScanStats } from "../../lake/scan.ts";
import { type Commitish, withLake } from "./lakeflags.ts";
import { type OutputChoice, withStdoutWriter } from "./output.ts";

/** True when the query starts with `from` and reads pools (not files or URLs). */
export function isLakeQuery(text: string): boolean {
  let first;
  try {
    first = parseQuery(text).ops[0];
  } catch {
    return false;
  }
  return first?.kind === "From" && first.trunks.some((t) => t.source.kind === "Pool") &&
    first.trunks.every((t) => t.source.kind === "Pool" || t.source.kind === "Pass");
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
  return await withLake(flags, async (lake) => {
    const stats = newScanStats();
    await withStdoutWriter(output, undefined, (w) =>
      runLakeQuery(lake, text, w, {
        head: head === undefined ? undefined : { pool: head.pool, branch: head.branch },
        stats,
      }));
    if (flags.s) console.error(statsText(stats.bytesRead, stats.recordsRead, stats.recordsMatched));
    return 0;
  });
}
