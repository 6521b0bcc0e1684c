// ZNG typedefs (formats.md §4.3): the per-stream table from type ids to
// types that a reader builds from types frames, and the writer's encoder that
// emits typedefs for a value's type, children first.
//
// Ids follow the reference's semantics: a typedef interns its type (through
// the process context), and only a type new to the stream takes the next id,
// so a duplicate typedef does not shift later ids.

import { invalid } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { ByteWriter } from "../../zed/bytes.ts";
import { Field, ID_COMPLEX, Kind, primitiveOfId, type Type } from "../../zed/types.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import { encodeUtf8 } from "../../zed/utf8.ts";
import { malformed } from "./decoder.ts";
import { type Plan, planOf, projectedPlan } from "./plan.ts";

export const TYPEDEF_RECORD = 0;
export const TYPEDEF_ARRAY = 1;
export const TYPEDEF_SET = 2;
export const TYPEDEF_MAP = 3;
export const TYPEDEF_UNION = 4;
export const TYPEDEF_ENUM = 5;
export const TYPEDEF_ERROR = 6;
export const TYPEDEF_NAMED = 7;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lenientUtf8 = new TextDecoder();

/** The types of one ZNG stream, by stream type id. */
export class StreamTypes {
  /** Index = stream id; 0..29 hold the implemented primitives. */
  private types: (Type | undefined)[] = [];
  private plans: (Plan | undefined)[] = [];
  private ids = new Map<Type, number>();
  private buf: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private end = 0;

  constructor(
    private validate: boolean,
    private project?: (t: Type) => ReadonlySet<number> | undefined,
  ) {
    this.reset();
  }

  /** Forgets every typedef (at end of stream). */
  reset(): void {
    this.types = [];
    for (let id = 0; id < ID_COMPLEX; id++) this.types.push(primitiveOfId(id));
    this.plans = [];
    this.ids = new Map();
  }

  /** The type of a value's type id, or undefined when the stream has not defined it. */
  valueType(id: number): Type | undefined {
    return this.types[id];
  }

  /** The decoding plan for a value's type id (whose type exists). */
  valuePlan(id: number): Plan {
    let p = this.plans[id];
    if (p === undefined) {
      const t = this.types[id] as Type;
      const needed = this.project?.(t);
      p = needed === undefined ? planOf(t, this.validate) : projectedPlan(t, needed, this.validate);
      this.plans[id] = p;
    }
    return p;
  }

  /** The stream id of t if the stream has defined it. */
  idOf(t: Type): number | undefined {
    return this.ids.get(t);
  }

  /** Reads the typedefs in buf[start, end) (a types frame payload). */
  decode(buf: Uint8Array, start: number, end: number): void {
    this.buf = buf;
    this.pos = start;
    this.end = end;
    while (this.pos < this.end) this.enter(this.typedef());
  }

  private enter(t: Type): void {
    if (this.ids.has(t)) return;
    this.ids.set(t, this.types.length);
    this.types.push(t);
  }

  private typedef(): Type {
    const code = this.buf[this.pos++];
    switch (code) {
      case TYPEDEF_RECORD: {
        const n = this.uvarint();
        const fields: Field[] = [];
        for (let i = 0; i < n; i++) {
          const name = lenientUtf8.decode(this.counted());
          fields.push(new Field(name, this.ref()));
        }
        return zctx.lookupRecord(fields);
      }
      case TYPEDEF_ARRAY:
        return zctx.lookupArray(this.ref());
      case TYPEDEF_SET:
        return zctx.lookupSet(this.ref());
      case TYPEDEF_MAP: {
        const key = this.ref();
        return zctx.lookupMap(key, this.ref());
      }
      case TYPEDEF_UNION: {
        const n = this.uvarint();
        if (n === 0) throw invalid("type union: zero columns not allowed");
        const types: Type[] = [];
        for (let i = 0; i < n; i++) types.push(this.ref());
        return zctx.lookupUnion(types);
      }
      case TYPEDEF_ENUM: {
        const n = this.uvarint();
        const symbols: string[] = [];
        for (let i = 0; i < n; i++) symbols.push(lenientUtf8.decode(this.counted()));
        return zctx.lookupEnum(symbols);
      }
      case TYPEDEF_ERROR:
        return zctx.lookupError(this.ref());
      case TYPEDEF_NAMED: {
        const raw = this.counted();
        let name: string;
        try {
          name = strictUtf8.decode(raw);
        } catch {
          throw invalid(`bad type name ${quoteGoBytes(raw)}: invalid UTF-8`);
        }
        return zctx.lookupNamed(name, this.ref());
      }
    }
    throw invalid(`unknown zng typedef code: ${code}`);
  }

