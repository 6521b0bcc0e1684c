// Random Zed types and values for the ZNG property tests.

import { zctx } from "../../lib/zed/context.ts";
import { normalizeMap, normalizeSet } from "../../lib/zed/normalize.ts";
import {
  Field,
  ID_BOOL,
  ID_BYTES,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_IP,
  ID_NET,
  ID_NULL,
  ID_STRING,
  ID_TYPE,
  isSigned,
  isUnsigned,
  Kind,
  primitiveOfId,
  type Type,
  typeUnder,
} from "../../lib/zed/types.ts";
import { type Body, intBody, UnionBody, Value } from "../../lib/zed/value.ts";

const PRIMITIVE_IDS = [0, 1, 2, 3, 6, 7, 8, 9, 12, 13, 15, 16, 23, 24, 25, 26, 27, 28, 29];
const IDENTS = ["a", "b", "c", "foo", "bar_1", "x9", "port", "_z", "héllo", "ts"];
const ODD_NAMES = ["a b", "1st", "", 'quote"d', "日本", "tab\there"];
const SYMBOLS = ["a", "b", "red", "green", "blue", "x_1"];
const STRINGS = ["", "a", "hello world", "ünïcödé", "日本語", "emoji 😀", "tab\tnl\n", '"q"'];
const INT_EDGES = [
  0,
  1,
  -1,
  127,
  128,
  -128,
  255,
  256,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  2n ** 53n,
  -(2n ** 53n),
  2n ** 62n,
  2n ** 63n - 1n,
  -(2n ** 63n),
  -(2n ** 63n) + 1n,
];
const UINT_EDGES = [
  0,
  1,
  255,
  256,
  65535,
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  2n ** 53n,
  2n ** 64n - 1n,
];
const FLOATS = [0, -0, 1.5, -2.25, 1e300, 5e-324, Infinity, -Infinity, NaN, 0.1, 123456789.125];

export interface GenOptions {
  /**
   * Only what survives a ZSON round trip in loch today: no named types,
   * unions or errors, string map keys, IPv4 addresses, no -0 (see the ZSON
   * notes in the ZNG report).
   */
  zsonSafe: boolean;
}

export class ValueGen {
  /** Name bindings used so far, so a name means one type in a value. */
  private names = new Map<string, Type>();
  constructor(private r: () => number, private opts: GenOptions) {}

  private int(n: number): number {
    return Math.floor(this.r() * n);
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }

  type(depth = 0): Type {
    let k = depth > 3 ? 0 : this.int(depth === 0 ? 10 : 14);
    if (this.opts.zsonSafe && (k === 9 || k === 12 || k === 13)) k = 5;
    switch (k) {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
        return primitiveOfId(this.pick(PRIMITIVE_IDS))!;
      case 5:
      case 10: {
        const n = this.int(5);
        const names = new Set<string>();
        const fields: Field[] = [];
        for (let i = 0; i < n; i++) {
          const name = this.fieldName();
          if (names.has(name)) continue;
          names.add(name);
          fields.push(new Field(name, this.type(depth + 1)));
        }
        return zctx.lookupRecord(fields);
      }
      case 6:
        return zctx.lookupArray(this.type(depth + 1));
      case 7:
        return zctx.lookupSet(this.type(depth + 1));
      case 8: {
        const key = this.opts.zsonSafe ? primitiveOfId(ID_STRING)! : this.type(depth + 1);
        return zctx.lookupMap(key, this.type(depth + 1));
      }
      case 9: {
        const members: Type[] = [];
        const n = 2 + this.int(3);
        for (let i = 0; i < n; i++) {
          const t = this.type(depth + 1);
          // Members must be distinct, and (for ZSON) not null or unions.
          if (members.includes(t)) continue;
          const u = typeUnder(t);
          if (u.kind === Kind.Union || (u.kind === Kind.Primitive && u.id === ID_NULL)) continue;
          members.push(t);
        }
        if (members.length < 2) return this.type(depth + 1);
        return zctx.lookupUnion(members);
      }
      case 11: {
        const n = 1 + this.int(4);
        const syms = new Set<string>();
        for (let i = 0; i < n; i++) syms.add(this.pick(SYMBOLS));
        return zctx.lookupEnum([...syms]);
      }
      case 12:
        return zctx.lookupError(this.type(depth + 1));
      default: {
        const inner = this.type(depth + 1);
        for (let tries = 0; tries < 20; tries++) {
          const name = this.r() < 0.8 ? this.pick(IDENTS) : this.pick(ODD_NAMES);
          const bound = this.names.get(name);
          if (bound !== undefined && bound !== inner) continue;
          this.names.set(name, inner);
          return zctx.lookupNamed(name, inner);
        }
        return inner;
      }
    }
  }

