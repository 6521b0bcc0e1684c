// `loch query`: run a query over files or stdin, in the manner of Zed's zq,
// or over a lake, in the manner of `zed query`, when no input is given and
// the query starts with `from` (or -use names a pool).

import { invalid, LochError, messageOf } from "../errors.ts";
import {
  BatchesReader,
  compileQuery,
  isFromQuery,
  isYieldQuery,
  LOCAL_ACCESS,
  NULL,
  openSources,
  runQuery,
  setMemoryBudget,
  setQueryMemory,
} from "../query/mod.ts";
import type { ValueReader } from "../formats/io.ts";
import { type FlagSpec, flagUsage, type FlagValues, parseFlags } from "./flags.ts";
import { InputCounters, inputReader } from "./lake/inputs.ts";
import { lakeFlag, optionalHead, useFlag } from "./lake/lakeflags.ts";
import { chooseOutput, outputFlags, withStdoutWriter } from "./lake/output.ts";
import { isLakeQuery, queryLake, statsText } from "./lake/querylake.ts";
import { queryInShards } from "./parts.ts";
import { defaultWorkers } from "../service/workers/pool.ts";

export const queryFlags: FlagSpec[] = [
  { name: "i", kind: "string", arg: "format", default: "auto", help: "input format" },
  ...outputFlags("zng", "zng, or zson on a terminal"),
  { name: "s", kind: "bool", help: "print read and match counts to stderr at the end" },
  memmaxFlag(),
  queryMemoryFlag(),
  useFlag,
  lakeFlag,
  { name: "h", kind: "bool", help: "show this help" },
];

export const queryUsage = `usage: loch query [options] [query] [file ...]

Runs a Zed query over the files given (or stdin, as "-") and writes the
results to stdout. With no query, or "*" or "pass", values pass through.
If the first argument names an existing file, it is an input and the query
is "*". Input formats are detected unless -i names one.

With a query and no files, a query that starts with "from" (or any query
when -use is given) runs over the lake (-lake): "from pool", "from
pool@branch", "from :pools" and the other lake sources; a query without
"from" reads the pool and branch of -use (or of "loch use").

options:
${flagUsage(queryFlags)}`;

/** -memmax: the memory budget per operator before it spills to disk. */
export function memmaxFlag(): FlagSpec {
  return {
    name: "memmax",
    kind: "string",
    arg: "size",
    help: "memory per sort, summarize, fuse or join before it spills to disk, e.g. 512MiB " +
      "(default $LOCH_MEMORY_BUDGET, else 256MiB)",
  };
}

/** -query-memory: what one query may hold in all (spill/memory.ts). */
export function queryMemoryFlag(): FlagSpec {
  return {
    name: "query-memory",
    kind: "string",
    arg: "size",
    help: "memory one query may hold in all before it spills or fails, e.g. 2GiB " +
      "(default $LOCH_QUERY_MEMORY, else a quarter of the heap: 1GiB)",
  };
}

/** Applies -memmax and -query-memory, here and (through the environment) in workers. */
export function applyMemoryFlags(flags: FlagValues): void {
  const memmax = flags.memmax as string | undefined;
  if (memmax !== undefined) {
    setMemoryBudget(memmax);
    setEnv("LOCH_MEMORY_BUDGET", memmax);
  }
  const q = flags["query-memory"] as string | undefined;
  if (q !== undefined) {
    setQueryMemory(q);
    setEnv("LOCH_QUERY_MEMORY", q);
  }
}

function setEnv(name: string, value: string): void {
  try {
    Deno.env.set(name, value);
  } catch {
    // No --allow-env: no workers read it either.
  }
}

async function fileExists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** Runs `loch query`; returns the process exit code. */
export async function queryCommand(args: string[]): Promise<number> {
  let flags: FlagValues, rest: string[];
  try {
    [flags, rest] = parseFlags(queryFlags, args);
  } catch (e) {
    console.error(`${messageOf(e)}\nusage: loch query [options] [query] [file ...] (-h for help)`);
    return 2;
  }
  if (flags.h || rest.length === 0) {
    console.log(queryUsage);
    return flags.h ? 0 : 2;
  }
  applyMemoryFlags(flags);
  const output = chooseOutput(flags, "zng");
  let text = "*";
  let paths = rest;
  let nullInput = false;
  if (rest[0] !== "-" && !(await fileExists(rest[0]))) {
    text = rest[0];
    paths = rest.slice(1);
    if (paths.length === 0) {
      if (isLakeQuery(text) || flags.use !== undefined) {
        return await queryLake(flags, text, output, await optionalHead(flags));
      }
      // A lone query that starts with `from`, `file` or `get` reads its
      // sources; one that yields values runs once over a null value (as zq).
      if (!isFromQuery(text)) {
        if (!isYieldQuery(text)) throw new LochError("invalid", `no such file: ${text}`);
        nullInput = true;
      }
    }
  }
  const query = compileQuery(text);
  if (query.inputs === 0 && paths.length > 0) {
    throw invalid(
      "redundant inputs specified: use either command-line files or a Zed source operator",
    );
  }
  const counters = new InputCounters();
  // Large JSON files go through a splittable head on every core (parts.ts).
  const inShards = !nullInput && paths.length > 0 && query.inputs === 1 &&
    (query.sources?.length ?? 0) === 0;
  await withStdoutWriter(output, undefined, async (w) => {
    if (inShards) {
      const read = await queryInShards(text, paths, flags.i as string, defaultWorkers(), w);
      if (read !== null) {
        counters.records += read.records;
        counters.bytes += read.bytes;
        return;
      }
    }
    const readers: ValueReader[] = nullInput
      ? [new BatchesReader([[NULL]])]
      : paths.map((p) => inputReader(p, flags.i as string, counters));
    readers.push(...openSources(query.sources, LOCAL_ACCESS));
    await runQuery(query, readers, w);
  });
  if (flags.s) {
    // Files have no pushed-down filter: every value read is a match.
    console.error(statsText(counters.bytes, counters.records, counters.records));
  }
  return 0;
}
