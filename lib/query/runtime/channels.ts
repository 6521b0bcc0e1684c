// Output channels. A query whose main sequence ends in parallel legs (a
// trailing fork, switch or multi-source `from`) has an output per leaf leg,
// numbered left to right from 0 (lake-api.md §12.4); the service frames each
// with QueryChannelSet/QueryChannelEnd. Where the legs of such an operator
// meet their sink, the compiler asks fanIn for their outputs: a Channel given
// as the sink splits into one channel per leg (nested trailing legs split
// again), any other sink is shared through a Combine, as everywhere else.

import type { Batch } from "../../zed/value.ts";
import { Combine } from "./flow.ts";
import type { Op } from "./op.ts";
import type { Ended } from "./work.ts";

/** Where a channel's values and end go, by channel number. */
export interface ChannelSink {
  push(channel: number, batch: Batch): void;
  end(channel: number): void;
}

/** A query output that may split into channels; numbered once the graph is built. */
export class Channel implements Op {
  private parts: Channel[] | null = null;
  private id = -1;
  readonly done = false;

  constructor(private readonly sink: ChannelSink) {}

  push(batch: Batch): void {
    this.sink.push(this.id, batch);
  }

  end(): Ended {
    this.sink.end(this.id);
  }

  /** Splits this output into n, one per leg, in leg order. */
  split(n: number): Channel[] {
    if (this.parts !== null) throw new Error("a query output channel was split twice");
    this.parts = Array.from({ length: n }, () => new Channel(this.sink));
    return this.parts;
  }

  /** Numbers the leaf channels left to right from first; returns the next number. */
  number(first = 0): number {
    if (this.parts === null) {
      this.id = first;
      return first + 1;
    }
    let next = first;
    for (const p of this.parts) next = p.number(next);
    return next;
  }
}

/** The outputs n parallel legs send to next: a channel each if next is a Channel, else one Combine. */
export function fanIn(next: Op, n: number): Op[] {
  if (next instanceof Channel) return next.split(n);
  return new Array<Op>(n).fill(new Combine(next, n));
}
