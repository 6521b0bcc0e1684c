// The connection gate: what Deno's HTTP server cannot be told. The server
// listens on a private Unix socket; the gate listens where clients connect,
// caps the open connections (one more is answered 503 and closed), and
// passes each connection's bytes through while timing its phase (http1.ts):
// a request head must arrive within the header timeout (else 408), a body
// must not stall longer than the body timeout, and a connection idle between
// requests is closed after the idle timeout. While the server works on an
// answer, however long, no timeout runs.

import { type BodyKind, type Head, Http1Framing } from "./http1.ts";

export interface ConnectionLimits {
  /** Open connections at most (0: no cap). */
  maxConnections: number;
  /** Time from a connection's start, or a head's first byte, to the head's end (0: none). */
  headerTimeoutMs: number;
  /** Time a connection may sit between requests (0: none). */
  idleTimeoutMs: number;
  /** Time a request body may go without a byte (0: none). */
  bodyTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 1024,
  headerTimeoutMs: 10_000,
  idleTimeoutMs: 120_000,
  bodyTimeoutMs: 60_000,
};

/** What the gate has done, for /metrics. */
export interface GateCounts {
  open: number;
  refused: number;
  headerTimeouts: number;
  idleTimeouts: number;
  bodyTimeouts: number;
}

const BUFFER = 256 << 10;

