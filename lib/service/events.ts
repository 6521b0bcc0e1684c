// Server-sent events (lake-api.md §13): lake events go to every subscriber
// as `event: <name>\ndata: <value>\n\n`, the value encoded in the
// subscriber's format with its own trailing newline (so three newlines end
// a frame, which the Go client's reader expects). Events use the reference's
// names and shapes (pool-new, pool-update, pool-delete, branch-update,
// branch-delete, branch-commit); a commit is also announced as the seed
// spec's `pool-commit` {pool_id, commit_id}. While idle, a comment line is
// sent every so often so browsers' event sources do not time out and
// reconnect; the Go client, whose reader cannot skip comments, gets none.
//
// Resumable streams: a subscriber that asks for ids (a browser's
// EventSource, anything sending Last-Event-ID, or ?ids=true) gets an `id:`
// line in each frame; reconnecting with Last-Event-ID it is first sent what
// it missed, from the events of the last EVENT_WINDOW_MS (at most
// EVENT_WINDOW_COUNT), then the live stream. An id from before the window
// (or from an earlier run of the server) cannot be resumed: the stream then
// starts with an `events-missed` event so the client knows to read the state
// afresh. Others get no ids: the Go client's reader takes exactly
// `event:` and `data:` lines.

import type { Lake, LakeEvent } from "../lake/lake.ts";
import { ksuidType } from "../lake/records.ts";
import { zctx } from "../zed/context.ts";
import { Field, type Type, TypeString } from "../zed/types.ts";
import { Value } from "../zed/value.ts";
import { encodeValue } from "./respond.ts";

/** The default interval of keep-alive comments. */
export const KEEPALIVE_MS = 25_000;
/** How long, and how many, events are kept for subscribers that reconnect. */
export const EVENT_WINDOW_MS = 10 * 60_000;
export const EVENT_WINDOW_COUNT = 10_000;
const encoder = new TextEncoder();

function named(name: string, fields: [string, Type][]): Type {
  return zctx.lookupNamed(name, zctx.lookupRecord(fields.map(([n, t]) => new Field(n, t))));
}

/** The frames (name and value) a lake event is announced with. */
export function eventValues(e: LakeEvent): [string, Value][] {
  const id = ksuidType("simple");
  switch (e.kind) {
    case "pool-new":
    case "pool-update":
    case "pool-delete":
      return [[e.kind, new Value(named("EventPool", [["pool_id", id]]), [e.poolId])]];
    case "branch-update":
    case "branch-delete":
      return [[
        e.kind,
        new Value(named("EventBranch", [["pool_id", id], ["branch", TypeString]]), [
          e.poolId,
          e.branch,
        ]),
      ]];
    case "branch-commit": {
      const t = named("EventBranchCommit", [
        ["commit_id", id],
        ["pool_id", id],
        ["branch", TypeString],
        ["parent", TypeString],
      ]);
      const seed = named("EventPoolCommit", [["pool_id", id], ["commit_id", id]]);
      return [
        [e.kind, new Value(t, [e.commitId, e.poolId, e.branch, e.parentBranch ?? ""])],
        ["pool-commit", new Value(seed, [e.poolId, e.commitId])],
      ];
    }
  }
}

interface Subscriber {
  format: string;
  keepalive: boolean;
  /** Whether frames carry `id:` lines. */
  ids: boolean;
  /** Which pools' events it gets (all when absent). */
  accepts?: (poolId: Uint8Array) => boolean;
  send(bytes: Uint8Array): void;
}

export interface EventHubOptions {
  /** Interval of keep-alive comments in ms (default 25 s). */
  keepAliveMs?: number;
  /** How long events are kept for reconnecting subscribers, in ms (default 10 minutes). */
  windowMs?: number;
  /** How many events are kept for them at most (default 10,000). */
  windowCount?: number;
}

/** A lake event as kept for subscribers that reconnect. */
interface Logged {
  seq: number;
  at: number;
  e: LakeEvent;
}

/** Where a subscriber starts: with ids or not, and after which event. */
export interface StreamStart {
  ids: boolean;
  /** The Last-Event-ID it reconnects with, if any. */
  lastEventId?: string;
}

export class EventHub {
  private subs = new Set<Subscriber>();
  private unsubscribe: () => void;
  private closers = new Set<() => void>();
  /** Publishing is serialized so frames go out in the order the lake emitted them. */
  private chain: Promise<void> = Promise.resolve();
  private keepAliveMs: number;
  /** Recent events, oldest first, for subscribers that reconnect. */
  private log: Logged[] = [];
  private seq = 0;
  /** The seq of the last event published (frames sent to subscribers). */
  private published = 0;
  /** This run of the server, in every id: ids of another run cannot be resumed. */
  private readonly epoch = Date.now().toString(36);
  private readonly windowMs: number;
  private readonly windowCount: number;

