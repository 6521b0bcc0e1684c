// The order of a pool's data (lake-api.md §7.4): values by their pool key in
// the pool's direction, missing keys as null and nulls last in both
// directions, ties broken by the values' encoded bytes (in the same
// direction) so the order is total and loads are deterministic.

import { compareBytes } from "../zed/bytes.ts";
import { compareValues } from "../zed/compare.ts";
import { Kind, type RecordType, type Type, TypeString } from "../zed/types.ts";
import { Value } from "../zed/value.ts";
import { compareStrings } from "../zed/utf8.ts";
import { BodyDecoder } from "../formats/zng/decoder.ts";
import { type Plan, planOf } from "../formats/zng/plan.ts";
import { compileFieldPath, type Expr, isMissing, NULL } from "../query/mod.ts";
import { type PoolConfig, sortKey } from "./pools.ts";

/**
 * Where a record type holds the key: the field index at each level of the
 * path and the key's (primitive) type, which keyOfEncoded() reads straight
 * from the body; MISSING where the type lacks the path; OTHER where the
 * body is decoded whole and keyOf() asked (a key inside a non-record, or
 * of a complex or named type).
 */
interface KeyPlan {
  index: number[];
  leaf: Type;
  /** How the key's body decodes. */
  decode: Plan;
}
const MISSING = "missing";
const OTHER = "other";
/** What fieldAt() gives for a null key, and for a null record on the key's path. */
const NULL_KEY = -1;
const NULL_RECORD = -2;

export class PoolKey {
  readonly path: string[];
  readonly desc: boolean;
  private readonly get: Expr;

  constructor(path: string[], order: "asc" | "desc") {
    this.path = path;
    this.desc = order === "desc";
    this.get = compileFieldPath(path);
  }

  static of(pool: PoolConfig): PoolKey {
    return new PoolKey(sortKey(pool), pool.layout.order);
  }

  /** The key of a value: null when it is missing. */
  keyOf(v: Value): Value {
    const k = this.get(v);
    return isMissing(k) ? NULL : k;
  }

  private plans = new Map<Type, KeyPlan | typeof MISSING | typeof OTHER>();
  private decoder: BodyDecoder | null = null;

  /**
   * The key of the value of type t whose body is buf[p, end): what keyOf
   * gives for it, mostly without decoding more than the key.
   */
  keyOfEncoded(t: Type, buf: Uint8Array, p: number, end: number): Value {
    const plan = this.planOf(t);
    if (plan === MISSING) return NULL;
    if (plan !== OTHER) {
      const at = this.fieldAt(plan, buf, p);
      if (at === NULL_KEY) return new Value(plan.leaf, null);
      if (at >= 0) {
        return new Value(plan.leaf, this.decoderOf(buf).decode(plan.decode, at, this.found));
      }
    }
    const v = this.decoderOf(buf).decode(planOf(t, false), p, end - p);
    return this.keyOf(new Value(t, v));
  }

  /** The length of the body of the key asciiKeyAt() last found. */
  get asciiKeyLength(): number {
    return this.found;
  }

  /**
   * Where the key of the value of type t whose body starts at buf[p] is,
   * when it is a string of ASCII characters: its body's offset (its length
   * in asciiKeyLength); else -1. (Such keys order as their bytes do.)
   */
  asciiKeyAt(t: Type, buf: Uint8Array, p: number): number {
    const plan = this.planOf(t);
    if (plan === MISSING || plan === OTHER || plan.leaf !== TypeString) return -1;
    const at = this.fieldAt(plan, buf, p);
    if (at < 0) return -1;
    const end = at + this.found;
    for (let i = at; i < end; i++) if (buf[i] >= 0x80) return -1;
    return at;
  }

  private planOf(t: Type): KeyPlan | typeof MISSING | typeof OTHER {
    let plan = this.plans.get(t);
    if (plan === undefined) this.plans.set(t, plan = this.planFor(t));
    return plan;
  }

  /** Set by fieldAt(): the length of the key's body. */
  private found = 0;

  /**
   * Where plan's key is in the record body at buf[p]: its body's offset
   * (its length in `found`); NULL_KEY when the key is null; NULL_RECORD when
   * a record on its path is null (keyOf says what that gives).
   */
  private fieldAt(plan: KeyPlan, buf: Uint8Array, p: number): number {
    const index = plan.index;
    let tag = 0;
    for (let d = 0; d < index.length; d++) {
      // Past the fields before this one: each a tag (0: null, else length + 1) and a body.
      for (let f = 0;; f++) {
        tag = 0;
        let shift = 1;
        for (;;) {
          const c = buf[p++];
          tag += (c & 0x7f) * shift;
          if (c < 0x80) break;
          shift *= 128;
        }
        if (f === index[d]) break;
        if (tag > 0) p += tag - 1;
      }
      if (tag === 0) return d === index.length - 1 ? NULL_KEY : NULL_RECORD;
    }
    this.found = tag - 1;
    return p;
  }

  /** The decoder, over buf. */
  private decoderOf(buf: Uint8Array): BodyDecoder {
    const d = this.decoder ??= new BodyDecoder();
    if (d.buf !== buf) d.setBuffer(buf);
    return d;
  }

  private planFor(t: Type): KeyPlan | typeof MISSING | typeof OTHER {
    const index: number[] = [];
    let cur: Type = t;
    for (const name of this.path) {
      if (cur.kind !== Kind.Record) return OTHER;
      const i = (cur as RecordType).fields.findIndex((f) => f.name === name);
      if (i < 0) return MISSING;
      index.push(i);
      cur = (cur as RecordType).fields[i].type;
    }
    if (index.length === 0 || cur.kind !== Kind.Primitive) return OTHER;
    return { index, leaf: cur, decode: planOf(cur, false) };
  }

  /** Compares keys in pool order, nulls last. */
  compare(a: Value, b: Value): number {
    if (a.body === null || b.body === null) {
      if (a.body === b.body) return 0;
      return a.body === null ? 1 : -1;
    }
    const x = a.body, y = b.body;
    // Keys of one 64-bit integer type (times, the usual key): their numeric
    // order; strings (times read from JSON): their code points' order.
    const c = typeof x === "bigint" && typeof y === "bigint" && a.type === b.type
      ? (x < y ? -1 : x > y ? 1 : 0)
      : a.type === TypeString && b.type === TypeString
      ? compareStrings(x as string, y as string)
      : compareValues(a.type, x, b.type, y);
    return this.desc ? -c : c;
  }

  /** Compares the encoded bodies of two values with equal keys, in pool order. */
  compareTies(a: Uint8Array, b: Uint8Array): number {
    const c = compareBytes(a, b);
    return this.desc ? -c : c;
  }
}
