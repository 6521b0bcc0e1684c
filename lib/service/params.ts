// Request parameters (lake-api.md §2.3): the first value of the body, read
// in the format its Content-Type names (ZSON when there is none, so JSON and
// ZSON bodies both work, and ZNG from the Go client), then read by field
// name. An empty body leaves every field at its zero value; unknown fields
// are ignored.

import { invalid, LochError, messageOf } from "../errors.ts";
import { openReader } from "../formats/detect.ts";
import { ByteInput } from "../formats/io.ts";
import { formatType } from "../zed/typetext.ts";
import { formatZson } from "../formats/zson/formatter.ts";
import { quoteGoString } from "../zed/goquote.ts";
import {
  Kind,
  recordOf,
  type Type,
  TypeBytes,
  TypeInt16,
  TypeInt32,
  TypeInt64,
  TypeInt8,
  TypeString,
  typeUnder,
  type UnionType,
} from "../zed/types.ts";
import { type Body, UnionBody, Value } from "../zed/value.ts";
import { paramsFormat } from "./mime.ts";

export class Params {
  constructor(readonly value: Value | null) {}

  /** The named field's value, or undefined when absent or null. */
  get(name: string): Value | undefined {
    const v = this.value;
    if (v === null || v.body === null) return undefined;
    const rt = recordOf(v.type);
    if (rt === undefined) return undefined;
    const i = rt.fields.findIndex((f) => f.name === name);
    if (i < 0) return undefined;
    const body = (v.body as Body[])[i];
    return body === null ? undefined : new Value(rt.fields[i].type, body);
  }

  /** A string field; goType names the Go field's type in a mismatch error. */
  string(name: string, goType = "string"): string {
    const v = this.get(name);
    if (v === undefined) return "";
    return stringOf(v, goType);
  }

  /** An integer field (int8 to int64, as Go's int fields take); goType is `int` or `int64`. */
  int(name: string, goType = "int64"): number {
    const v = this.get(name);
    if (v === undefined) return 0;
    if (!SIGNED.has(typeUnder(v.type))) throw incompatible(v.type, goType, goType);
    return Number(v.body);
  }

  /** An array of strings (null or absent: empty). */
  strings(name: string): string[] {
    const v = this.get(name);
    return v === undefined ? [] : stringList(v);
  }

  /** An array of KSUIDs sent as bytes (20 each). */
  bytesList(name: string): Uint8Array[] {
    return this.array(name).map((e) => {
      // A KSUID is a Go byte array: anything but bytes is "not an array".
      const u = typeUnder(e.type);
      if (u !== TypeBytes) {
        throw invalid(`unmarshaling type ${quoteGoString(formatType(u))}: not an array`);
      }
      if (e.body === null) return new Uint8Array(20);
      if ((e.body as Uint8Array).length !== 20) {
        throw invalid("ZNG bytes value length differs from Go array");
      }
      return e.body as Uint8Array;
    });
  }

  /** The elements of an array (or set) field. */
  array(name: string): Value[] {
    const v = this.get(name);
    return v === undefined ? [] : elements(v);
  }

  /** A nested record's parameters (absent: an empty one). */
  record(name: string): Params {
    const v = this.get(name);
    if (v !== undefined) checkRecord(v);
    return new Params(v ?? null);
  }
}

/** The elements of an array (or set) value; null has none. */
export function elements(v: Value): Value[] {
  const u = typeUnder(v.type);
  if (u.kind !== Kind.Array && u.kind !== Kind.Set) {
    throw invalid(`unmarshaling type ${quoteGoString(formatType(u))}: not an array`);
  }
  if (v.body === null) return [];
  return (v.body as Body[]).map((b) => new Value(u.elem, b));
}

/** A union value as its member's value (other values as they are). */
export function deunion(v: Value): Value {
  const u = typeUnder(v.type);
  if (u.kind !== Kind.Union || !(v.body instanceof UnionBody)) return v;
  return new Value((u as UnionType).types[v.body.tag], v.body.body);
}

