// Work done in slices. An operator's end-of-input work is a generator that
// yields at pause points: after each batch it emits (so the runner can pass
// it on to the writer before the next is made) and, inside long loops, when
// the slice of time is used up. Run with a pause (see turns.ts), it awaits
// the pause at each point; run without, it goes straight through and
// returns nothing, so callers that cannot await (a lateral scope inside an
// expression) still see the operator end synchronously.

import type { Op } from "./op.ts";
import type { Pause } from "./turns.ts";

/** Work that yields at its pause points. */
export type Work = Generator<void, void, void>;

/** What end() returns: nothing when it ended synchronously, else a promise of the end. */
export type Ended = void | Promise<void>;

/** Runs work: straight through when pause is null, else awaiting pause at each point. */
export function runWork(work: Work, pause: Pause | null): Ended {
  if (pause === null) {
    for (let r = work.next(); !r.done; r = work.next()) {
      // no pauses: on to the next slice
    }
    return;
  }
  return drive(work, pause);
}

async function drive(work: Work, pause: Pause): Promise<void> {
  // for-of returns the generator (running its finally blocks) if pause throws.
  for (const _ of work) await pause();
}

/** Runs a generator straight through, ignoring its pause points; returns its result. */
export function finishSync<R>(work: Generator<void, R, void>): R {
  for (;;) {
    const r = work.next();
    if (r.done) return r.value;
  }
}

/** Runs end-of-input work (pausing if pause is set), then ends next. */
export function finishWork(work: Work, pause: Pause | null, next: Op): Ended {
  return andThen(runWork(work, pause), () => next.end());
}

/** Calls after once ended has: now, or when the promise resolves. */
export function andThen(ended: Ended, after: () => Ended): Ended {
  return ended === undefined ? after() : ended.then(after);
}

/** Ends ops in order, each once the one before has ended (as ending them synchronously would). */
export function endEach(ops: readonly Op[], from = 0): Ended {
  for (let i = from; i < ops.length; i++) {
    const ended = ops[i].end();
    if (ended !== undefined) return ended.then(() => endEach(ops, i + 1));
  }
}