function plainResponse(status: string, message: string, extra = ""): Uint8Array {
  const body = JSON.stringify({ type: "Error", kind: "invalid operation", error: message });
  return new TextEncoder().encode(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nConnection: close\r\n${extra}` +
      `Content-Length: ${body.length}\r\n\r\n${body}`,
  );
}

const TOO_MANY = plainResponse(
  "503 Service Unavailable",
  "too many open connections",
  "Retry-After: 1\r\n",
);
const HEADER_TIMEOUT = plainResponse("408 Request Timeout", "request header timeout");
const HEAD_TOO_LARGE = plainResponse(
  "431 Request Header Fields Too Large",
  "request header too large",
);

/** Where the server behind the gate listens. */
export type Upstream = { transport: "unix"; path: string } | {
  transport: "tcp";
  hostname: string;
  port: number;
};

export class ConnectionGate {
  readonly counts: GateCounts = {
    open: 0,
    refused: 0,
    headerTimeouts: 0,
    idleTimeouts: 0,
    bodyTimeouts: 0,
  };
  private readonly conns = new Set<GatedConnection>();
  private readonly sweeper: ReturnType<typeof setInterval>;
  private accepting: Promise<void>;

  private constructor(
    private readonly listener: Deno.TcpListener,
    private readonly upstream: Upstream,
    readonly limits: ConnectionLimits,
  ) {
    const timeouts = [limits.headerTimeoutMs, limits.idleTimeoutMs, limits.bodyTimeoutMs]
      .filter((t) => t > 0);
    const every = Math.max(10, Math.min(1000, Math.min(...timeouts, 4000) / 4));
    this.sweeper = setInterval(() => this.sweep(), every);
    Deno.unrefTimer(this.sweeper);
    this.accepting = this.accept();
  }

  /** Listens on hostname:port and passes connections to upstream. */
  static listen(
    hostname: string,
    port: number,
    upstream: Upstream,
    limits: ConnectionLimits,
  ): ConnectionGate {
    return new ConnectionGate(Deno.listen({ hostname, port }), upstream, limits);
  }

  get addr(): Deno.NetAddr {
    return this.listener.addr;
  }

  private async accept(): Promise<void> {
    for (;;) {
      let conn: Deno.TcpConn;
      try {
        conn = await this.listener.accept();
      } catch {
        return; // closed
      }
      const max = this.limits.maxConnections;
      if (max > 0 && this.counts.open >= max) {
        this.counts.refused++;
        conn.write(TOO_MANY).catch(() => {}).finally(() => closeQuietly(conn));
        continue;
      }
      // Answers pass through in pieces (head, then body): without this,
      // Nagle's algorithm holds a small last piece back for the client's
      // delayed ACK, 40 ms on Linux.
      try {
        conn.setNoDelay(true);
      } catch {
        // closed already
      }
      this.connect(conn);
    }
  }

  private async connect(client: Deno.TcpConn): Promise<void> {
    // Counted from its accept, before the next accept looks at the count.
    this.counts.open++;
    try {
      let upstream: Deno.Conn;
      try {
        upstream = await Deno.connect(this.upstream as Deno.ConnectOptions);
      } catch {
        closeQuietly(client);
        return;
      }
      const c = new GatedConnection(client, upstream);
      this.conns.add(c);
      await c.done;
      this.conns.delete(c);
    } finally {
      this.counts.open--;
    }
  }

  private sweep(): void {
    const now = performance.now();
    for (const c of this.conns) {
      const why = c.expired(now, this.limits);
      if (why === null) continue;
      if (why === "header") this.counts.headerTimeouts++;
      else if (why === "idle") this.counts.idleTimeouts++;
      else this.counts.bodyTimeouts++;
      c.close(why === "header" && c.pending === 0 ? HEADER_TIMEOUT : undefined);
    }
  }

  /** Stops accepting connections (those open go on until they end or close()). */
  async stopAccepting(): Promise<void> {
    try {
      this.listener.close();
    } catch {
      // already closed
    }
    await this.accepting;
  }

  /** Closes every connection and stops the gate. */
  async close(): Promise<void> {
    await this.stopAccepting();
    clearInterval(this.sweeper);
    for (const c of this.conns) c.close();
    await Promise.all([...this.conns].map((c) => c.done));
  }
}

type Expiry = "header" | "idle" | "body";

/**
 * What follows a request's head for the gate: CONNECT and the HTTP/2
 * preface (`PRI * HTTP/2.0`) turn the connection into bytes it cannot frame.
 */
export function requestBody(h: Head): BodyKind {
  return h.method === "CONNECT" || h.method === "PRI" ? "opaque" : "framed";
}

/** One client connection and its connection to the server, with its phase. */
class GatedConnection {
  /** Requests whose head arrived and whose final response has not ended. */
  pending = 0;
  private methods: string[] = [];
  /** When the head being waited for started (the connection's start for the first), or -1. */
  private headSince = performance.now();
  private lastClientByte = performance.now();
  private lastByte = performance.now();
  private interim = false;
  private closed = false;
  private readonly request: Http1Framing;
  private readonly response: Http1Framing;
  readonly done: Promise<void>;

  constructor(private readonly client: Deno.Conn, private readonly upstream: Deno.Conn) {
    this.request = new Http1Framing("request", {
      headStart: () => {
        if (this.headSince < 0) this.headSince = performance.now();
      },
      head: (h) => {
        this.headSince = -1;
        this.pending++;
        this.methods.push(h.method);
        return requestBody(h);
      },
      end: () => {},
    });
    this.response = new Http1Framing("response", {
      headStart: () => {},
      head: (h) => {
        // An interim answer (100 Continue) is not the request's answer.
        this.interim = h.status >= 100 && h.status < 200;
        if (h.status === 101) return "opaque";
        if (this.interim) return "none";
        const method = this.methods.shift();
        return method === "HEAD" || h.status === 204 || h.status === 304 ? "none" : "framed";
      },
      end: () => {
        if (this.interim) return;
        if (this.pending > 0) this.pending--;
      },
    });
    this.done = Promise.all([this.pumpIn(), this.pumpOut()]).then(() => {});
  }

  /** Why the connection has run out of time now, or null. */
  expired(now: number, l: ConnectionLimits): Expiry | null {
    if (this.request.opaque || this.response.opaque) {
      // Bytes this gate cannot frame: only a long silence ends them.
      return l.idleTimeoutMs > 0 && now - this.lastByte > l.idleTimeoutMs ? "idle" : null;
    }
    if (this.request.inBody) {
      return l.bodyTimeoutMs > 0 && now - this.lastClientByte > l.bodyTimeoutMs ? "body" : null;
    }
    if (this.headSince >= 0 && (this.pending === 0 || this.request.inHead)) {
      return l.headerTimeoutMs > 0 && now - this.headSince > l.headerTimeoutMs ? "header" : null;
    }
    if (this.pending === 0 && this.request.between) {
      return l.idleTimeoutMs > 0 && now - this.lastByte > l.idleTimeoutMs ? "idle" : null;
    }
    return null; // the server is answering
  }

  /** Closes both sides, first sending last (a refusal) when given. */
  close(last?: Uint8Array): void {
    if (this.closed) return;
    this.closed = true;
    closeQuietly(this.upstream);
    if (last === undefined) closeQuietly(this.client);
    else this.client.write(last).catch(() => {}).finally(() => closeQuietly(this.client));
  }

  /** Client to server; a head over the size limit is refused. */
  private pumpIn(): Promise<void> {
    return this.pump(this.client, this.upstream, (chunk) => {
      this.lastClientByte = this.lastByte = performance.now();
      this.request.feed(chunk);
      if (!this.request.headTooLarge) return true;
      this.close(this.pending === 0 ? HEAD_TOO_LARGE : undefined);
      return false;
    });
  }

  /** Server to client. */
  private pumpOut(): Promise<void> {
    return this.pump(this.upstream, this.client, (chunk) => {
      this.lastByte = performance.now();
      this.response.feed(chunk);
      return true;
    });
  }

  /** Copies from one side to the other, each chunk seen first (false stops); then closes both. */
  private async pump(
    from: Deno.Conn,
    to: Deno.Conn,
    see: (chunk: Uint8Array) => boolean,
  ): Promise<void> {
    const buf = new Uint8Array(BUFFER);
    try {
      for (;;) {
        const n = await from.read(buf);
        if (n === null) break;
        const chunk = buf.subarray(0, n);
        if (!see(chunk)) return;
        await writeAll(to, chunk);
      }
    } catch {
      // either side went away
    }
    this.close();
  }
}

async function writeAll(conn: Deno.Conn, b: Uint8Array): Promise<void> {
  let off = 0;
  while (off < b.length) off += await conn.write(b.subarray(off));
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