  private uvarint(): number {
    let n = 0, scale = 1;
    for (let k = 0; k < 10; k++) {
      if (this.pos >= this.end) throw malformed();
      const c = this.buf[this.pos++];
      n += (c & 0x7f) * scale;
      if (c < 0x80) return n;
      scale *= 128;
    }
    throw malformed();
  }

  private counted(): Uint8Array {
    const n = this.uvarint();
    if (n > this.end - this.pos) throw malformed();
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  /** A type referenced by id inside a typedef. */
  private ref(): Type {
    const id = this.uvarint();
    if (id < ID_COMPLEX) {
      const p = primitiveOfId(id);
      if (p === undefined) throw invalid(`primitive type ID ${id} not implemented`);
      return p;
    }
    const t = this.types[id];
    if (t === undefined) {
      throw invalid(`type id (${id}) not in type context (size ${this.types.length})`);
    }
    return t;
  }
}

/** The writer's side: stream ids for types, with their typedefs queued in `out`. */
export class TypeEncoder {
  readonly out = new ByteWriter(1024);
  private ids = new Map<Type, number>();
  private next = ID_COMPLEX;

  /** Forgets the stream's types (after end of stream). */
  reset(): void {
    this.ids = new Map();
    this.next = ID_COMPLEX;
    this.out.reset();
  }

  /** The stream id of t, emitting its typedefs (children first) if it is new. */
  idOf(t: Type): number {
    if (t.kind === Kind.Primitive) return t.id;
    const id = this.ids.get(t);
    return id !== undefined ? id : this.define(t);
  }

  private define(t: Exclude<Type, { kind: Kind.Primitive }>): number {
    const w = this.out;
    switch (t.kind) {
      case Kind.Record: {
        const ids = t.fields.map((f) => this.idOf(f.type));
        w.byte(TYPEDEF_RECORD);
        w.uvarint(t.fields.length);
        for (let i = 0; i < ids.length; i++) {
          writeCounted(w, t.fields[i].name);
          w.uvarint(ids[i]);
        }
        break;
      }
      case Kind.Array:
      case Kind.Set: {
        const elem = this.idOf(t.elem);
        w.byte(t.kind === Kind.Array ? TYPEDEF_ARRAY : TYPEDEF_SET);
        w.uvarint(elem);
        break;
      }
      case Kind.Map: {
        const key = this.idOf(t.key);
        const val = this.idOf(t.value);
        w.byte(TYPEDEF_MAP);
        w.uvarint(key);
        w.uvarint(val);
        break;
      }
      case Kind.Union: {
        const ids = t.types.map((m) => this.idOf(m));
        w.byte(TYPEDEF_UNION);
        w.uvarint(ids.length);
        for (const id of ids) w.uvarint(id);
        break;
      }
      case Kind.Enum:
        w.byte(TYPEDEF_ENUM);
        w.uvarint(t.symbols.length);
        for (const s of t.symbols) writeCounted(w, s);
        break;
      case Kind.Error: {
        const inner = this.idOf(t.inner);
        w.byte(TYPEDEF_ERROR);
        w.uvarint(inner);
        break;
      }
      case Kind.Named: {
        const inner = this.idOf(t.type);
        w.byte(TYPEDEF_NAMED);
        writeCounted(w, t.name);
        w.uvarint(inner);
        break;
      }
    }
    const id = this.next++;
    this.ids.set(t, id);
    return id;
  }
}

function writeCounted(w: ByteWriter, s: string): void {
  const b = encodeUtf8(s);
  w.uvarint(b.length);
  w.bytes(b);
}

/** Go's %q of a byte string: runes quoted as strconv.Quote does, bad bytes as \xNN. */
function quoteGoBytes(b: Uint8Array): string {
  let out = "";
  for (let i = 0; i < b.length;) {
    const n = utf8SequenceLength(b, i);
    if (n === 0) {
      out += "\\x" + b[i].toString(16).padStart(2, "0");
      i++;
    } else {
      out += quoteGoString(lenientUtf8.decode(b.subarray(i, i + n))).slice(1, -1);
      i += n;
    }
  }
  return '"' + out + '"';
}

/** The length of the valid UTF-8 sequence at b[i], or 0 if there is none. */
function utf8SequenceLength(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  let n: number, lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c === 0xe0) lo = 0xa0;
    if (c === 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c === 0xf0) lo = 0x90;
    if (c === 0xf4) hi = 0x8f;
  } else return 0;
  if (i + n > b.length) return 0;
  if (b[i + 1] < lo || b[i + 1] > hi) return 0;
  for (let k = 2; k < n; k++) if (b[i + k] < 0x80 || b[i + k] > 0xbf) return 0;
  return n;
}
