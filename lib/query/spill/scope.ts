// Who owns spill files. A query run (runQuery) opens a SpillScope for its
// whole duration, async parts included (AsyncLocalStorage), and closes it
// when the query finishes, fails or is abandoned: every spill file the
// query's operators made and did not remove yet is removed then. Operators
// outside a run (tests, a scan feeding its own summarize) use the process
// scope; every live file is also removed when the process unloads.

import { AsyncLocalStorage } from "node:async_hooks";
import { memoryBudget, spillDir } from "./config.ts";
import { MemoryUse, QueryMemory } from "./memory.ts";

/** A temporary file that can be removed (closing what it has open). */
export interface Removable {
  remove(): void;
}

export class SpillScope {
  private readonly files = new Set<Removable>();
  private readonly fixedBudget: number | undefined;
  /** What the query's operators hold, against its limit (spill/memory.ts). */
  readonly memory: QueryMemory;

  /**
   * budget: estimated bytes per operator; the process-wide setting when
   * undefined. memoryLimit: estimated bytes the whole query may hold.
   */
  constructor(budget?: number, memoryLimit?: number) {
    this.fixedBudget = budget;
    this.memory = new QueryMemory(memoryLimit);
  }

  /** A new account for what one operator holds (what: its words in errors). */
  use(what: string): MemoryUse {
    return new MemoryUse(this.memory, what);
  }

  get budget(): number {
    return this.fixedBudget ?? memoryBudget();
  }

  get dir(): string | undefined {
    return spillDir();
  }

  add(f: Removable): void {
    this.files.add(f);
    live.add(f);
    created++;
  }

  /** Forgets a file its owner removed. */
  forget(f: Removable): void {
    this.files.delete(f);
    live.delete(f);
  }

  /** How many files are live in this scope. */
  get size(): number {
    return this.files.size;
  }

  /** Removes every file still live in the scope, and gives back what the query held. */
  close(): void {
    this.memory.close();
    for (const f of [...this.files]) {
      try {
        f.remove();
      } catch {
        // already gone or not removable: nothing more to do
      }
    }
    this.files.clear();
  }
}

/** Every live spill file of the process, for the unload handler. */
const live = new Set<Removable>();
/** Spill files made so far by the process. */
let created = 0;

// Operators outside a query run answer only to the thread's limit.
const processScope = new SpillScope(undefined, Infinity);
const storage = new AsyncLocalStorage<SpillScope>();

/** The scope of the running query, or the process scope. */
export function currentScope(): SpillScope {
  return storage.getStore() ?? processScope;
}

/** Runs fn (and everything it awaits) in the scope. */
export function runInScope<T>(scope: SpillScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** Live spill files in the whole process (tests check that none are left). */
export function liveSpillFiles(): number {
  return live.size;
}

/** Spill files made so far by the process (tests check that spilling happened). */
export function spillFilesCreated(): number {
  return created;
}

globalThis.addEventListener("unload", () => {
  for (const f of [...live]) {
    try {
      f.remove();
    } catch {
      // best effort at exit
    }
  }
});
