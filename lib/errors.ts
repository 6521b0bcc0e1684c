// Errors are values with a kind. Every layer throws LochError; the service maps
// the kind to an HTTP status in one place, the CLI prints the message.

export type ErrorKind =
  /** The request or its input is malformed (HTTP 400). */
  | "invalid"
  /** A named thing does not exist (HTTP 404). */
  | "not found"
  /** A name or state conflicts with what exists (HTTP 409). */
  | "conflict"
  /** The request has no valid credentials (HTTP 401). */
  | "unauthorized"
  /** The request is refused: not allowed from where it came, or for who sent it (HTTP 403). */
  | "forbidden"
  /** The request or its input is bigger than allowed (HTTP 413). */
  | "too large"
  /** The request took longer than allowed: its body did not arrive, or its query ran too long (HTTP 408). */
  | "timeout"
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

const ENGINE_LIMIT =
  /^(Invalid (string|array|typed array) length|Array buffer allocation failed|Maximum call stack size exceeded)/;

/**
 * A LochError for an error the engine threw because of what a client asked
 * for (a string or array past V8's limits, recursion past the stack): the
 * client's fault, "invalid"; anything else unchanged.
 */
export function asClientFault(e: unknown): unknown {
  if (e instanceof RangeError && ENGINE_LIMIT.test(e.message)) {
    return invalid(`value too large: ${e.message}`);
  }
  return e;
}

/** The message of any thrown value. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
