// Where HTTP/1.1 messages begin and end in a byte stream, for the connection
// gate (gate.ts): it has to know whether a connection is sending a request's
// head, sending its body, waiting for the answer or idle, without parsing
// more than the framing. The server behind the gate parses and checks the
// requests themselves; bytes this reader cannot frame (an upgrade, a
// message of unknown length, a malformed head) make the stream opaque and
// the gate stops timing it by phase.

/** A message's head as far as framing goes. */
export interface Head {
  /** The request's method (requests) or the status code (responses). */
  method: string;
  status: number;
  /** The Content-Length, or -1 when absent. */
  length: number;
  chunked: boolean;
}

/** What follows a head: a body framed by the head, nothing, or bytes that cannot be framed. */
export type BodyKind = "framed" | "none" | "opaque";

export interface FramingEvents {
  /** The first byte of a message's head arrived. */
  headStart(): void;
  /** A message's head is complete; says what follows it. */
  head(h: Head): BodyKind;
  /** A message (head and body) is complete. */
  end(): void;
}

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailer,
  Opaque,
}

const LF = 10, CR = 13;

/** Frames the messages of one direction of a connection. */
export class Http1Framing {
  private state = State.Head;
  /** Bytes of the head (or of a chunk-size or trailer line) read so far. */
  private line: number[] = [];
  private headText = "";
  private headBytes = 0;
  /** Whether the current head has a non-empty line (blank lines before one are skipped). */
  private started = false;
  private remaining = 0;

  constructor(
    /** "request": a head without a length has no body; "response": its body runs to the close. */
    private readonly side: "request" | "response",
    private readonly events: FramingEvents,
    /** Heads longer than this make the stream opaque (the gate refuses them). */
    readonly maxHeadBytes = 64 << 10,
  ) {}

  get opaque(): boolean {
    return this.state === State.Opaque;
  }

  /** True between messages with no byte of the next one read. */
  get between(): boolean {
    return this.state === State.Head && this.headBytes === 0;
  }

  /** True while a head is being read. */
  get inHead(): boolean {
    return this.state === State.Head && this.headBytes > 0;
  }

  /** True while a body is being read. */
  get inBody(): boolean {
    return this.state !== State.Head && this.state !== State.Opaque;
  }

  /** Whether the head being read has grown past maxHeadBytes. */
  headTooLarge = false;

  feed(b: Uint8Array): void {
    let i = 0;
    const n = b.length;
    while (i < n) {
      switch (this.state) {
        case State.Opaque:
          return;
        case State.Head:
          i = this.readHead(b, i);
          break;
        case State.Length:
        case State.ChunkData: {
          // Body bytes: counted, not looked at.
          const take = Math.min(this.remaining, n - i);
          this.remaining -= take;
          i += take;
          if (this.remaining > 0) break;
          if (this.state === State.Length) this.finish();
          else this.state = State.ChunkDataEnd;
          break;
        }
        case State.ChunkSize:
        case State.ChunkDataEnd:
        case State.Trailer:
          i = this.readLine(b, i);
          break;
      }
    }
  }

  private readHead(b: Uint8Array, i: number): number {
    const n = b.length;
    if (this.headBytes === 0 && i < n) this.events.headStart();
    while (i < n) {
      const c = b[i++];
      this.headBytes++;
      if (c !== LF) {
        if (c !== CR) this.line.push(c);
        if (this.headBytes > this.maxHeadBytes) {
          this.headTooLarge = true;
          this.state = State.Opaque;
          return n;
        }
        continue;
      }
      const text = String.fromCharCode(...this.line);
      this.line = [];
      if (text === "") {
        if (!this.started) continue;
        this.endHead();
        return i;
      }
      this.started = true;
      this.headText += text + "\n";
    }
    return i;
  }

  private endHead(): void {
    const h = parseHead(this.headText);
    this.headText = "";
    this.headBytes = 0;
    this.started = false;
    if (h === null) {
      this.state = State.Opaque;
      return;
    }
    const kind = this.events.head(h);
    if (kind === "opaque") this.state = State.Opaque;
    else if (kind === "none") this.finish();
    else if (h.chunked) this.state = State.ChunkSize;
    else if (h.length > 0) {
      this.state = State.Length;
      this.remaining = h.length;
    } else if (h.length === 0 || this.side === "request") this.finish();
    else this.state = State.Opaque;
  }

  /** Reads a chunk-size line, the CRLF after a chunk's data, or a trailer line. */
  private readLine(b: Uint8Array, i: number): number {
    const n = b.length;
    while (i < n) {
      const c = b[i++];
      if (c !== LF) {
        if (c !== CR) this.line.push(c);
        if (this.line.length > 4096) {
          this.state = State.Opaque;
          return n;
        }
        continue;
      }
      const text = String.fromCharCode(...this.line);
      this.line = [];
      if (this.state === State.ChunkDataEnd) {
        this.state = text === "" ? State.ChunkSize : State.Opaque;
      } else if (this.state === State.Trailer) {
        if (text === "") this.finish();
      } else {
        const hex = text.split(";")[0].trim();
        const size = parseInt(hex, 16);
        if (!/^[0-9a-fA-F]+$/.test(hex) || !Number.isSafeInteger(size)) {
          this.state = State.Opaque;
        } else if (size === 0) this.state = State.Trailer;
        else {
          this.state = State.ChunkData;
          this.remaining = size;
        }
      }
      return i;
    }
    return i;
  }

  private finish(): void {
    this.state = State.Head;
    this.events.end();
  }
}

/** The framing fields of a head's text (lines joined by "\n"), or null when it has none. */
export function parseHead(text: string): Head | null {
  const lines = text.split("\n");
  const first = lines[0].split(" ");
  if (first.length < 2) return null;
  const isResponse = first[0].startsWith("HTTP/");
  const status = isResponse ? Number(first[1]) : 0;
  if (isResponse && !Number.isInteger(status)) return null;
  let length = -1;
  let chunked = false;
  let encoded = false;
  for (let k = 1; k < lines.length - 1; k++) {
    const line = lines[k];
    const colon = line.indexOf(":");
    if (colon <= 0) return null;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-length") {
      if (!/^\d+$/.test(value)) return null;
      const n = Number(value);
      if (!Number.isSafeInteger(n) || (length !== -1 && length !== n)) return null;
      length = n;
    } else if (name === "transfer-encoding") {
      encoded = true;
      const codings = value.toLowerCase().split(",").map((s) => s.trim());
      chunked = codings[codings.length - 1] === "chunked";
    }
  }
  // A transfer coding that does not end in chunked leaves the length unknown.
  if (encoded && !chunked) return null;
  return { method: isResponse ? "" : first[0], status, length: chunked ? -1 : length, chunked };
}
