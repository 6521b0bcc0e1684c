// Record-structure functions: fields, flatten, unflatten, nest_dotted
// (language.md §6).

import { uniqueTypes, zctx } from "../../zed/context.ts";
import {
  ID_STRING,
  Kind,
  recordOf,
  type RecordType,
  type Type,
  TypeString,
  TypeType,
  typeUnder,
} from "../../zed/types.ts";
import { formatType } from "../../zed/typetext.ts";
import { type Body, UnionBody, Value } from "../../zed/value.ts";
import { messageOf } from "../../errors.ts";
import type { Expr } from "../runtime/expr.ts";
import { RecordBuilder } from "../runtime/record-builder.ts";
import { errorOn, errorValue, MISSING } from "../runtime/values.ts";
import { define, unary } from "./define.ts";
import { typeId } from "../expr/coerce.ts";

const PATH = zctx.lookupArray(TypeString);
const PATHS = zctx.lookupArray(PATH);

function leafPaths(rt: RecordType, prefix: string[], out: Body[]): void {
  for (const f of rt.fields) {
    const u = typeUnder(f.type);
    if (u.kind === Kind.Record) leafPaths(u, [...prefix, f.name], out);
    else out.push([...prefix, f.name]);
  }
}

unary("fields", (a) => {
  let rt = recordOf(a.type);
  if (rt === undefined && a.type === TypeType && a.body !== null) rt = recordOf(a.body as Type);
  if (rt === undefined) return MISSING;
  const out: Body[] = [];
  leafPaths(rt, [], out);
  return new Value(PATHS, out);
});

// flatten: [{key:[string],value:T}, ...] for the leaves of a record.
const entryTypes = new WeakMap<Type, RecordType>();

function entryType(t: Type): RecordType {
  let e = entryTypes.get(t);
  if (e === undefined) {
    e = zctx.lookupRecordOf(["key", "value"], [PATH, t]);
    entryTypes.set(t, e);
  }
  return e;
}

function flattenInto(rt: RecordType, body: Body[] | null, prefix: string[], out: Value[]): void {
  for (let i = 0; i < rt.fields.length; i++) {
    const f = rt.fields[i];
    const key = [...prefix, f.name];
    const v = body === null ? null : body[i];
    const sub = recordOf(f.type);
    if (sub !== undefined && v !== null) flattenInto(sub, v as Body[], key, out);
    else out.push(new Value(entryType(f.type), [key, v]));
  }
}

unary("flatten", (a) => {
  const rt = recordOf(a.type);
  if (rt === undefined) return a;
  const entries: Value[] = [];
  flattenInto(rt, a.body as Body[] | null, [], entries);
  const types = uniqueTypes(entries.map((e) => e.type));
  if (types.length === 1) return new Value(zctx.lookupArray(types[0]), entries.map((e) => e.body));
  const union = zctx.lookupUnion(types);
  const bodies = entries.map((e) => new UnionBody(union.tagOf(e.type), e.body));
  return new Value(zctx.lookupArray(union), bodies);
});

// unflatten: the inverse of flatten. Keys build a tree of fields in order;
// repeating the latest key (or a prefix of it) replaces what it held.
interface FieldTree {
  names: string[];
  /** A sub-record per field; null for a leaf. */
  subs: (FieldTree | null)[];
}

function countLeaves(t: FieldTree | null): number {
  if (t === null) return 1;
  let n = 0;
  for (const s of t.subs) n += countLeaves(s);
  return n;
}

/** Adds path[from:] under t; returns how many earlier leaves it replaced. */
function addPath(t: FieldTree, path: string[], from: number): number {
  if (from === path.length) return 0;
  const more = path.length - from > 1;
  const at = t.names.length - 1;
  let removed = 0;
  if (at < 0 || t.names[at] !== path[from]) {
    t.names.push(path[from]);
    t.subs.push(more ? { names: [], subs: [] } : null);
  } else if (!more || t.subs[at] === null) {
    removed = countLeaves(t.subs[at]);
    t.subs[at] = more ? { names: [], subs: [] } : null;
  }
  const last = t.subs[t.subs.length - 1];
  return removed + (last === null ? 0 : addPath(last, path, from + 1));
}

function buildTree(t: FieldTree, leaves: Value[], next: { i: number }): Value {
  const types: Type[] = [];
  const bodies: Body[] = [];
  for (const sub of t.subs) {
    const v = sub === null ? leaves[next.i++] : buildTree(sub, leaves, next);
    types.push(v.type);
    bodies.push(v.body);
  }
  return new Value(zctx.lookupRecordOf(t.names, types), bodies);
}

/** The key path and value of one element, undefined to skip it, or an error message. */
function parseEntry(t: Type, body: Body): [string[], Value] | undefined | string {
  const u = typeUnder(t);
  if (u.kind === Kind.Union) {
    if (body === null) return undefined;
    const ub = body as UnionBody;
    return parseEntry(u.types[ub.tag], ub.body);
  }
  const rt = recordOf(t);
  if (rt === undefined || rt.fields.length !== 2 || body === null) return undefined;
  const k = rt.indexOf("key"), vi = rt.indexOf("value");
  if (k < 0 || vi < 0) return undefined;
  const fields = body as Body[];
  const keyType = rt.fields[k].type;
  const value = new Value(rt.fields[vi].type, fields[vi]);
  const kb = fields[k];
  if (typeId(keyType) === ID_STRING) return [[(kb ?? "") as string], value];
  const ku = typeUnder(keyType);
  if (ku.kind === Kind.Array && typeId(ku.elem) === ID_STRING) {
    const path = ((kb ?? []) as Body[]).map((s) => (s ?? "") as string);
    return path.length === 0 ? undefined : [path, value];
  }
  return `invalid key type ${formatType(keyType)}: expected either string or [string]`;
}

unary("unflatten", (a) => {
  const u = typeUnder(a.type);
  if (u.kind !== Kind.Array) return a;
  const root: FieldTree = { names: [], subs: [] };
  const leaves: Value[] = [];
  for (const elem of (a.body ?? []) as Body[]) {
    const entry = parseEntry(u.elem, elem);
    if (entry === undefined) continue;
    if (typeof entry === "string") return errorOn(entry, new Value(u.elem, elem));
    const removed = addPath(root, entry[0], 0);
    if (removed > 0) leaves.length -= removed;
    leaves.push(entry[1]);
  }
  try {
    return buildTree(root, leaves, { i: 0 });
  } catch (e) {
    return errorOn(messageOf(e), a);
  }
});

// nest_dotted: as in the reference, the record nested is always `this`
// (an argument, if given, is ignored).
const builders = new WeakMap<Type, RecordBuilder | string | null>();

function builderFor(rt: RecordType): RecordBuilder | string | null {
  let b = builders.get(rt);
  if (b !== undefined) return b;
  const paths = rt.fields.map((f) => f.name.split("."));
  if (!paths.some((p) => p.length > 1)) b = null;
  else {
    try {
      b = new RecordBuilder(paths);
    } catch (e) {
      b = `unflatten: ${messageOf(e)}`;
    }
  }
  builders.set(rt, b);
  return b;
}

function nestDotted(v: Value): Value {
  const rt = recordOf(v.type);
  if (rt === undefined) return v;
  const b = builderFor(rt);
  if (b === null) return v;
  if (typeof b === "string") return errorValue(b);
  const body = v.body as Body[] | null;
  const values = rt.fields.map((f, i) => new Value(f.type, body === null ? null : body[i]));
  return b.build(values) ?? v;
}

define("nest_dotted", {
  min: 0,
  max: 1,
  compile(): Expr {
    return nestDotted;
  },
});
