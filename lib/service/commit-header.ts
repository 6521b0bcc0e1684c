// The Zed-Commit request header (lake-api.md §5): optional JSON
// `{"author":…,"body":…,"meta":…}` with keys matched case-insensitively (as
// Go's JSON decoder matches them). Clients send non-ASCII either as \u
// escapes (zed-js, Python) or as raw UTF-8 bytes (Go), which arrive here as
// one character per byte and are decoded again.

import { invalid } from "../errors.ts";
import type { CommitRequest } from "../lake/load.ts";

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

/** The commit metadata of a request; `what` names the endpoint in the error message. */
export function commitHeader(req: Request, what = "load"): CommitRequest {
  const raw = req.headers.get("Zed-Commit");
  if (raw === null || raw === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(headerText(raw));
  } catch (e) {
    throw invalid(
      `${what} endpoint encountered invalid JSON in Zed-Commit header: ${(e as Error).message}`,
    );
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw invalid(
      `${what} endpoint encountered invalid JSON in Zed-Commit header: not a JSON object`,
    );
  }
  const out: CommitRequest = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    if (typeof val !== "string") continue;
    switch (k.toLowerCase()) {
      case "author":
        out.author = val;
        break;
      case "body":
        out.body = val;
        break;
      case "meta":
        out.meta = val;
        break;
    }
  }
  return out;
}
