// Taking turns on the event loop. Queries run on the same thread as the
// server's other requests; a long one gives the loop a turn once it has run
// for a slice of time. The clock is shared, so every place that may run long
// without real I/O (the runner between batches, a scan whose filter drops
// whole batches, an operator's work at the end of its input) yields on the
// same schedule.
//
// Operators do their end-of-input work (sorting, emitting groups, ...) as
// generators that yield at pause points (work.ts). An operator built inside
// buildPausing() captures the pause function then and awaits it at each of
// those points, so its end() returns a promise; one built anywhere else (a
// lateral scope run inside an expression, a test, an index rule) runs its
// generator straight through and ends synchronously. Graphs are built
// synchronously, so the pause in force is a plain variable.

/** How long work runs before it lets the event loop do other work. */
export const SLICE_MS = 10;

let sliceStart = performance.now();

/** Whether the current slice is used up (maybeYield would yield now). */
export function sliceUsed(): boolean {
  return performance.now() - sliceStart >= SLICE_MS;
}

/** Yields to the event loop when the current slice is used up. */
export async function maybeYield(): Promise<void> {
  if (performance.now() - sliceStart < SLICE_MS) return;
  // setTimeout, not a microtask: Deno.serve's request handling is a macrotask.
  await new Promise((r) => setTimeout(r, 0));
  sliceStart = performance.now();
}

/**
 * What an operator awaits between slices of its end-of-input work: the query
 * runner's passes what was emitted so far on to the writer, gives the event
 * loop a turn when the slice is used up, and throws when the query is
 * stopped.
 */
export type Pause = () => Promise<void>;

let building: Pause | null = null;

/** Builds operators (synchronously) that pause with `pause` during their end(). */
export function buildPausing<T>(pause: Pause | null, build: () => T): T {
  const outer = building;
  building = pause;
  try {
    return build();
  } finally {
    building = outer;
  }
}

/** Builds operators that end synchronously (whatever encloses the build). */
export function buildSync<T>(build: () => T): T {
  return buildPausing(null, build);
}

/** The pause for an operator being built now: null when it must end synchronously. */
export function pauseForNew(): Pause | null {
  return building;
}
