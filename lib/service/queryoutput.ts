// A query's output in the response format: its values, framed by the
// control messages the lake API sends with ctrl=true in ZJSON and ZNG
// (QueryChannelSet, QueryChannelEnd, QueryStats as the query runs and at its
// end, QueryError for a failure after the start), flushed at least every
// 200 ms.

import { asClientFault, LochError, messageOf } from "../errors.ts";
import type { Sink, ValueWriter } from "../formats/io.ts";
import { openWriter } from "../formats/registry.ts";
import { formatZson } from "../formats/zson/formatter.ts";
import { ZjsonWriter } from "../formats/zjson/writer.ts";
import { CONTROL_ZSON, type ZngWriter } from "../formats/zng/writer.ts";
import { JsonWriter } from "../formats/json/writer.ts";
import type { ScanStats } from "../lake/scan.ts";
import type { ChannelWriter } from "../query/mod.ts";
import { zctx } from "../zed/context.ts";
import { Field, type Type, TypeInt64, TypeString, TypeTime } from "../zed/types.ts";
import { type Batch, Value } from "../zed/value.ts";

/** How often a running query reports its progress. */
const STATS_EVERY_MS = 1000;
/** Longest time buffered output waits before it is sent. */
const FLUSH_EVERY_MS = 200;

/**
 * The query's output: values in the response format, framed by control
 * messages when asked. Writes are serialized, since progress reports come
 * from a timer.
 */
export class QueryOutput implements ChannelWriter {
  private writer: ValueWriter;
  private chain: Promise<void> = Promise.resolve();
  /** The channel last announced with QueryChannelSet (-1: none yet). */
  private current = -1;
  private readonly ended = new Set<number>();
  private readonly start = Date.now();
  private lastFlush = performance.now();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private format: string,
    sink: Sink,
    private ctrl: boolean,
    private stats: ScanStats,
  ) {
    // JSON responses are one array; ZJSON is ASCII-only, since zed-js (Zui)
    // decodes the body chunk by chunk and garbles a character split across two.
    this.writer = format === "json"
      ? new JsonWriter(sink, { array: true })
      : format === "zjson"
      ? new ZjsonWriter(sink, true)
      : openWriter(format, sink, { pretty: 0 });
    if (ctrl) this.timer = setInterval(() => this.serial(() => this.progress()), STATS_EVERY_MS);
  }

  private serial(op: () => Promise<void>): Promise<void> {
    const next = this.chain.then(op);
    this.chain = next.catch(() => {});
    return next;
  }

  write(batch: Batch): Promise<void> {
    return this.writeTo(0, batch);
  }

  /** Values of one channel: QueryChannelSet first when the channel changes. */
  writeTo(channel: number, batch: Batch): Promise<void> {
    return this.serial(async () => {
      if (this.ctrl && channel !== this.current) {
        await this.control("QueryChannelSet", channelMessage("QueryChannelSet", channel));
        this.current = channel;
      }
      // zed-js decodes each channel on its own: types are (re)defined per channel.
      if (this.format === "zjson") (this.writer as ZjsonWriter).useChannel(channel);
      await this.writer.write(batch);
      if (performance.now() - this.lastFlush > FLUSH_EVERY_MS) await this.flush();
    });
  }

  endChannel(channel: number): Promise<void> {
    return this.serial(async () => {
      this.ended.add(channel);
      if (this.ctrl) {
        await this.control("QueryChannelEnd", channelMessage("QueryChannelEnd", channel));
      }
    });
  }

  /** The runner ends its writer even on failure: the ending is done by finish or fail. */
  end(): Promise<void> {
    return Promise.resolve();
  }

  /** After the last value: the closing control messages and the format's trailer. */
  finish(): Promise<void> {
    return this.serial(async () => {
      if (this.ctrl) {
        // Every query has channel 0, ended even when nothing reached its end.
        if (!this.ended.has(0)) {
          await this.control("QueryChannelEnd", channelMessage("QueryChannelEnd", 0));
        }
        await this.control("QueryStats", this.statsValue());
      }
      await this.writer.end();
    });
  }

  /** After a failure: QueryError with control messages, else the output just ends. */
  fail(e: unknown): Promise<void> {
    return this.serial(async () => {
      if (this.ctrl) {
        await this.control("QueryError", queryError(messageOf(asClientFault(e))));
        await this.flushZng();
      } else {
        await this.writer.end();
      }
    });
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async progress(): Promise<void> {
    await this.control("QueryStats", this.statsValue());
  }

  private async flush(): Promise<void> {
    this.lastFlush = performance.now();
    const w = this.writer as { flush?: () => Promise<void> };
    await w.flush?.();
  }

  /** Ends the ZNG stream (a QueryError is the last thing sent). */
  private async flushZng(): Promise<void> {
    if (this.format === "zng") await (this.writer as ZngWriter).end();
    else await this.flush();
  }

  private async control(name: string, v: Value): Promise<void> {
    if (this.format === "zjson") {
      await (this.writer as ZjsonWriter).writeControl(name, controlJSON(name, v, this));
      await this.flush();
    } else {
      await (this.writer as ZngWriter).writeControl(
        formatZson(v.type, v.body) + "\n",
        CONTROL_ZSON,
      );
      await this.flush();
    }
  }

  /** QueryStats as a value of the reference's shape. */
  statsValue(): Value {
    const s = this.stats;
    const ms = (t: number) => BigInt(t) * 1000000n;
    return new Value(statsType(), [
      timeBody(ms(this.start)),
      timeBody(ms(Date.now())),
      [s.bytesRead, s.bytesMatched, s.recordsRead, s.recordsMatched],
    ]);
  }

  get startMillis(): number {
    return this.start;
  }
}

