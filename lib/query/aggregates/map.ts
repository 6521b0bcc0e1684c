// map: merges map values into one map; a later entry replaces an earlier one
// with the same key. Keys and values whose types differ make union types.
// Keys and values of union type are stored as their member values (named
// non-union types are kept), as the reference does.

import { checkAggregate } from "../runtime/limits.ts";
import { uniqueTypes, zctx } from "../../zed/context.ts";
import { normalizeMap } from "../../zed/normalize.ts";
import { Kind, type MapType, type Type, typeUnder, type UnionType } from "../../zed/types.ts";
import { type Body, UnionBody, Value } from "../../zed/value.ts";
import { NULL } from "../runtime/values.ts";
import { type Aggregator, registerAggregate } from "./registry.ts";
import { valueKey } from "./value-key.ts";
import { bodySize } from "../spill/size.ts";

class Entry {
  constructor(
    readonly keyType: Type,
    readonly key: Body,
    readonly valType: Type,
    readonly val: Body,
  ) {}
}

/** A map key or value as stored: a union is replaced by its member, recursively. */
function memberOf(t: Type, body: Body): [Type, Body] {
  let u = typeUnder(t);
  if (u.kind !== Kind.Union) return [t, body];
  while (u.kind === Kind.Union && body !== null) {
    const ub = body as UnionBody;
    t = u.types[ub.tag];
    body = ub.body;
    u = typeUnder(t);
  }
  return [u, body];
}

class MapAgg implements Aggregator {
  private entries = new Map<string, Entry>();
  private bytes = 0;

  private set(kt: Type, k: Body, vt: Type, v: Body): void {
    const key = valueKey(kt, k);
    if (!this.entries.has(key)) {
      this.bytes += 64 + key.length + bodySize(v);
      checkAggregate(this.entries.size + 1, this.bytes);
    }
    this.entries.set(key, new Entry(kt, k, vt, v));
  }

  save(out: Value[]): void {
    for (const e of this.entries.values()) {
      out.push(new Value(e.keyType, e.key), new Value(e.valType, e.val));
    }
  }

  /** Entries in saved order; a key already held keeps its place and takes the new value. */
  restore(state: readonly Value[]): void {
    for (let i = 0; i + 1 < state.length; i += 2) {
      this.set(state[i].type, state[i].body, state[i + 1].type, state[i + 1].body);
    }
  }

  size(): number {
    return this.bytes;
  }

  consume(v: Value): void {
    if (v.body === null) return;
    const mt = typeUnder(v.type);
    if (mt.kind !== Kind.Map) return;
    const kv = v.body as Body[];
    const { key: kt, value: vt } = mt as MapType;
    for (let i = 0; i < kv.length; i += 2) {
      const [ktype, kbody] = memberOf(kt, kv[i]);
      const [vtype, vbody] = memberOf(vt, kv[i + 1]);
      this.set(ktype, kbody, vtype, vbody);
    }
  }

  result(): Value {
    if (this.entries.size === 0) return NULL;
    const ktypes: Type[] = [], vtypes: Type[] = [];
    for (const e of this.entries.values()) {
      ktypes.push(e.keyType);
      vtypes.push(e.valType);
    }
    const ku = unionOf(ktypes), vu = unionOf(vtypes);
    const kv: Body[] = [];
    for (const e of this.entries.values()) {
      kv.push(wrap(ku, e.keyType, e.key), wrap(vu, e.valType, e.val));
    }
    const kt = ku ?? ktypes[0], vt = vu ?? vtypes[0];
    return new Value(zctx.lookupMap(kt, vt), normalizeMap(kt, kv));
  }
}

/** The union of the distinct types, or undefined when there is one type (types[0]). */
function unionOf(types: Type[]): UnionType | undefined {
  const u = uniqueTypes(types);
  return u.length === 1 ? undefined : zctx.lookupUnion(u);
}

function wrap(u: UnionType | undefined, t: Type, body: Body): Body {
  return u === undefined ? body : new UnionBody(u.tagOf(t), body);
}

registerAggregate("map", {
  min: 1,
  max: 1,
  make: () => new MapAgg(),
  mergeable: true,
  grows: true,
});
