// Lake events between the nodes of a lake whose catalog is in PostgreSQL.
// A node that changes the lake announces it with pg_notify on the catalog
// connection (after the change committed); every node LISTENs on its own
// connection and hands other nodes' events to its subscribers (the event
// streams of /events), so a client of any node sees every commit.

import type postgres from "postgres";
import type { LakeEvent } from "../lake.ts";
import { type KSUID, parseID, toHex } from "../ksuid.ts";

export const EVENT_CHANNEL = "loch_events";

/** An event as a notification's payload (small: PostgreSQL allows 8000 bytes). */
export function encodeEvent(node: string, e: LakeEvent): string {
  const out: Record<string, unknown> = { node, kind: e.kind, pool: toHex(e.poolId) };
  if ("branch" in e) out.branch = e.branch;
  if (e.kind === "branch-commit") {
    out.commit = toHex(e.commitId);
    out.parent = toHex(e.parent);
    if (e.parentBranch !== undefined) out.parentBranch = e.parentBranch;
  }
  return JSON.stringify(out);
}

/** The node and event of a payload, or undefined when it is not one of ours. */
export function decodeEvent(text: string): { node: string; event: LakeEvent } | undefined {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined;
  }
  const id = (k: string): KSUID => parseID(String(o[k]));
  const node = String(o.node);
  switch (o.kind) {
    case "pool-new":
    case "pool-update":
    case "pool-delete":
      return { node, event: { kind: o.kind, poolId: id("pool") } };
    case "branch-update":
    case "branch-delete":
      return { node, event: { kind: o.kind, poolId: id("pool"), branch: String(o.branch) } };
    case "branch-commit":
      return {
        node,
        event: {
          kind: "branch-commit",
          poolId: id("pool"),
          branch: String(o.branch),
          commitId: id("commit"),
          parent: id("parent"),
          parentBranch: typeof o.parentBranch === "string" ? o.parentBranch : undefined,
        },
      };
  }
  return undefined;
}

/** A LISTEN on the catalog's database: other nodes' events, as they come. */
export class EventListener {
  private constructor(private readonly sql: postgres.Sql) {}

  /** Starts listening; settles once PostgreSQL has taken the LISTEN. */
  static async start(
    url: string,
    self: string,
    deliver: (e: LakeEvent) => void,
  ): Promise<EventListener> {
    // Loaded here, not at the top: lakes with a local catalog never need it.
    const { default: connect } = await import("postgres");
    const sql = connect(url, { max: 1, onnotice: () => {} });
    try {
      await sql.listen(EVENT_CHANNEL, (payload) => {
        const d = decodeEvent(payload);
        if (d !== undefined && d.node !== self) deliver(d.event);
      });
    } catch (e) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw e;
    }
    return new EventListener(sql);
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 1 });
  }
}
