// Running a compiled query: batches from the sources are pushed through the
// operator graph and what reaches the end is written out, batch by batch, so
// output streams and a slow writer holds back the reading. The graph is built
// to pause (runtime/turns.ts): an operator's end-of-input work awaits the
// same flush between slices, so what it emits is written as it goes and a
// slow writer holds that work back too.

import type { ValueReader, ValueWriter } from "../formats/io.ts";
import type { Batch } from "../zed/value.ts";
import type { CompiledQuery } from "./compiler/compile.ts";
import { invalid, LochError } from "../errors.ts";
import { SpillingCollector } from "./spill/collector.ts";
import { runInScope, SpillScope } from "./spill/scope.ts";
import { buildPausing, enterWork, maybeYield } from "./runtime/turns.ts";
import { Channel, type ChannelSink } from "./runtime/channels.ts";
import type { Op } from "./runtime/op.ts";

export interface RunOptions {
  /** Estimated bytes each operator holds before it spills (default: the process-wide budget). */
  memoryBudget?: number;
  /** Estimated bytes the whole query may hold (default: -query-memory, spill/memory.ts). */
  memoryLimit?: number;
  /** Stops the query (between batches) when aborted, e.g. when its client went away. */
  signal?: AbortSignal;
}

/**
 * A writer that keeps a query's output channels apart (runtime/channels.ts):
 * given one, the runner splits the output of trailing parallel legs into
 * channels; given any other writer, their outputs are merged.
 */
export interface ChannelWriter extends ValueWriter {
  /** Writes values of one channel. */
  writeTo(channel: number, batch: Batch): Promise<void>;
  /** Says that a channel has ended, its values all written. */
  endChannel(channel: number): Promise<void>;
}

function isChannelWriter(w: ValueWriter): w is ChannelWriter {
  return "writeTo" in w && "endChannel" in w;
}

/**
 * Runs a query. readers are the caller's inputs (any number for a query
 * with one input port, two for one that starts with `join`, none for one
 * that starts with `from`) followed by a reader per source of the query.
 * It runs in a spill scope of its own: any spill file its operators leave
 * behind (stopped early, failed, abandoned) is removed when it ends.
 */
export function runQuery(
  query: CompiledQuery,
  readers: ValueReader[],
  writer: ValueWriter,
  opts: RunOptions = {},
): Promise<void> {
  const scope = new SpillScope(opts.memoryBudget, opts.memoryLimit);
  return runInScope(scope, async () => {
    try {
      await run(query, readers, writer, scope.budget, opts.signal);
    } finally {
      scope.close();
    }
  });
}

/**
 * Runs work outside a query run (a helper's share of a scan) in a spill
 * scope of its own, as runQuery does: what it holds counts against
 * memoryLimit, and its spill files are removed when it ends.
 */
export function runScoped<T>(fn: () => Promise<T>, memoryLimit?: number): Promise<T> {
  const scope = new SpillScope(undefined, memoryLimit);
  return runInScope(scope, async () => {
    try {
      return await fn();
    } finally {
      scope.close();
    }
  });
}

async function run(
  query: CompiledQuery,
  readers: ValueReader[],
  writer: ValueWriter,
  budget: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const output = isChannelWriter(writer)
    ? new ChannelOutput(writer, budget)
    : new SingleOutput(writer, budget);
  const flush = async () => {
    await output.flush();
    // Long queries give other work (a server's other requests) a turn now and then.
    await maybeYield();
  };
  // Where operators' end-of-input work pauses: the query stops there too when aborted.
  const pause = () => {
    signal?.throwIfAborted();
    return flush();
  };
  const heads = buildPausing(pause, () => query.make(output.sink));
  output.built();
  const sources = query.sources?.length ?? 0;
  const own = readers.length - sources;
  if (query.inputs === 2 && own !== 2) {
    throw invalid("join operaetor requires two inputs"); // sic, the reference's text
  }
  if (own < 0 || (query.inputs === 0 && own > 0)) {
    throw new LochError(
      "internal",
      `query with ${sources} sources given ${readers.length} readers`,
    );
  }
  // The port each reader feeds: a one-port query's inputs all feed port 0.
  const port = (i: number) => i >= own ? query.inputs + i - own : query.inputs === 1 ? 0 : i;
  const leave = enterWork();
  try {
    let i = 0;
    for (let p = 0; p < heads.length; p++) {
      const head = heads[p];
      for (; i < readers.length && port(i) === p; i++) {
        while (!head.done) {
          signal?.throwIfAborted();
          const batch = await readers[i].read();
          if (batch === null) break;
          head.push(batch);
          await flush();
        }
      }
      await head.end();
    }
    await flush();
  } finally {
    leave();
    for (const r of readers) await r.close?.();
    await writer.end();
  }
}

/** Where the graph's output collects until the runner writes it out. */
interface Output {
  readonly sink: Op;
  /** The graph is built (channels can be numbered). */
  built(): void;
  /** Writes out what was collected. */
  flush(): Promise<void>;
}

/** One stream of values; spills to disk when the writer falls behind a burst. */
class SingleOutput implements Output {
  readonly sink: SpillingCollector;
  constructor(private readonly writer: ValueWriter, budget: number) {
    this.sink = new SpillingCollector(budget);
  }
  built(): void {}
  flush(): Promise<void> {
    return writeDrained(this.sink, (b) => this.writer.write(b));
  }
}

/** A stream per channel, each collected as SingleOutput's, and the channels' ends in order. */
class ChannelOutput implements Output, ChannelSink {
  readonly sink: Channel = new Channel(this);
  private collected: SpillingCollector[] = [];
  private ended: number[] = [];

  constructor(private readonly writer: ChannelWriter, private readonly budget: number) {}

  built(): void {
    const n = this.sink.number();
    for (let c = 0; c < n; c++) this.collected.push(new SpillingCollector(this.budget));
  }

  push(channel: number, batch: Batch): void {
    this.collected[channel].push(batch);
  }

  end(channel: number): void {
    this.ended.push(channel);
  }

  async flush(): Promise<void> {
    for (let c = 0; c < this.collected.length; c++) {
      await writeDrained(this.collected[c], (b) => this.writer.writeTo(c, b));
    }
    const ended = this.ended;
    this.ended = [];
    for (const c of ended) await this.writer.endChannel(c);
  }
}

/** Writes what a collector holds, batch by batch, giving the loop its turns. */
async function writeDrained(
  collected: SpillingCollector,
  write: (b: Batch) => Promise<void>,
): Promise<void> {
  for (const b of collected.drain()) {
    await write(b);
    await maybeYield();
  }
}
