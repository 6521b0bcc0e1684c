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

/** What loch calls of glibc (null: not Linux with glibc, or FFI not allowed). */
interface Glibc {
  malloc_trim(pad: bigint): number;
  mallopt(param: number, value: number): number;
}

let glibc: Glibc | null | undefined;

/** glibc, opened once where the process may (FFI allowed: never asked for, no prompt). */
function openGlibc(): Glibc | null {
  if (glibc !== undefined) return glibc;
  glibc = null;
  try {
    if (
      Deno.build.os === "linux" && Deno.permissions.querySync({ name: "ffi" }).state === "granted"
    ) {
      glibc = Deno.dlopen("libc.so.6", {
        malloc_trim: { parameters: ["usize"], result: "i32" },
        mallopt: { parameters: ["i32", "i32"], result: "i32" },
      }).symbols;
    }
  } catch {
    // No glibc (musl, a static build).
  }
  return glibc;
}

/**
 * Returns the free pages of the process's C heap to the system (glibc's
 * malloc_trim, which trims every thread's arena). False where it cannot.
 */
export function trimNativeHeap(): boolean {
  const c = openGlibc();
  if (c === null) return false;
  c.malloc_trim(0n);
  return true;
}

/** glibc's mallopt parameter: the size from which an allocation is mapped on its own. */
const M_MMAP_THRESHOLD = -3;

/** Allocations of this size or more are mapped on their own (mapLargeAllocations). */
export const MMAP_THRESHOLD = 4 << 20;

/**
 * Makes every allocation of MMAP_THRESHOLD bytes or more (a load's buffers:
 * its body's parts, sort buffer chunks, columns) pages of its own, returned
 * to the system when freed. By default glibc raises that threshold to the
 * largest block freed so far (up to 32 MB), after which such buffers come
 * from the heap, and their pages stay with the process once freed: a fresh
 * server's peak loading the 10x logs went 823–954 → 731–849 MB, at the same
 * speed (a threshold of 128 KiB saved more but loaded 8% slower). Set before
 * big blocks are freed: glibc maps a block only when its heap has no room
 * for it. False where it cannot (see trimNativeHeap).
 */
export function mapLargeAllocations(): boolean {
  const c = openGlibc();
  return c !== null && c.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) === 1;
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
