// Lake metadata as Zed values, with the reference's record shapes and type
// names (lake-api.md §14): what meta-queries return and what the service
// sends. Type names come in two styles: package (`ksuid.KSUID`,
// `pools.Config`) and simple (`KSUID`, `Commit`), as the reference uses them.

import { parseZsonValue } from "../formats/zson/reader.ts";
import { zctx } from "../zed/context.ts";
import {
  Field,
  ID_TIME,
  type Type,
  TypeBytes,
  TypeInt64,
  TypeNull,
  TypeString,
  TypeTime,
  TypeUint64,
  TypeUint8,
  underId,
} from "../zed/types.ts";
import { type Body, UnionBody, Value } from "../zed/value.ts";
import type { BranchConfig } from "./branches.ts";
import type { CommitInfo } from "./commits.ts";
import type { KSUID } from "./ksuid.ts";
import type { DataObject } from "./objects.ts";
import type { PoolConfig } from "./pools.ts";

export type NameStyle = "package" | "simple";

function named(name: string, t: Type): Type {
  return zctx.lookupNamed(name, t);
}

function record(fields: [string, Type][]): Type {
  return zctx.lookupRecord(fields.map(([n, t]) => new Field(n, t)));
}

export function ksuidType(style: NameStyle = "package"): Type {
  return named(style === "package" ? "ksuid.KSUID" : "KSUID", TypeBytes);
}

/** A time body from ns. */
function time(ns: bigint): Body {
  return ns >= BigInt(Number.MIN_SAFE_INTEGER) && ns <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(ns)
    : ns;
}

function layoutType(): Type {
  const path = named("field.Path", zctx.lookupArray(TypeString));
  return named(
    "order.Layout",
    record([
      ["order", named("order.Which", TypeString)],
      ["keys", named("field.List", zctx.lookupArray(path))],
    ]),
  );
}

export function poolType(): Type {
  return named(
    "pools.Config",
    record([
      ["ts", TypeTime],
      ["name", TypeString],
      ["id", ksuidType()],
      ["layout", layoutType()],
      ["seek_stride", TypeInt64],
      ["threshold", TypeInt64],
    ]),
  );
}

function poolBody(p: PoolConfig): Body {
  return [time(p.ts), p.name, p.id, [p.layout.order, p.layout.keys], p.seekStride, p.threshold];
}

export function poolValue(p: PoolConfig): Value {
  return new Value(poolType(), poolBody(p));
}

export function branchType(): Type {
  return named(
    "branches.Config",
    record([["ts", TypeTime], ["name", TypeString], ["commit", ksuidType()]]),
  );
}

function branchBody(b: BranchConfig): Body {
  return [time(b.ts), b.name, b.commit];
}

export function branchValue(b: BranchConfig): Value {
  return new Value(branchType(), branchBody(b));
}

/** `lake.BranchMeta`: a pool and one of its branches. */
export function branchMetaValue(p: PoolConfig, b: BranchConfig): Value {
  const t = named("lake.BranchMeta", record([["pool", poolType()], ["branch", branchType()]]));
  return new Value(t, [poolBody(p), branchBody(b)]);
}

/** `data.Object`: an object's id and `data.Meta` (whose key types are those of its keys). */
export function objectValue(o: DataObject): Value {
  const meta = named(
    "data.Meta",
    record([
      ["first", o.first.type],
      ["last", o.last.type],
      ["count", TypeUint64],
      ["size", TypeInt64],
    ]),
  );
  const t = named("data.Object", record([["id", ksuidType()], ["meta", meta]]));
  return new Value(t, objectBody(o));
}

function objectBody(o: DataObject): Body {
  return [o.id, [o.first.body, o.last.body, o.count, o.size]];
}

/** A commit's metadata value (stored as ZSON), or null. */
function commitMeta(c: CommitInfo): Value {
  return c.meta === null ? new Value(TypeNull, null) : parseZsonValue(c.meta);
}

/**
 * A commit record: `Commit` with `KSUID` ids in the simple style (`:log`),
 * `commits.Commit` with `ksuid.KSUID` ids in the package style (`:rawlog`).
 */
export function commitValue(c: CommitInfo, style: NameStyle): Value {
  const id = ksuidType(style);
  const meta = commitMeta(c);
  const t = named(
    style === "simple" ? "Commit" : "commits.Commit",
    record([
      ["id", id],
      ["parent", id],
      ["retries", TypeUint8],
      ["author", TypeString],
      ["date", TypeTime],
      ["message", TypeString],
      ["meta", meta.type],
    ]),
  );
  return new Value(t, [c.id, c.parent, c.retries, c.author, time(c.date), c.message, meta.body]);
}

/** `lake.BranchTip` (Go field names, as the reference sends them). */
export function branchTipValue(name: string, commit: KSUID): Value {
  const t = named("lake.BranchTip", record([["Name", TypeString], ["Commit", ksuidType()]]));
  return new Value(t, [name, commit]);
}

/** `commits.Add` of an object. */
export function addActionValue(commit: KSUID, o: DataObject): Value {
  const obj = objectValue(o);
  const t = named("commits.Add", record([["commit", ksuidType()], ["object", obj.type]]));
  return new Value(t, [commit, obj.body]);
}

/** `commits.Delete` of an object id. */
export function deleteActionValue(commit: KSUID, id: KSUID): Value {
  const t = named("commits.Delete", record([["commit", ksuidType()], ["id", ksuidType()]]));
  return new Value(t, [commit, id]);
}

/** `meta.Partition`: overlapping objects and the key range they cover. */
export function partitionValue(first: Value, last: Value, objects: DataObject[]): Value {
  const objs = objects.map(objectValue);
  // Objects whose keys differ in type make a union of object types; the
  // common case is one type.
  const types = [...new Set(objs.map((o) => o.type))];
  let elem: Type = types[0];
  let bodies = objs.map((o) => o.body);
  if (types.length > 1) {
    const u = zctx.lookupUnion(types);
    elem = u;
    bodies = objs.map((o) => new UnionBody(u.types.indexOf(o.type), o.body));
  }
  const t = named(
    "meta.Partition",
    record([["First", first.type], ["Last", last.type], ["Objects", zctx.lookupArray(elem)]]),
  );
  return new Value(t, [first.body, last.body, bodies]);
}

/**
 * `exec.PoolStats`: the objects' total size and, when the pool key is a
 * time, the span of its values (`dur` is int64 nanoseconds, named
 * `nano.Duration`, max - min + 1).
 */
export function poolStatsValue(objects: DataObject[]): Value {
  let size = 0;
  let lo: bigint | null = null, hi: bigint | null = null;
  for (const o of objects) {
    size += o.size;
    const { lo: a, hi: b, mixed } = o.span;
    if (mixed || a === null || b === null || underId(a.type) !== ID_TIME) continue;
    const x = BigInt(a.body as number | bigint), y = BigInt(b.body as number | bigint);
    if (lo === null || x < lo) lo = x;
    if (hi === null || y > hi) hi = y;
  }
  const span = lo === null || hi === null ? null : [time(lo), time(hi - lo + 1n)];
  // The reference marshals a missing span with its ts as an int64 (not time).
  const spanType = named(
    "nano.Span",
    record([["ts", span === null ? TypeInt64 : TypeTime], [
      "dur",
      named("nano.Duration", TypeInt64),
    ]]),
  );
  const t = named("exec.PoolStats", record([["size", TypeInt64], ["span", spanType]]));
  return new Value(t, [size, span]);
}
