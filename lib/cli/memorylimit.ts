// `loch serve -memory-limit`: what all queries of the server may hold
// together (the spill accounting's estimates, spill/memory.ts), split evenly
// among the threads that run them. Each thread's share also stays within
// half its heap, and a query's default limit within its thread's share; past
// them a query spills or fails with a 400, rather than grow the process.

import { parseByteSize, setThreadMemoryLimit, threadMemoryLimit } from "../query/mod.ts";
import type { FlagSpec, FlagValues } from "./flags.ts";
import { env, UsageError } from "./lake/lakeflags.ts";

export const memoryLimitFlag: FlagSpec = {
  name: "memory-limit",
  kind: "string",
  arg: "size",
  help: "memory all queries may hold together, split among the query threads, e.g. 8GiB " +
    "(default $LOCH_MEMORY_LIMIT, else half the machine's memory)",
};

/**
 * The machine's memory from /proc/meminfo (the server may read files; it is
 * not given the permission Deno.systemMemoryInfo needs), or null.
 */
export function machineMemory(meminfo?: string): number | null {
  let text = meminfo;
  if (text === undefined) {
    try {
      text = Deno.readTextFileSync("/proc/meminfo");
    } catch {
      return null;
    }
  }
  const m = /^MemTotal:\s+(\d+)\s+kB/m.exec(text);
  return m === null ? null : Number(m[1]) * 1024;
}

/**
 * Sets each query thread's share of the limit (-memory-limit, else
 * LOCH_MEMORY_LIMIT, else half the machine's memory; none when that is
 * unknown): here, and through LOCH_THREAD_MEMORY in the workers. Returns
 * this thread's limit for all its queries.
 */
export function applyMemoryLimit(flags: FlagValues, workers: number): number {
  let text = flags["memory-limit"] as string | undefined;
  if (text === undefined || text === "") text = env("LOCH_MEMORY_LIMIT");
  let limit: number | null;
  if (text !== undefined && text !== "") {
    try {
      limit = parseByteSize(text);
    } catch {
      throw new UsageError(`invalid -memory-limit: ${text}`);
    }
  } else {
    const machine = machineMemory();
    limit = machine === null ? null : Math.floor(machine / 2);
  }
  if (limit !== null) {
    const share = Math.floor(limit / Math.max(1, workers));
    try {
      Deno.env.set("LOCH_THREAD_MEMORY", String(share));
    } catch {
      // No --allow-env: the workers keep half their heaps.
    }
  }
  setThreadMemoryLimit(undefined);
  return threadMemoryLimit();
}
