// Media types (lake-api.md §2): the formats the service speaks, Accept
// negotiation for responses and Content-Type for request bodies.
//
// Accept is read better than the reference reads it but so that every
// header the reference accepts picks the same format: media ranges are
// taken in order of their q-values (ties in the order given), q=0 excludes
// a range, `*/*` means the default (ZSON), and `application/*` / `text/*`
// pick that family's default; a range loch cannot serve is skipped.

import { invalid } from "../errors.ts";

/** Output formats by media type. */
const FORMATS: Record<string, string> = {
  "application/x-zson": "zson",
  "application/json": "json",
  "application/x-ndjson": "ndjson",
  "application/x-zjson": "zjson",
  "application/x-zng": "zng",
  "text/csv": "csv",
  "application/x-parquet": "parquet",
  "application/vnd.apache.arrow.stream": "arrows",
};

const MEDIA_TYPES: Record<string, string> = Object.fromEntries(
  Object.entries(FORMATS).map(([type, format]) => [format, type]),
);

export const DEFAULT_FORMAT = "zson";

/** The media type to send for a format. */
export function mediaType(format: string): string {
  return MEDIA_TYPES[format] ?? "application/octet-stream";
}

interface MediaRange {
  type: string;
  q: number;
  order: number;
}

/** A media type's lower-cased type/subtype and its q-value (1 when absent or bad). */
function parseRange(text: string, order: number): MediaRange | null {
  const [head, ...params] = text.split(";");
  const type = head.trim().toLowerCase();
  if (type === "") return null;
  let q = 1;
  for (const p of params) {
    const [k, v] = p.split("=").map((x) => x.trim());
    if (k.toLowerCase() === "q") {
      const n = Number(v);
      if (Number.isFinite(n) && n >= 0 && n <= 1) q = n;
    }
  }
  return { type, q, order };
}

function formatOfRange(type: string): string | undefined {
  if (type === "*/*") return DEFAULT_FORMAT;
  if (type === "application/*") return DEFAULT_FORMAT;
  if (type === "text/*") return "csv";
  return FORMATS[type];
}

/** The response format an Accept header asks for; a 400 when it accepts nothing loch serves. */
export function negotiate(accept: string | null): string {
  if (accept === null || accept.trim() === "") return DEFAULT_FORMAT;
  const ranges = accept.split(",").map(parseRange).filter((r): r is MediaRange =>
    r !== null && r.q > 0
  );
  ranges.sort((a, b) => b.q - a.q || a.order - b.order);
  for (const r of ranges) {
    const f = formatOfRange(r.type);
    if (f !== undefined) return f;
  }
  throw invalid("could not find supported MIME type in Accept header");
}

/** Go's MIME token characters: printable ASCII but for the tspecials. */
function tokenLength(s: string, from: number): number {
  let i = from;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || '()<>@,;:\\"/[]?='.includes(s[i])) break;
    i++;
  }
  return i - from;
}

/**
 * The lower-cased type/subtype of a Content-Type header, or "" when there is
 * none; a malformed one is refused with Go's mime.ParseMediaType error.
 */
export function contentType(header: string | null): string {
  if (header === null || header.trim() === "") return "";
  const type = header.split(";")[0].trim().toLowerCase();
  const n = tokenLength(type, 0);
  if (n === 0) throw invalid("mime: no media type");
  if (n === type.length) return type;
  if (type[n] !== "/") throw invalid("mime: expected slash after first token");
  const m = tokenLength(type, n + 1);
  if (m === 0) throw invalid("mime: expected token after slash");
  if (n + 1 + m !== type.length) throw invalid("mime: unexpected content after media subtype");
  return type;
}

/**
 * The format of a request body that carries parameters: ZSON when the type
 * is absent, `*\/*` or a form (curl's default), else its format.
 */
export function paramsFormat(header: string | null): string {
  const type = contentType(header);
  if (type === "" || type === "*/*" || type === "application/x-www-form-urlencoded") return "zson";
  const f = FORMATS[type];
  if (f === undefined) throw invalid(`unsupported MIME type: ${type}`);
  return f === "ndjson" ? "json" : f;
}

/** Input-only media types (Zui offers these for loads). */
const INPUT_ONLY: Record<string, string> = {
  "application/x-line": "line",
  "application/x-zeek": "zeek",
};

/**
 * The input format of a load body: "auto" (detect) when the type is absent,
 * empty, `*\/*` or a form. Unlike the reference, which refuses them, NDJSON,
 * Parquet (read whole, as it must be), line and Zeek bodies are loaded.
 */
export function loadFormat(header: string | null): string {
  const type = contentType(header);
  if (type === "" || type === "*/*" || type === "application/x-www-form-urlencoded") return "auto";
  const f = FORMATS[type] ?? INPUT_ONLY[type];
  if (f === undefined) throw invalid(`unsupported MIME type: ${type}`);
  return f === "ndjson" ? "json" : f;
}
