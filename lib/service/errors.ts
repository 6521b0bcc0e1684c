// Errors as HTTP responses (lake-api.md §4): every LochError kind maps to a
// status and the reference's kind string, in this one place. The body is
// `{"type":"Error","kind":…,"error":…}` (plus `info.parse_error_offset` for
// query syntax errors) with Content-Type exactly application/json, which is
// what the Go client needs to read it.

import { asClientFault, type ErrorKind, LochError, messageOf } from "../errors.ts";
import { ParseError } from "../query/mod.ts";

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  "not found": 404,
  conflict: 409,
  unauthorized: 401,
  forbidden: 403,
  "too large": 413,
  timeout: 408,
  upstream: 502,
  unavailable: 503,
  internal: 500,
};

const KIND: Record<ErrorKind, string> = {
  invalid: "invalid operation",
  "not found": "item does not exist",
  conflict: "conflict with pending operation",
  unauthorized: "missing authentication credentials",
  forbidden: "forbidden",
  "too large": "invalid operation",
  timeout: "",
  upstream: "",
  unavailable: "",
  internal: "",
};

/** JSON as Go's encoder writes it: <, >, & and the line separators escaped. */
export function goJSON(v: unknown): string {
  return JSON.stringify(v).replace(
    /[<>&\u2028\u2029]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

export function errorStatus(e: unknown): number {
  e = asClientFault(e);
  return e instanceof LochError ? STATUS[e.kind] : 500;
}

/** The error body, newline-terminated. */
export function errorJSON(e: unknown): string {
  e = asClientFault(e);
  const body: Record<string, unknown> = {
    type: "Error",
    kind: e instanceof LochError ? KIND[e.kind] : "",
    error: messageOf(e),
  };
  if (e instanceof ParseError) body.info = { parse_error_offset: e.offset };
  return goJSON(body) + "\n";
}

export function errorResponse(e: unknown, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set("Content-Type", "application/json");
  return new Response(errorJSON(e), { status: errorStatus(e), headers: h });
}
