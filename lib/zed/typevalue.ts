// The context-independent encoding of a type (the body of a `type` value,
// formats.md §4.6). Named types inside one type value are written in full the
// first time (37) and by name (38) when the name is already bound to the same
// underlying type earlier in the same depth-first traversal.

import { ByteWriter } from "./bytes.ts";
import type { TypeContext } from "./context.ts";
import { invalid } from "../errors.ts";
import { Field, ID_COMPLEX, Kind, primitiveOfId, type Type } from "./types.ts";
import { textDecoder, textEncoder } from "./utf8.ts";

export const TV_RECORD = 30;
export const TV_ARRAY = 31;
export const TV_SET = 32;
export const TV_MAP = 33;
export const TV_UNION = 34;
export const TV_ENUM = 35;
export const TV_ERROR = 36;
export const TV_NAME_DEF = 37;
export const TV_NAME_REF = 38;

export function appendTypeValue(w: ByteWriter, t: Type): void {
  appendType(w, t, new Map());
}

export function encodeTypeValue(t: Type): Uint8Array {
  const w = new ByteWriter(64);
  appendTypeValue(w, t);
  return w.view().slice();
}

function appendName(w: ByteWriter, s: string): void {
  const b = textEncoder.encode(s);
  w.uvarint(b.length);
  w.bytes(b);
}

function appendType(w: ByteWriter, t: Type, names: Map<string, Type>): void {
  switch (t.kind) {
    case Kind.Primitive:
      w.byte(t.id);
      return;
    case Kind.Named:
      if (names.get(t.name) === t.type) {
        w.byte(TV_NAME_REF);
        appendName(w, t.name);
      } else {
        w.byte(TV_NAME_DEF);
        appendName(w, t.name);
        appendType(w, t.type, names);
        names.set(t.name, t.type);
      }
      return;
    case Kind.Record:
      w.byte(TV_RECORD);
      w.uvarint(t.fields.length);
      for (const f of t.fields) {
        appendName(w, f.name);
        appendType(w, f.type, names);
      }
      return;
    case Kind.Array:
      w.byte(TV_ARRAY);
      appendType(w, t.elem, names);
      return;
    case Kind.Set:
      w.byte(TV_SET);
      appendType(w, t.elem, names);
      return;
    case Kind.Map:
      w.byte(TV_MAP);
      appendType(w, t.key, names);
      appendType(w, t.value, names);
      return;
    case Kind.Union:
      w.byte(TV_UNION);
      w.uvarint(t.types.length);
      for (const m of t.types) appendType(w, m, names);
      return;
    case Kind.Enum:
      w.byte(TV_ENUM);
      w.uvarint(t.symbols.length);
      for (const s of t.symbols) appendName(w, s);
      return;
    case Kind.Error:
      w.byte(TV_ERROR);
      appendType(w, t.inner, names);
      return;
  }
}

/** Decodes a type value, interning its types in ctx. */
export class TypeValueDecoder {
  private pos = 0;
  private names = new Map<string, Type>();
  constructor(private ctx: TypeContext, private b: Uint8Array) {}

  static decode(ctx: TypeContext, b: Uint8Array): Type {
    const d = new TypeValueDecoder(ctx, b);
    const t = d.type();
    if (d.pos !== b.length) throw invalid("bad type value encoding");
    return t;
  }

  private uvarint(): number {
    let n = 0, shift = 1;
    for (;;) {
      if (this.pos >= this.b.length) throw invalid("truncated type value");
      const c = this.b[this.pos++];
      n += (c & 0x7f) * shift;
      if (c < 0x80) return n;
      shift *= 128;
    }
  }

  private name(): string {
    const n = this.uvarint();
    if (this.pos + n > this.b.length) throw invalid("truncated type value");
    const s = textDecoder.decode(this.b.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }

  type(): Type {
    if (this.pos >= this.b.length) throw invalid("truncated type value");
    const id = this.b[this.pos++];
    if (id < ID_COMPLEX) {
      const p = primitiveOfId(id);
      if (p === undefined) throw invalid(`primitive type ID ${id} not implemented`);
      return p;
    }
    const ctx = this.ctx;
    switch (id) {
      case TV_RECORD: {
        const n = this.uvarint();
        const fields: Field[] = [];
        for (let i = 0; i < n; i++) {
          const name = this.name();
          fields.push(new Field(name, this.type()));
        }
        return ctx.lookupRecord(fields);
      }
      case TV_ARRAY:
        return ctx.lookupArray(this.type());
      case TV_SET:
        return ctx.lookupSet(this.type());
      case TV_MAP: {
        const k = this.type();
        return ctx.lookupMap(k, this.type());
      }
      case TV_UNION: {
        const n = this.uvarint();
        const types: Type[] = [];
        for (let i = 0; i < n; i++) types.push(this.type());
        return ctx.lookupUnion(types);
      }
      case TV_ENUM: {
        const n = this.uvarint();
        const symbols: string[] = [];
        for (let i = 0; i < n; i++) symbols.push(this.name());
        return ctx.lookupEnum(symbols);
      }
      case TV_ERROR:
        return ctx.lookupError(this.type());
      case TV_NAME_DEF: {
        const name = this.name();
        const inner = this.type();
        this.names.set(name, inner);
        return ctx.lookupNamed(name, inner);
      }
      case TV_NAME_REF: {
        const name = this.name();
        const inner = this.names.get(name);
        if (inner === undefined) throw invalid(`no such type name: ${JSON.stringify(name)}`);
        return ctx.lookupNamed(name, inner);
      }
    }
    throw invalid(`unknown type value code: ${id}`);
  }
}
