// Taking turns on the event loop. Queries run on the same thread as the
// server's other requests; a long one gives the loop a turn once it has run
// for a slice of time. The clock is shared, so every place that may run long
// without real I/O (the runner between batches, a scan whose filter drops
// whole batches) yields on the same schedule.

/** How long work runs before it lets the event loop do other work. */
export const SLICE_MS = 10;

let sliceStart = performance.now();

/** Yields to the event loop when the current slice is used up. */
export async function maybeYield(): Promise<void> {
  if (performance.now() - sliceStart < SLICE_MS) return;
  // setTimeout, not a microtask: Deno.serve's request handling is a macrotask.
  await new Promise((r) => setTimeout(r, 0));
  sliceStart = performance.now();
}
