// Returning memory to the system once a thread goes idle. V8 keeps the heap
// a warm-up, a big load or a big query grew, and collects it lazily; a full
// collection when nothing has run for a moment gives its pages back, so an
// idle server holds what its state needs rather than its high-water mark.
// The C heap (V8's compiler zones, buffers of I/O and of ArrayBuffers) keeps
// its freed pages too, scattered among live ones; glibc's malloc_trim gives
// them back (about 45 MB of a warmed-up server's 265), where the process may
// call it (Deno's --allow-ffi).

import v8 from "node:v8";
import vm from "node:vm";

let gc: (() => void) | null | undefined;

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
 * Counts a thread's work in progress and collects garbage when it has had
 * none for idleMs (the timer never keeps the process alive).
 */
export class IdleReclaim {
  private active = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Collections run (for tests and metrics). */
  collections = 0;

  constructor(private readonly idleMs = defaultIdleMs()) {}

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
      if (this.active === 0 && collectGarbage()) this.collections++;
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
  const text = Deno.env.get("LOCH_RECLAIM_IDLE_MS");
  const ms = text ? Number(text) : NaN;
  return Number.isFinite(ms) ? ms : 10_000;
}
