// The Zed-Commit request header (lake-api.md §5): optional JSON
// `{"author":…,"body":…,"meta":…}` with keys matched case-insensitively (as
// Go's JSON decoder matches them). Clients send non-ASCII either as \u
// escapes (zed-js, Python) or as raw UTF-8 bytes (Go), which arrive here as
// one character per byte and are decoded again.

import { invalid } from "../errors.ts";
import type { CommitRequest } from "../lake/load.ts";
import { goJSONKind, goJSONSyntaxError } from "./gojson.ts";

/** The header's text with raw UTF-8 bytes decoded (a header value is read as Latin-1). */
function headerText(raw: string): string {
  for (let i = 0; i < raw.length; i++) {
    if (raw.charCodeAt(i) > 0x7f) {
      const bytes = new Uint8Array(raw.length);
      for (let j = 0; j < raw.length; j++) bytes[j] = raw.charCodeAt(j) & 0xff;
      return new TextDecoder().decode(bytes);
    }
  }
  return raw;
}

const FIELDS: Record<string, keyof CommitRequest> = {
  author: "author",
  body: "body",
  meta: "meta",
};
/** The Go struct's field names, which type errors quote. */
const GO_FIELDS: Record<keyof CommitRequest, string> = {
  author: "Author",
  body: "Body",
  meta: "Meta",
};

/** The commit metadata of a request; `what` names the endpoint in the error message. */
export function commitHeader(req: Request, what = "load"): CommitRequest {
  const raw = req.headers.get("Zed-Commit");
  if (raw === null || raw === "") return {};
  const fail = (msg: string) =>
    invalid(`${what} endpoint encountered invalid JSON in Zed-Commit header: ${msg}`);
  const text = headerText(raw);
  // Go's decoder checks the syntax first, then reports the first type mismatch.
  const syntax = goJSONSyntaxError(new TextEncoder().encode(text));
  if (syntax !== null) throw fail(syntax);
  const v: unknown = JSON.parse(text);
  const out: CommitRequest = {};
  if (v === null) return out;
  if (typeof v !== "object" || Array.isArray(v)) {
    throw fail(`json: cannot unmarshal ${goJSONKind(v)} into Go value of type api.CommitMessage`);
  }
  let mismatch: string | undefined;
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    // Keys match the fields case-insensitively.
    const f = FIELDS[k.toLowerCase()];
    if (f === undefined || val === null) continue;
    if (typeof val === "string") out[f] = val;
    else {
      mismatch ??= `json: cannot unmarshal ${goJSONKind(val)} into Go struct field ` +
        `CommitMessage.${GO_FIELDS[f]} of type string`;
    }
  }
  if (mismatch !== undefined) throw fail(mismatch);
  return out;
}
