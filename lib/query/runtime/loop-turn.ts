// A turn of the event loop that lets pending I/O in without idling: the
// self-pipe trick over a loopback TCP pair. Writing a byte to one end and
// awaiting it at the other makes the runtime poll the operating system for
// I/O readiness, which also lets in every other socket that is ready (a new
// request, a client taking its response), and costs tens of microseconds.
// The alternatives fall short in Deno: setTimeout(0) waits for the next
// millisecond tick of the timer (about 2 ms idle per turn), and microtasks,
// setImmediate and MessageChannel resume without polling I/O at all.
//
// Several pieces of work may ask for a turn at once; they share the one in
// flight, since a socket end takes one read at a time.

export class LoopTurns {
  private inFlight: Promise<void> | null = null;
  private readonly one = new Uint8Array([1]);
  private readonly sink = new Uint8Array(256);
  private closed = false;

  private constructor(
    private readonly writeEnd: Deno.Conn,
    private readonly readEnd: Deno.Conn,
  ) {}

  /**
   * Opens the pair on 127.0.0.1; null when the platform refuses, or another
   * process connected first (then turns are timer turns).
   */
  static async open(): Promise<LoopTurns | null> {
    let listener: Deno.Listener | undefined;
    try {
      listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (listener.addr as Deno.NetAddr).port;
      const [writeEnd, readEnd] = await Promise.all([
        Deno.connect({ hostname: "127.0.0.1", port }),
        listener.accept(),
      ]);
      // The ends must be each other's, not a stranger's connection.
      const ours = (readEnd.remoteAddr as Deno.NetAddr).port ===
        (writeEnd.localAddr as Deno.NetAddr).port;
      if (!ours) {
        writeEnd.close();
        readEnd.close();
        return null;
      }
      writeEnd.setNoDelay(true);
      return new LoopTurns(writeEnd, readEnd);
    } catch {
      return null;
    } finally {
      listener?.close();
    }
  }

  /** Resolves once the event loop has polled for I/O and run what was ready. */
  turn(): Promise<void> {
    if (this.closed) return timerTurn();
    return this.inFlight ??= this.poll();
  }

  private async poll(): Promise<void> {
    try {
      await this.writeEnd.write(this.one);
      // Bytes of turns that raced a close may be read together: any count will do.
      await this.readEnd.read(this.sink);
    } catch {
      // Closed under us (shutdown): the turn is over either way.
    } finally {
      this.inFlight = null;
    }
  }

  /** Closes the pair once the turn in flight, if any, is over. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.inFlight;
    this.writeEnd.close();
    this.readEnd.close();
  }
}

/** A turn by timer: lets everything ready run, then waits for the timer's next tick. */
export function timerTurn(): Promise<void> {
  return new Promise((r) => setTimeout(r, 0));
}
