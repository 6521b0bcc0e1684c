// Server-sent events (lake-api.md §13): lake events go to every subscriber
// as `event: <name>\ndata: <value>\n\n`, the value encoded in the
// subscriber's format with its own trailing newline (so three newlines end
// a frame, which the Go client's reader expects). Events use the reference's
// names and shapes (pool-new, pool-update, pool-delete, branch-update,
// branch-delete, branch-commit); a commit is also announced as the seed
// spec's `pool-commit` {pool_id, commit_id}. While idle, a comment line is
// sent every so often so browsers' event sources do not time out and
// reconnect; the Go client, whose reader cannot skip comments, gets none.

import type { Lake, LakeEvent } from "../lake/lake.ts";
import { ksuidType } from "../lake/records.ts";
import { zctx } from "../zed/context.ts";
import { Field, type Type, TypeString } from "../zed/types.ts";
import { Value } from "../zed/value.ts";
import { encodeValue } from "./respond.ts";

/** The default interval of keep-alive comments. */
export const KEEPALIVE_MS = 25_000;
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
  /** Which pools' events it gets (all when absent). */
  accepts?: (poolId: Uint8Array) => boolean;
  send(bytes: Uint8Array): void;
}

export interface EventHubOptions {
  /** Interval of keep-alive comments in ms (default 25 s). */
  keepAliveMs?: number;
}

export class EventHub {
  private subs = new Set<Subscriber>();
  private unsubscribe: () => void;
  private closers = new Set<() => void>();
  /** Publishing is serialized so frames go out in the order the lake emitted them. */
  private chain: Promise<void> = Promise.resolve();
  private keepAliveMs: number;

  constructor(lake: Lake, opts: EventHubOptions = {}) {
    this.keepAliveMs = opts.keepAliveMs ?? KEEPALIVE_MS;
    this.unsubscribe = lake.subscribe((e) => {
      this.chain = this.chain.then(() => this.publish(e)).catch(() => {});
    });
  }

  private async publish(e: LakeEvent): Promise<void> {
    if (this.subs.size === 0) return;
    for (const [name, v] of eventValues(e)) {
      const byFormat = new Map<string, Uint8Array>();
      for (const s of this.subs) {
        if (s.accepts !== undefined && !s.accepts(e.poolId)) continue;
        let frame = byFormat.get(s.format);
        if (frame === undefined) {
          const data = await encodeValue(s.format, v);
          // The payload ends with its own newline; a blank line follows.
          const head = encoder.encode(`event: ${name}\ndata: `);
          frame = new Uint8Array(head.length + data.length + 2);
          frame.set(head);
          frame.set(data, head.length);
          frame[frame.length - 2] = 10;
          frame[frame.length - 1] = 10;
          byFormat.set(s.format, frame);
        }
        s.send(frame);
      }
    }
  }

  /** A new subscriber's event stream (of the pools accepts takes, when given). */
  stream(
    format: string,
    keepalive: boolean,
    accepts?: (poolId: Uint8Array) => boolean,
  ): ReadableStream<Uint8Array> {
    let sub: Subscriber;
    let timer: ReturnType<typeof setInterval> | undefined;
    let close: () => void;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        sub = {
          format,
          keepalive,
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
        this.subs.add(sub);
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