function timeBody(ns: bigint): number | bigint {
  return ns <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(ns) : ns;
}

function named(name: string, fields: [string, Type][]): Type {
  return zctx.lookupNamed(name, zctx.lookupRecord(fields.map(([n, t]) => new Field(n, t))));
}

function channelMessage(name: "QueryChannelSet" | "QueryChannelEnd", id: number): Value {
  return new Value(named(name, [["channel_id", TypeInt64]]), [id]);
}

function queryError(msg: string): Value {
  return new Value(named("QueryError", [["error", TypeString]]), [msg]);
}

function statsType(): Type {
  const progress = named("Progress", [
    ["bytes_read", TypeInt64],
    ["bytes_matched", TypeInt64],
    ["records_read", TypeInt64],
    ["records_matched", TypeInt64],
  ]);
  return named("QueryStats", [
    ["start_time", TypeTime],
    ["update_time", TypeTime],
    ["Progress", progress],
  ]);
}

/**
 * The JSON form of a control message (ZJSON responses): Go's encoding of the
 * structs, in which times are {sec, ns} and QueryStats' progress counters
 * are flattened into it.
 */
function controlJSON(name: string, v: Value, out: QueryOutput): unknown {
  const body = v.body as unknown[];
  switch (name) {
    case "QueryChannelSet":
    case "QueryChannelEnd":
      return { channel_id: body[0] };
    case "QueryError":
      return { error: body[0] };
    case "QueryStats": {
      const [bytesRead, bytesMatched, recordsRead, recordsMatched] = body[2] as number[];
      const now = Date.now();
      return {
        start_time: secNs(out.startMillis),
        update_time: secNs(now),
        bytes_read: bytesRead,
        bytes_matched: bytesMatched,
        records_read: recordsRead,
        records_matched: recordsMatched,
      };
    }
  }
  throw new LochError("internal", `unknown control message ${name}`);
}

function secNs(ms: number): { sec: number; ns: number } {
  return { sec: Math.floor(ms / 1000), ns: (ms % 1000) * 1000000 };
}
