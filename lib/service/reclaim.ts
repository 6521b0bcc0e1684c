// Returning memory to the system once a thread goes idle. V8 keeps the heap
// a warm-up, a big load or a big query grew, and collects it lazily; a full
// collection when nothing has run for a moment gives its pages back, so an
// idle server holds what its state needs rather than its high-water mark.
// But a full collection costs the next queries: V8 drops the compiled code
// that refers to objects that died (most of what the last queries ran), and
// the next query after one ran 2–3x slower here (a keyword search over HTTP
// 48–79 ms instead of ~20), the two after it 1.5x. So an idle thread
// collects only when its heap grew by much since its last collection.
// The C heap (V8's compiler zones, buffers of I/O and of ArrayBuffers) keeps
// its freed pages too, scattered among live ones; glibc's malloc_trim gives
// them back (about 45 MB of a warmed-up server's 265), where the process may
// call it (Deno's --allow-ffi).

import v8 from "node:v8";
import vm from "node:vm";
import { envNumber } from "../env.ts";

let gc: (() => void) | null | undefined;

/** V8's heap of this thread, committed, in bytes. */
function heapBytes(): number {
  return v8.getHeapStatistics().total_heap_size;
}

/** The heap after this thread's last full collection (before one: at start). */
let heapAtRest = heapBytes();

/**
 * Runs a full garbage collection now (V8's `gc`, exposed to a fresh context
 * for this call's isolate), then gives the C heap's free pages back
 * (trimNativeHeap). Returns false where the runtime refuses the collection.
 */
export function collectGarbage(): boolean {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString("--expose-gc");
      const fn = vm.runInNewContext("gc");
      gc = typeof fn === "function" ? fn as () => void : null;
    } catch {
      gc = null;
    }
  }
  if (gc === null) return false;
  gc();
  heapAtRest = heapBytes();
  trimNativeHeap();
  return true;
}

let trim: (() => void) | null | undefined;

/**
 * Returns the free pages of the process's C heap to the system (glibc's
 * malloc_trim, which trims every thread's arena). False where it cannot:
 * not Linux with glibc, or FFI not allowed (never asked for: no prompt).
 */
export function trimNativeHeap(): boolean {
  if (trim === undefined) {
    trim = null;
    try {
      if (
        Deno.build.os === "linux" && Deno.permissions.querySync({ name: "ffi" }).state === "granted"
      ) {
        const libc = Deno.dlopen("libc.so.6", {
          malloc_trim: { parameters: ["usize"], result: "i32" },
        });
        trim = () => libc.symbols.malloc_trim(0n);
      }
    } catch {
      // No glibc (musl, a static build): nothing to trim with.
    }
  }
  if (trim === null) return false;
  trim();
  return true;
}

/**
 * Turns V8's memory reducer off for the threads started from now on (the
 * query workers): when a thread goes quiet after work, the reducer runs full
 * collections of its own, which drop compiled code as any full collection
 * does (a keyword search after a 12 s pause took 29–66 ms with it, 20–34
 * without, ~20 back to back). IdleReclaim returns the memory that matters.
 */
export function keepCompiledCodeWhenIdle(): void {
  try {
    v8.setFlagsFromString("--no-memory-reducer");
  } catch {
    // The runtime refuses: only speed after pauses is lost.
  }
}

/**
 * Counts a thread's work in progress and, when it has had none for idleMs
 * (the timer never keeps the process alive), collects garbage if its heap
 * grew by growthBytes or more since its last full collection, and else only
 * trims the C heap.
 */
export class IdleReclaim {
  private active = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Collections run (for tests and metrics). */
  collections = 0;

  constructor(
    private readonly idleMs = defaultIdleMs(),
    private readonly growthBytes = defaultGrowthBytes(),
  ) {}

  begin(): void {
    this.active++;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Ends a piece of work. (Collecting at once after a big load, rather than
   * once idle, was tried: the loads after it ran 20% slower at 10x.)
   */
  end(): void {
    if (this.active > 0) this.active--;
    if (this.active > 0 || this.idleMs < 0 || this.timer !== undefined) return;
    const timer = setTimeout(() => {
      this.timer = undefined;
      if (this.active > 0) return;
      if (heapBytes() - heapAtRest < this.growthBytes) trimNativeHeap();
      else if (collectGarbage()) this.collections++;
    }, this.idleMs);
    Deno.unrefTimer(timer);
    this.timer = timer;
  }

  /** Stops a pending collection (a server closing). */
  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * LOCH_RECLAIM_IDLE_MS, else 10 s; a negative value turns idle collection
 * off. Not sooner: the first big load after a full collection runs up to
 * twice as slow (its compiled code and the heap's sizing start over), so
 * loads a few seconds apart should not pay that each time.
 */
function defaultIdleMs(): number {
  return envNumber("LOCH_RECLAIM_IDLE_MS", 10_000);
}

/**
 * LOCH_RECLAIM_GROWTH_MB, else 128: what an idle thread's heap must have
 * grown by for it to collect. Queries of the usual sizes grow it by 30–50
 * (the young generation's room), a load of the 27 MB dns log by over 100.
 */
function defaultGrowthBytes(): number {
  return envNumber("LOCH_RECLAIM_GROWTH_MB", 128, 0) * 1024 * 1024;
}
