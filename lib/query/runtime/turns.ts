// Taking turns on the event loop. Queries run on the same thread as the
// server's other requests; a long one gives the loop a turn once it has run
// for a slice of time. The clock is shared, so every place that may run long
// without real I/O (the runner between batches, a scan whose filter drops
// whole batches, an operator's work at the end of its input) yields on the
// same schedule.
//
// Only a process that shares its loop takes turns: the server does
// (shareEventLoop), a one-shot `loch query` has nothing to share with and
// runs straight through. Turns poll I/O through a self-pipe (loop-turn.ts),
// cheap enough for short slices; where that cannot open, timer turns idle
// about 2 ms each, so their slices are longer.
//
// Operators do their end-of-input work (sorting, emitting groups, ...) as
// generators that yield at pause points (work.ts). An operator built inside
// buildPausing() captures the pause function then and awaits it at each of
// those points, so its end() returns a promise; one built anywhere else (a
// lateral scope run inside an expression, a test, an index rule) runs its
// generator straight through and ends synchronously. Graphs are built
// synchronously, so the pause in force is a plain variable.

import { LoopTurns, timerTurn } from "./loop-turn.ts";

/** How long work runs before it gives the loop a turn, with self-pipe turns. */
export const SHARED_SLICE_MS = 3;
/** The same with timer turns. */
export const TIMER_SLICE_MS = 10;
/** The slice while other work is in flight (see enterWork). */
export const CONTENDED_SLICE_MS = 1;

let sliceMs = Infinity;
let sliceStart = performance.now();
let turns: LoopTurns | null = null;
let sharing: { users: number; opened: Promise<LoopTurns | null> } | null = null;
let working = 0;

/** Whether the current slice is used up (maybeYield would yield now). */
export function sliceUsed(): boolean {
  return performance.now() - sliceStart >= currentSliceMs();
}

/** The slice now in force: Infinity when the loop is not shared, shorter while others work. */
export function currentSliceMs(): number {
  return working > 1 && sliceMs !== Infinity ? CONTENDED_SLICE_MS : sliceMs;
}

/**
 * Counts a piece of work (a request being handled, a query running) until
 * the returned function is called. While more than one is counted, slices
 * are short and turns are timer turns: the other work's file reads and
 * socket writes finish within the timer's idle millisecond, several steps
 * at a time, where a self-pipe turn would let it take one step per slice.
 * Short requests then see a long query's slices as a millisecond or so each.
 */
export function enterWork(): () => void {
  // Work arriving at an idle thread starts a slice: the time the loop sat
  // idle is not time this work has kept it from other work.
  if (working === 0) sliceStart = performance.now();
  working++;
  let left = false;
  return () => {
    if (!left) working--;
    left = true;
  };
}

/** Yields to the event loop when the current slice is used up. */
export async function maybeYield(): Promise<void> {
  if (!sliceUsed()) return;
  await (turns !== null && working <= 1 ? turns.turn() : timerTurn());
  sliceStart = performance.now();
}

/**
 * Makes long work in this process take turns with other work on the event
 * loop, until the returned function is called (by every caller, when
 * several share).
 */
export async function shareEventLoop(): Promise<() => Promise<void>> {
  const share = sharing ??= { users: 0, opened: LoopTurns.open() };
  share.users++;
  const opened = await share.opened;
  if (sharing === share) {
    turns = opened;
    sliceMs = opened !== null ? SHARED_SLICE_MS : TIMER_SLICE_MS;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (--share.users > 0) return;
    if (sharing === share) {
      sharing = null;
      turns = null;
      sliceMs = Infinity;
    }
    await opened?.close();
  };
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
