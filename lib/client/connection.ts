// An HTTP connection to a lake service, in the manner of the Go zed client
// (lake-api.md §16.1, clients.md §1.5): responses are asked for as ZNG and
// read by field name, request parameters go as JSON or ZSON, and an error
// answer's JSON body {type, kind, error} becomes a LochError carrying the
// service's message (the Go CLI prefixes `status code <N>: `; loch shows the
// message alone, so errors read the same as against a local lake, and keeps
// the status in the error). A body that is not the JSON error form is shown
// as `status code <N>: <body>`.

import { type ErrorKind, LochError, messageOf } from "../errors.ts";
import { ByteInput } from "../formats/io.ts";
import { ZngReader } from "../formats/zng/reader.ts";
import type { Value } from "../zed/value.ts";

export const ZNG = "application/x-zng";
export const ZSON = "application/x-zson";
export const JSON_TYPE = "application/json";

/** An error answer from the service. */
export class ServiceError extends LochError {
  constructor(
    kind: ErrorKind,
    message: string,
    readonly status: number,
    /** `info.parse_error_offset` of a query syntax error. */
    readonly parseErrorOffset?: number,
  ) {
    super(kind, message);
  }
}

/** Commit metadata sent in the Zed-Commit header. */
export interface CommitMessage {
  author?: string;
  body?: string;
  meta?: string;
}

export interface RequestOptions {
  /** A string, bytes or a stream (sent as it is read). */
  body?: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
  /** Content-Type of the body; none lets the service detect a load's format. */
  contentType?: string;
  /** Accept (default ZNG). */
  accept?: string;
  commit?: CommitMessage;
}

/** Media types of the input formats, for load bodies. */
const INPUT_TYPES: Record<string, string> = {
  zson: ZSON,
  zng: ZNG,
  json: JSON_TYPE,
  ndjson: "application/x-ndjson",
  zjson: "application/x-zjson",
  csv: "text/csv",
  parquet: "application/x-parquet",
  line: "application/x-line",
  zeek: "application/x-zeek",
};

/** The Content-Type of a load body in an input format (undefined: unknown format). */
export function formatMediaType(format: string): string | undefined {
  return INPUT_TYPES[format];
}

const KINDS: Record<number, ErrorKind> = { 400: "invalid", 404: "not found", 409: "conflict" };

/** The Zed-Commit header: JSON with every non-ASCII character as a \u escape. */
export function commitHeader(c: CommitMessage): string {
  const json = JSON.stringify({ author: c.author ?? "", body: c.body ?? "", meta: c.meta ?? "" });
  return json.replace(
    /[\u007f-\uffff]/g,
    (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

/** One path segment, escaped (pool ids, branch names, commit ids). */
export function segment(s: string): string {
  return encodeURIComponent(s);
}

/** Whether a lake location names a service rather than a directory. */
export function isServiceURL(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

export class Connection {
  /** The service's URL without a trailing slash. */
  readonly url: string;

  constructor(url: string) {
    this.url = url.replace(/\/+$/, "");
  }

  /**
   * Sends a request; resolves to the response when its status is a success,
   * else throws the service's error.
   */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers = new Headers({ Accept: opts.accept ?? ZNG });
    if (opts.contentType !== undefined) headers.set("Content-Type", opts.contentType);
    if (opts.commit !== undefined) headers.set("Zed-Commit", commitHeader(opts.commit));
    // A lake that wants credentials: a token from the environment (loch token, or a JWT).
    const token = Deno.env.get("LOCH_TOKEN");
    if (token) headers.set("Authorization", `Bearer ${token}`);
    const url = this.url + path;
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: opts.body });
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      // Deno's text repeats the URL: `error sending request for url (…): <why>`.
      const why = messageOf(cause ?? e).replace(/^error sending request for url \([^)]*\): /, "");
      throw new LochError("internal", `${method} ${url}: ${why}`);
    }
    if (res.ok) return res;
    throw await errorOf(res);
  }

  /** A request whose answer is one value (ZNG), or null for an empty body (204). */
  async value(method: string, path: string, opts: RequestOptions = {}): Promise<Value | null> {
    const res = await this.request(method, path, opts);
    const values = await readValues(res);
    return values[0] ?? null;
  }

  /** A request whose answer is ignored (as for 204 No Content). */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<void> {
    const res = await this.request(method, path, opts);
    await res.body?.cancel();
  }
}

/** A JSON request body. */
export function jsonBody(v: unknown): Pick<RequestOptions, "body" | "contentType"> {
  return { body: JSON.stringify(v), contentType: JSON_TYPE };
}

/** A ZSON request body. */
export function zsonBody(text: string): Pick<RequestOptions, "body" | "contentType"> {
  return { body: text, contentType: ZSON };
}

/** Every value of a ZNG response body. */
export async function readValues(res: Response): Promise<Value[]> {
  if (res.body === null) return [];
  const reader = new ZngReader(ByteInput.fromStream(res.body, "response"));
  const out: Value[] = [];
  for (let b = await reader.read(); b !== null; b = await reader.read()) {
    for (const v of b) out.push(v);
  }
  return out;
}

/** The error an unsuccessful response stands for. */
export async function errorOf(res: Response): Promise<ServiceError> {
  const kind = KINDS[res.status] ?? "internal";
  const text = await res.text().catch(() => "");
  const type = (res.headers.get("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
  if (type === JSON_TYPE) {
    try {
      const body = JSON.parse(text);
      if (body !== null && typeof body === "object" && typeof body.error === "string") {
        const offset = body.info?.parse_error_offset;
        return new ServiceError(
          kind,
          body.error,
          res.status,
          typeof offset === "number" ? offset : undefined,
        );
      }
    } catch {
      // not the error form: shown whole below
    }
  }
  return new ServiceError(kind, `status code ${res.status}: ${text.trim()}`, res.status);
}
