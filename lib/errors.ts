// Errors are values with a kind. Every layer throws LochError; the service maps
// the kind to an HTTP status in one place, the CLI prints the message.

export type ErrorKind =
  /** The request or its input is malformed (HTTP 400). */
  | "invalid"
  /** A named thing does not exist (HTTP 404). */
  | "not found"
  /** A name or state conflicts with what exists (HTTP 409). */
  | "conflict"
  /** The request is refused: not allowed from where it came (HTTP 403). */
  | "forbidden"
  /** The request or its input is bigger than allowed (HTTP 413). */
  | "too large"
  /** A server the request named (a `get` URL) failed or did not answer (HTTP 502). */
  | "upstream"
  /** The server is at a limit it keeps (connections, queued queries); try later (HTTP 503). */
  | "unavailable"
  /** A bug or an environment failure (HTTP 500). */
  | "internal";

export class LochError extends Error {
  constructor(readonly kind: ErrorKind, message: string) {
    super(message);
    this.name = "LochError";
  }
}

export function invalid(message: string): LochError {
  return new LochError("invalid", message);
}

/** The message of any thrown value. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