/** An array of strings as a Go []string takes it (null elements are ""). */
export function stringList(v: Value): string[] {
  return elements(v).map((e) => e.body === null ? "" : stringOf(e, "string"));
}

const SIGNED = new Set<Type>([TypeInt8, TypeInt16, TypeInt32, TypeInt64]);

function stringOf(v: Value, goType: string): string {
  if (typeUnder(v.type) !== TypeString) throw incompatible(v.type, goType, "string");
  return v.body as string;
}

/** The reference's error for a value that does not fit a Go field. */
function incompatible(t: Type, goType: string, goKind: string): LochError {
  return invalid(
    `incompatible type translation: zng type ${formatType(t)} go type ${goType} go kind ${goKind}`,
  );
}

/** A value that must be a record (a Go struct). */
function checkRecord(v: Value): void {
  if (v.body === null || recordOf(v.type) !== undefined) return;
  const text = quoteGoString(formatZson(v.type, v.body));
  throw invalid(`cannot unmarshal Zed value ${text} into Go struct`);
}

/** Reads a request's parameters. */
/**
 * Limits on parameter bodies: the most bytes one may have, as sent and after
 * gzip, and how long it may take to arrive (the server sets them from its
 * options).
 */
export const paramsLimits = { maxBytes: 16 << 20, deadlineMs: 60_000 };

export async function readParams(req: Request): Promise<Params> {
  const format = paramsFormat(req.headers.get("Content-Type"));
  const bytes = await bodyBytes(req);
  if (bytes.length === 0) return new Params(null);
  try {
    const reader = await openReader(ByteInput.fromBytes(bytes, "request body"), format);
    const batch = await reader.read();
    const v = batch === null || batch.length === 0 ? null : batch[0];
    if (v !== null) checkRecord(v);
    return new Params(v);
  } catch (e) {
    throw e instanceof LochError ? e : invalid(messageOf(e));
  }
}

/**
 * A parameter body, whole: at most paramsLimits.maxBytes as sent and, gzipped,
 * as inflated (a small gzip body can inflate to gigabytes), arriving within
 * paramsLimits.deadlineMs (a body trickled a byte at a time would hold its
 * connection for ever).
 */
async function bodyBytes(req: Request): Promise<Uint8Array> {
  if (req.body === null) return new Uint8Array(0);
  const deadline = Date.now() + paramsLimits.deadlineMs;
  let bytes = await readWithin(req.body, deadline, "request body");
  if (isGzip(bytes)) {
    const inflated = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
      .pipeThrough(new DecompressionStream("gzip") as TransformStream<Uint8Array, Uint8Array>);
    try {
      bytes = await readWithin(inflated, deadline, "inflated request body");
    } catch (e) {
      throw e instanceof LochError ? e : invalid(messageOf(e));
    }
    // The reader would inflate a second layer without these limits.
    if (isGzip(bytes)) throw invalid("request body: gzip within gzip is not read");
  }
  return bytes;
}

function isGzip(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === 0x1f && b[1] === 0x8b && b[2] === 8;
}

async function readWithin(
  body: ReadableStream<Uint8Array>,
  deadline: number,
  what: string,
): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new LochError(
                "timeout",
                `${what} did not arrive within ${paramsLimits.deadlineMs / 1000} s`,
              ),
            ),
          Math.max(0, deadline - Date.now()),
        );
      });
      let r;
      try {
        r = await Promise.race([reader.read(), late]);
      } finally {
        clearTimeout(timer);
      }
      if (r.done) break;
      size += r.value.length;
      if (size > paramsLimits.maxBytes) {
        throw new LochError(
          "too large",
          `${what} too large (the limit is ${paramsLimits.maxBytes} bytes)`,
        );
      }
      chunks.push(r.value);
    }
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw e;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