  private fieldName(): string {
    if (this.r() < 0.8) return this.pick(IDENTS);
    return this.pick(ODD_NAMES);
  }

  value(t: Type): Value {
    return new Value(t, this.body(t, 0));
  }

  body(t: Type, depth: number): Body {
    if (this.r() < 0.1) return null;
    switch (t.kind) {
      case Kind.Primitive:
        return this.primitive(t.id);
      case Kind.Named:
        return this.body(t.type, depth);
      case Kind.Error:
        return this.body(t.inner, depth);
      case Kind.Record:
        return t.fields.map((f) => this.body(f.type, depth + 1));
      case Kind.Array:
        return this.elems(t.elem, depth);
      case Kind.Set:
        return normalizeSet(t.elem, this.elems(t.elem, depth));
      case Kind.Map: {
        const kv: Body[] = [];
        const n = this.int(4);
        for (let i = 0; i < n; i++) {
          kv.push(this.body(t.key, depth + 1), this.body(t.value, depth + 1));
        }
        return normalizeMap(t.key, kv);
      }
      case Kind.Union: {
        const tag = this.int(t.types.length);
        return new UnionBody(tag, this.body(t.types[tag], depth + 1));
      }
      case Kind.Enum:
        return this.int(t.symbols.length);
    }
  }

  private elems(t: Type, depth: number): Body[] {
    const out: Body[] = [];
    const n = depth > 2 ? this.int(2) : this.int(5);
    for (let i = 0; i < n; i++) out.push(this.body(t, depth + 1));
    return out;
  }

  private float(f: number): number {
    return this.opts.zsonSafe && Object.is(f, -0) ? 0 : f;
  }

  private bytes(n: number): Uint8Array {
    return Uint8Array.from({ length: n }, () => this.int(256));
  }

  private primitive(id: number): Body {
    if (isUnsigned(id)) {
      if (this.r() < 0.5) return intBody(BigInt(this.pick(UINT_EDGES)));
      const bits = [8, 16, 32, 64][id];
      return intBody(BigInt.asUintN(bits, BigInt(this.int(2 ** 31)) * BigInt(this.int(2 ** 31))));
    }
    if (isSigned(id)) {
      if (this.r() < 0.5) return intBody(BigInt(this.pick(INT_EDGES)));
      return intBody(
        BigInt.asIntN(64, BigInt(this.int(2 ** 31) - 2 ** 30) * BigInt(this.int(2 ** 31))),
      );
    }
    switch (id) {
      case ID_FLOAT64:
        return this.float(
          this.r() < 0.5 ? this.pick(FLOATS) : (this.r() - 0.5) * 10 ** this.int(20),
        );
      case ID_FLOAT32:
        return this.float(
          Math.fround(this.r() < 0.5 ? this.pick(FLOATS) : (this.r() - 0.5) * 1000),
        );
      case ID_BOOL:
        return this.r() < 0.5;
      case ID_BYTES:
        return this.bytes(this.int(20));
      case ID_STRING: {
        if (this.r() < 0.7) return this.pick(STRINGS);
        let s = "";
        const n = this.int(this.r() < 0.1 ? 300 : 30);
        for (let i = 0; i < n; i++) s += String.fromCharCode(32 + this.int(95));
        return s;
      }
      case ID_IP:
        return this.bytes(this.opts.zsonSafe || this.r() < 0.5 ? 4 : 16);
      case ID_NET: {
        const v4 = this.opts.zsonSafe || this.r() < 0.5;
        const n = v4 ? 4 : 16;
        const bits = this.int(n * 8 + 1);
        const out = new Uint8Array(2 * n);
        for (let i = 0; i < n; i++) {
          const m = Math.max(0, Math.min(8, bits - 8 * i));
          out[n + i] = (0xff << (8 - m)) & 0xff;
          out[i] = this.int(256) & out[n + i];
        }
        return out;
      }
      case ID_TYPE:
        return this.type(2);
      case ID_NULL:
        return null;
    }
    throw new Error(`no generator for primitive ${id}`);
  }
}
