// Request parameters (lake-api.md §2.3): the first value of the body, read
// in the format its Content-Type names (ZSON when there is none, so JSON and
// ZSON bodies both work, and ZNG from the Go client), then read by field
// name. An empty body leaves every field at its zero value; unknown fields
// are ignored.

import { invalid, LochError, messageOf } from "../errors.ts";
import { openReader } from "../formats/detect.ts";
import { ByteInput } from "../formats/io.ts";
import { formatType } from "../zed/typetext.ts";
import { Kind, recordOf, type Type, typeUnder } from "../zed/types.ts";
import { type Body, Value } from "../zed/value.ts";
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

  string(name: string): string {
    const v = this.get(name);
    if (v === undefined) return "";
    if (typeof v.body !== "string") throw mismatch(name, "string", v.type);
    return v.body;
  }

  int(name: string): number {
    const v = this.get(name);
    if (v === undefined) return 0;
    if (typeof v.body !== "number" && typeof v.body !== "bigint") {
      throw mismatch(name, "int64", v.type);
    }
    return Number(v.body);
  }

  /** An array of strings (null or absent: empty). */
  strings(name: string): string[] {
    return this.array(name).map((e) => {
      if (typeof e.body !== "string") throw mismatch(name, "string", e.type);
      return e.body;
    });
  }

  /** An array of byte strings (ids sent as bytes). */
  bytesList(name: string): Uint8Array[] {
    return this.array(name).map((e) => {
      if (!(e.body instanceof Uint8Array) || typeUnder(e.type).kind !== Kind.Primitive) {
        throw mismatch(name, "bytes", e.type);
      }
      return e.body;
    });
  }

  /** The elements of an array or set field. */
  array(name: string): Value[] {
    const v = this.get(name);
    if (v === undefined) return [];
    const u = typeUnder(v.type);
    if (u.kind !== Kind.Array && u.kind !== Kind.Set) throw mismatch(name, "array", v.type);
    return (v.body as Body[]).map((b) => new Value(u.elem, b));
  }

  /** A nested record's parameters (absent: an empty one). */
  record(name: string): Params {
    const v = this.get(name);
    if (v !== undefined && recordOf(v.type) === undefined) throw mismatch(name, "record", v.type);
    return new Params(v ?? null);
  }
}

function mismatch(field: string, want: string, got: Type): LochError {
  return invalid(`unmarshaling ${field}: expected ${want}, found ${formatType(got)}`);
}

/** Reads a request's parameters. */
export async function readParams(req: Request): Promise<Params> {
  const format = paramsFormat(req.headers.get("Content-Type"));
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.length === 0) return new Params(null);
  try {
    const reader = await openReader(ByteInput.fromBytes(bytes, "request body"), format);
    const batch = await reader.read();
    return new Params(batch === null ? null : batch[0]);
  } catch (e) {
    throw e instanceof LochError ? e : invalid(messageOf(e));
  }
}
