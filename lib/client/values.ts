// Reading the service's response values by field name, as the Go client
// unmarshals them: a field that is missing or of another type reads as
// absent, so a newer server with more fields still works.

import { LochError } from "../errors.ts";
import type { KSUID } from "../lake/ksuid.ts";
import type { DataObject } from "../lake/objects.ts";
import type { PoolConfig } from "../lake/pools.ts";
import { Kind, recordOf, typeUnder } from "../zed/types.ts";
import { type Body, Value } from "../zed/value.ts";

/** A record field's value (undefined when v is not a record or has no such field). */
export function fieldOf(v: Value | undefined, name: string): Value | undefined {
  if (v === undefined || v.body === null) return undefined;
  const rt = recordOf(v.type);
  if (rt === undefined) return undefined;
  const i = rt.indexOf(name);
  return i < 0 ? undefined : new Value(rt.fields[i].type, (v.body as Body[])[i]);
}

export function stringField(v: Value | undefined, name: string): string | undefined {
  const b = fieldOf(v, name)?.body;
  return typeof b === "string" ? b : undefined;
}

export function numberField(v: Value | undefined, name: string): number | undefined {
  const b = fieldOf(v, name)?.body;
  return typeof b === "number" ? b : typeof b === "bigint" ? Number(b) : undefined;
}

/** An integer field as a bigint (times, as ns). */
export function bigintField(v: Value | undefined, name: string): bigint | undefined {
  const b = fieldOf(v, name)?.body;
  return typeof b === "number" || typeof b === "bigint" ? BigInt(b) : undefined;
}

/** A KSUID field (20 bytes). */
export function idField(v: Value | undefined, name: string): KSUID | undefined {
  const b = fieldOf(v, name)?.body;
  return b instanceof Uint8Array && b.length === 20 ? b : undefined;
}

/** An array of strings (null elements as ""). */
export function stringsField(v: Value | undefined, name: string): string[] | undefined {
  const f = fieldOf(v, name);
  if (f === undefined || f.body === null) return undefined;
  const u = typeUnder(f.type);
  if (u.kind !== Kind.Array && u.kind !== Kind.Set) return undefined;
  return (f.body as Body[]).map((b) => typeof b === "string" ? b : "");
}

/** The name of a value's named type (`pools.Config`), or undefined. */
export function typeName(v: Value): string | undefined {
  return v.type.kind === Kind.Named ? v.type.name : undefined;
}

function bad(what: string): LochError {
  return new LochError("internal", `lake service sent a malformed ${what}`);
}

/** A `pools.Config` value as a PoolConfig. */
export function poolConfigOf(v: Value): PoolConfig {
  const id = idField(v, "id");
  const name = stringField(v, "name");
  if (id === undefined || name === undefined) throw bad("pool record");
  const layout = fieldOf(v, "layout");
  const order = stringField(layout, "order")?.toLowerCase() === "desc" ? "desc" : "asc";
  const keysValue = fieldOf(layout, "keys");
  const keys = keysValue === undefined || keysValue.body === null
    ? null
    : (keysValue.body as Body[]).map((p) => (p as Body[] | null ?? []).map(String));
  return {
    id,
    name,
    ts: bigintField(v, "ts") ?? 0n,
    layout: { order, keys },
    seekStride: numberField(v, "seek_stride") ?? 0,
    threshold: numberField(v, "threshold") ?? 0,
  };
}

/**
 * A `data.Object` value as the DataObject fields compaction planning needs
 * (id, first and last keys, count, size); the key span is taken from the
 * first and last keys.
 */
export function dataObjectOf(v: Value): DataObject {
  const id = idField(v, "id");
  const meta = fieldOf(v, "meta");
  const first = fieldOf(meta, "first");
  const last = fieldOf(meta, "last");
  if (id === undefined || first === undefined || last === undefined) throw bad("data object");
  const keys = [first, last].filter((k) => k.body !== null);
  return {
    id,
    first,
    last,
    span: {
      lo: keys[0] ?? null,
      hi: keys[keys.length - 1] ?? null,
      mixed: keys.length === 2 && keys[0].type !== keys[1].type,
    },
    count: numberField(meta, "count") ?? 0,
    size: numberField(meta, "size") ?? 0,
    bytes: numberField(meta, "size") ?? 0,
    columns: null,
  };
}