  constructor(lake: Lake, opts: EventHubOptions = {}) {
    this.keepAliveMs = opts.keepAliveMs ?? KEEPALIVE_MS;
    this.windowMs = opts.windowMs ?? EVENT_WINDOW_MS;
    this.windowCount = opts.windowCount ?? EVENT_WINDOW_COUNT;
    this.unsubscribe = lake.subscribe((e) => {
      const logged = { seq: ++this.seq, at: Date.now(), e };
      this.keep(logged);
      this.chain = this.chain.then(() => this.publish(logged)).catch(() => {});
    });
  }

  private keep(l: Logged): void {
    this.log.push(l);
    const old = l.at - this.windowMs;
    let drop = Math.max(0, this.log.length - this.windowCount);
    while (drop < this.log.length && this.log[drop].at < old) drop++;
    if (drop > 0) this.log = this.log.slice(drop);
  }

  private id(seq: number): string {
    return `${this.epoch}-${seq}`;
  }

  private async publish(l: Logged): Promise<void> {
    this.published = l.seq;
    if (this.subs.size === 0) return;
    const frames = new Map<string, Uint8Array[]>();
    for (const s of this.subs) {
      if (s.accepts !== undefined && !s.accepts(l.e.poolId)) continue;
      const key = `${s.format}/${s.ids}`;
      let fs = frames.get(key);
      if (fs === undefined) {
        fs = await this.frames(l, s.format, s.ids);
        frames.set(key, fs);
      }
      for (const f of fs) s.send(f);
    }
  }

  /** The frames announcing an event in a format, with its id or without. */
  private async frames(l: Logged, format: string, ids: boolean): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    for (const [name, v] of eventValues(l.e)) {
      const data = await encodeValue(format, v);
      out.push(frame(name, data, ids ? this.id(l.seq) : undefined));
    }
    return out;
  }

  /**
   * Sends a reconnecting subscriber what it missed since lastEventId (only
   * what was published already: what is not yet will reach it live), or
   * `events-missed` when that is no longer known.
   */
  private async replay(s: Subscriber, lastEventId: string): Promise<void> {
    const m = /^([0-9a-z]+)-(\d+)$/.exec(lastEventId);
    const after = m !== null && m[1] === this.epoch ? Number(m[2]) : -1;
    const oldest = this.log.length > 0 ? this.log[0].seq : this.seq + 1;
    if (after < 0 || after > this.seq || after < oldest - 1) {
      const data = await encodeValue(s.format, missedValue(lastEventId));
      s.send(frame("events-missed", data, this.id(this.published)));
      return;
    }
    for (const l of this.log) {
      if (l.seq <= after || l.seq > this.published) continue;
      if (s.accepts !== undefined && !s.accepts(l.e.poolId)) continue;
      for (const f of await this.frames(l, s.format, true)) s.send(f);
    }
  }

  /** A new subscriber's event stream (of the pools accepts takes, when given). */
  stream(
    format: string,
    keepalive: boolean,
    accepts?: (poolId: Uint8Array) => boolean,
    start: StreamStart = { ids: false },
  ): ReadableStream<Uint8Array> {
    let sub: Subscriber;
    let timer: ReturnType<typeof setInterval> | undefined;
    let close: () => void;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        sub = {
          format,
          keepalive,
          ids: start.ids,
          accepts,
          send: (bytes) => {
            try {
              controller.enqueue(bytes);
            } catch {
              close();
            }
          },
        };
        close = () => {
          clearInterval(timer);
          this.subs.delete(sub);
          this.closers.delete(close);
          try {
            controller.close();
          } catch {
            // already closed
          }
        };
        const last = start.lastEventId;
        if (last === undefined) this.subs.add(sub);
        else {
          // In the publishing order: what it missed, then (as a subscriber) what follows.
          this.chain = this.chain.then(async () => {
            await this.replay(sub, last);
            if (this.closers.has(close)) this.subs.add(sub);
          }).catch(() => {});
        }
        this.closers.add(close);
        if (keepalive) {
          timer = setInterval(() => sub.send(encoder.encode(":\n\n")), this.keepAliveMs);
        }
      },
      cancel: () => close(),
    });
  }

  get subscribers(): number {
    return this.subs.size;
  }

  /** Ends every event stream (at shutdown). */
  close(): void {
    this.unsubscribe();
    for (const c of [...this.closers]) c();
  }
}

/** One frame: the event's name, its id when given, its data (with its own newline), a blank line. */
function frame(name: string, data: Uint8Array, id: string | undefined): Uint8Array {
  const head = encoder.encode(`event: ${name}\n${id === undefined ? "" : `id: ${id}\n`}data: `);
  const f = new Uint8Array(head.length + data.length + 2);
  f.set(head);
  f.set(data, head.length);
  f[f.length - 2] = 10;
  f[f.length - 1] = 10;
  return f;
}

/** `events-missed` {last_event_id}: the events since it are no longer kept. */
function missedValue(lastEventId: string): Value {
  return new Value(named("EventsMissed", [["last_event_id", TypeString]]), [lastEventId]);
}
