// What a query holds, as a whole. Each operator that keeps values (sort,
// summarize and its aggregates, fuse, join, tail, top, the output buffer)
// counts them in a MemoryUse; the uses of one query run add up against the
// query's limit (`-query-memory`, LOCH_QUERY_MEMORY), and the uses of every
// query on this thread against the thread's share of its heap. Past either,
// an operator that can spill does (if it holds enough to matter) and one
// that cannot fails the query with a client's error: V8 does not fail
// politely when its heap runs out, it aborts the process, every client's
// work with it.
//
// The sizes are the spill accounting's estimates (spill/size.ts) of the
// values held, not V8's own; the limits leave room for the difference.

import { getHeapStatistics } from "node:v8";
import { invalid, type LochError } from "../../errors.ts";
import { parseByteSize } from "./config.ts";

/** Past it, a spillable operator over the query's limit spills rather than fails. */
export const MIN_SPILL_BYTES = 1 << 20;

/** The thread's share of its V8 heap that queries may hold, all of them together. */
const THREAD_SHARE = 0.5;

let threadHeld = 0;
let threadLimit: number | undefined;
let queryLimit: number | undefined;

function heapLimit(): number {
  return getHeapStatistics().heap_size_limit;
}

/** Estimated bytes all queries on this thread hold now. */
export function threadMemoryHeld(): number {
  return threadHeld;
}

/**
 * What all queries on this thread may hold together: its share of the
 * server's memory limit (LOCH_THREAD_MEMORY, set by `loch serve
 * -memory-limit`), at most half its heap.
 */
export function threadMemoryLimit(): number {
  if (threadLimit === undefined) {
    const heapShare = Math.floor(heapLimit() * THREAD_SHARE);
    let share: number | undefined;
    try {
      const e = Deno.env.get("LOCH_THREAD_MEMORY");
      share = e === undefined || e === "" ? undefined : parseByteSize(e);
    } catch {
      share = undefined; // no --allow-env, or not a size: the heap's share applies
    }
    threadLimit = share === undefined ? heapShare : Math.min(share, heapShare);
  }
  return threadLimit;
}

/** The default query limit: a quarter of the heap (1 GiB of a 4 GiB heap), at most the thread's. */
function defaultQueryLimit(): number {
  return Math.min(Math.floor(heapLimit() / 4), threadMemoryLimit());
}

/** The most estimated bytes one query may hold (LOCH_QUERY_MEMORY, else the default). */
export function queryMemoryLimit(): number {
  if (queryLimit === undefined) {
    let e: string | undefined;
    try {
      e = Deno.env.get("LOCH_QUERY_MEMORY");
    } catch {
      e = undefined; // no --allow-env: the default applies
    }
    queryLimit = e === undefined || e === "" ? defaultQueryLimit() : checkedLimit(e);
  }
  return queryLimit;
}

function checkedLimit(text: string): number {
  try {
    return parseByteSize(text);
  } catch {
    throw invalid(`invalid LOCH_QUERY_MEMORY: ${text}`);
  }
}

/** Sets the query limit (a size as parseByteSize takes, or bytes); undefined restores the default. */
export function setQueryMemory(size: string | number | undefined): void {
  queryLimit = size === undefined
    ? undefined
    : typeof size === "number"
    ? Math.floor(size)
    : parseByteSize(size);
}

/** Sets this thread's limit for all queries together (tests); undefined restores the default. */
export function setThreadMemoryLimit(bytes: number | undefined): void {
  threadLimit = bytes;
}

/** One query's account: what its operators hold, against its limit and the thread's. */
export class QueryMemory {
  held = 0;

  constructor(readonly limit: number = queryMemoryLimit()) {}

  charge(n: number): void {
    this.held += n;
    threadHeld += n;
  }

  release(n: number): void {
    this.held -= n;
    threadHeld -= n;
  }

  /** Whether the query, or the thread's queries together, hold more than allowed. */
  get over(): boolean {
    return this.held > this.limit || threadHeld > threadMemoryLimit();
  }

  /** The error of a query that would hold more than allowed; what: the operator's words. */
  exceeded(what: string): LochError {
    const mib = (n: number) => `${Math.round(n / 2 ** 20)} MiB`;
    if (this.held > this.limit) {
      // The flag that sets it: the query's own, or the server's when the thread's share is less.
      const flag = this.limit < threadMemoryLimit() ? "-query-memory" : "-memory-limit";
      return invalid(
        `query memory limit exceeded: ${what} would hold more than the query's ${
          mib(this.limit)
        } (${flag})`,
      );
    }
    return invalid(
      `query memory limit exceeded: ${what} would take the queries running here past ${
        mib(threadMemoryLimit())
      }; try again later`,
    );
  }

  /** Gives back what the query still holds (it ended, failed or was abandoned). */
  close(): void {
    threadHeld -= this.held;
    this.held = 0;
  }
}

/**
 * What one operator holds, counted in its query's account. An operator
 * adds as it keeps values and clears when it spills or hands them on.
 */
export class MemoryUse {
  private held = 0;

  constructor(private readonly account: QueryMemory, private readonly what: string) {}

  get bytes(): number {
    return this.held;
  }

  add(n: number): void {
    this.held += n;
    this.account.charge(n);
  }

  clear(): void {
    this.account.release(this.held);
    this.held = 0;
  }

  /** Whether the query as a whole is over its limit. */
  get over(): boolean {
    return this.account.over;
  }

  /**
   * For an operator that spills past its own budget: whether to spill now
   * (over its budget, or the query over its limit and this holding enough
   * to matter). Throws when the query is over its limit and spilling this
   * would not help.
   */
  shouldSpill(budget: number): boolean {
    if (this.held > budget) return true;
    if (!this.account.over) return false;
    if (this.held >= MIN_SPILL_BYTES) return true;
    throw this.account.exceeded(this.what);
  }

  /** For an operator that cannot spill: throws when the query is over its limit. */
  check(): void {
    if (this.account.over) throw this.account.exceeded(this.what);
  }
}
