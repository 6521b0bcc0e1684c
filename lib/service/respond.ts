// Success bodies of the non-query routes (lake-api.md §2.4): one Zed value,
// encoded in the negotiated format, with that format's media type (not the
// sniffed text/plain the reference sends by accident, §2.5).

import { openWriter } from "../formats/registry.ts";
import type { Value } from "../zed/value.ts";
import { mediaType } from "./mime.ts";

/** A value's bytes in a format: ZSON and JSON as one line, ZNG as a stream, and so on. */
export async function encodeValue(format: string, v: Value): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  const sink = (c: Uint8Array) => {
    chunks.push(c.slice());
    return Promise.resolve();
  };
  // NDJSON is one JSON line here (the reference fails on it mid-response).
  const name = format === "ndjson" ? "json" : format;
  const w = openWriter(name, sink, { pretty: 0 });
  await w.write([v]);
  await w.end();
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const c of chunks) {
    out.set(c, n);
    n += c.length;
  }
  return out;
}

export async function valueResponse(
  format: string,
  v: Value,
  headers?: HeadersInit,
): Promise<Response> {
  const h = new Headers(headers);
  h.set("Content-Type", mediaType(format));
  return new Response(await encodeValue(format, v), { status: 200, headers: h });
}

/** 204 No Content. */
export function noContent(headers?: HeadersInit): Response {
  return new Response(null, { status: 204, headers });
}
