// ZJSON output (formats.md §3.1–3.4), byte-exact to the reference writer.
//
// The reference copies each type into a private type context (ids from 30,
// children created before their parent) and writes a type's full definition
// the first time it appears anywhere in the output, including inside type
// values, and `{"kind":"ref","id":N}` after that. Both happen in the same
// left-to-right post-order walk, so one map does both jobs here: a type is in
// `known` once it has an id, and then its text is its ref.

import { formatPrimitive } from "../../zed/primitive.ts";
import { ID_COMPLEX, ID_NULL, ID_STRING, ID_TYPE, Kind, type Type } from "../../zed/types.ts";
import type { Batch, Body, UnionBody } from "../../zed/value.ts";
import type { Sink, ValueWriter } from "../io.ts";
import { ByteBuffer } from "../json/bytebuf.ts";
import { goJsonString, goMarshal } from "./gojson.ts";

/** Writes a body of one type as its ZJSON value. */
type Encode = (body: Body, out: ByteBuffer) => void;

/** Output is handed to the sink once this much has accumulated. */
const FLUSH_AT = 1 << 16;

export class ZjsonWriter implements ValueWriter {
  private out = new ByteBuffer(1 << 12);
  private nextId = ID_COMPLEX;
  /** Text of every type already written: its ref, or a primitive's full object. */
  private known = new Map<Type, string>();
  /** known for each channel of a query's output (useChannel), channel 0's first. */
  private knownByChannel: Map<Type, string>[] = [this.known];
  /** Value encoders by type. */
  private encoders = new Map<Type, Encode>();

  /**
   * asciiOnly writes every non-ASCII character as a \u escape (the same JSON
   * values, but no multi-byte UTF-8 that a client decoding chunk by chunk,
   * as zed-js does, can split and garble).
   */
  constructor(private sink: Sink, private asciiOnly = false) {}

  /** Appends JSON text (escaped to ASCII when asciiOnly). */
  private text(s: string): void {
    this.out.utf8(this.asciiOnly ? escapeNonAscii(s) : s);
  }

  /** Appends a string as Go's encoding/json writes it. */
  private string(s: string): void {
    if (!this.out.plainQuoted(s, true)) this.text(goJsonString(s));
  }

  async write(batch: Batch): Promise<void> {
    const out = this.out;
    let mark = out.pos;
    try {
      for (let i = 0; i < batch.length; i++) {
        mark = out.pos;
        const v = batch[i];
        // The type is written before the value, so a type value inside the
        // value refers to definitions made by its own line's type.
        out.ascii('{"type":');
        this.text(this.typeText(v.type));
        out.ascii(',"value":');
        (this.encoders.get(v.type) ?? this.encoder(v.type))(v.body, out);
        out.ascii("}\n");
        if (out.pos >= FLUSH_AT) await this.flush();
      }
    } catch (e) {
      // The values before a bad one are still sent, then the error goes on.
      out.pos = mark;
      await this.flush();
      throw e;
    }
  }

  /**
   * Writes a control message of the lake query API (formats.md §3.6), e.g.
   * `writeControl("QueryChannelSet", {channel_id: 0})`. Object keys are written
   * in their insertion order.
   */
  async writeControl(type: string, value: unknown): Promise<void> {
    this.text('{"type":' + goJsonString(type) + ',"value":' + goMarshal(value) + "}\n");
    if (this.out.pos >= FLUSH_AT) await this.flush();
  }

  /**
   * Writes what follows as values of a channel of a query's output. Ids stay
   * unique across channels, but a type is defined again in each channel that
   * uses it, since zed-js decodes every channel with a decoder of its own.
   */
  useChannel(channel: number): void {
    this.known = this.knownByChannel[channel] ??= new Map();
  }

  /** Sends everything written so far to the sink. */
  async flush(): Promise<void> {
    if (this.out.pos > 0) await this.sink(this.out.take());
  }

  async end(): Promise<void> {
    await this.flush();
  }

  /** The type object for t: its full definition the first time, its ref after. */
  typeText(t: Type): string {
    return this.known.get(t) ?? this.define(t);
  }

  private define(t: Type): string {
    let body: string;
    switch (t.kind) {
      case Kind.Primitive: {
        const s = '{"kind":"primitive","name":"' + t.name + '"}';
        this.known.set(t, s);
        return s;
      }
      case Kind.Record: {
        const fields = t.fields.map((f) =>
          '{"name":' + goJsonString(f.name) + ',"type":' + this.typeText(f.type) + "}"
        );
        body = '"record","id":' + this.assign(t) + ',"fields":' +
          (fields.length === 0 ? "null" : "[" + fields.join(",") + "]");
        break;
      }
      case Kind.Array:
      case Kind.Set: {
        const elem = this.typeText(t.elem);
        const kind = t.kind === Kind.Array ? '"array"' : '"set"';
        body = kind + ',"id":' + this.assign(t) + ',"type":' + elem;
        break;
      }
      case Kind.Map: {
        const key = this.typeText(t.key);
        const val = this.typeText(t.value);
        body = '"map","id":' + this.assign(t) + ',"key_type":' + key + ',"val_type":' + val;
        break;
      }
      case Kind.Union: {
        const types = t.types.map((m) => this.typeText(m));
        body = '"union","id":' + this.assign(t) + ',"types":' +
          (types.length === 0 ? "null" : "[" + types.join(",") + "]");
        break;
      }
      case Kind.Enum:
        body = '"enum","id":' + this.assign(t) + ',"symbols":[' +
          t.symbols.map(goJsonString).join(",") + "]";
        break;
      case Kind.Error: {
        const inner = this.typeText(t.inner);
        body = '"error","id":' + this.assign(t) + ',"type":' + inner;
        break;
      }
      case Kind.Named: {
        const inner = this.typeText(t.type);
        body = '"named","id":' + this.assign(t) + ',"name":' + goJsonString(t.name) + ',"type":' +
          inner;
        break;
      }
    }
    return '{"kind":' + body + "}";
  }

  /** Gives t the next id (after its children got theirs) and records its ref. */
  private assign(t: Type): number {
    const id = this.nextId++;
    this.known.set(t, '{"kind":"ref","id":' + id + "}");
    return id;
  }

  private encoder(t: Type): Encode {
    let e = this.encoders.get(t);
    if (e === undefined) {
      e = this.build(t);
      this.encoders.set(t, e);
    }
    return e;
  }

  private build(t: Type): Encode {
    switch (t.kind) {
      case Kind.Named:
        return this.encoder(t.type);
      case Kind.Error:
        return this.encoder(t.inner);
      case Kind.Primitive: {
        const id = t.id;
        if (id === ID_STRING) {
          return (b, out) => b === null ? out.ascii("null") : this.string(b as string);
        }
        if (id === ID_TYPE) {
          return (b, out) => b === null ? out.ascii("null") : this.text(this.typeText(b as Type));
        }
        if (id === ID_NULL) return (_b, out) => out.ascii("null");
        // Other primitive texts never contain characters JSON escapes.
        return (b, out) => {
          if (b === null) out.ascii("null");
          else {
            out.byte(0x22);
            out.utf8(formatPrimitive(id, b));
            out.byte(0x22);
          }
        };
      }
      case Kind.Record: {
        const fields = t.fields.map((f) => this.encoder(f.type));
        return (b, out) => {
          if (b === null) return out.ascii("null");
          const a = b as Body[];
          out.byte(0x5b);
          for (let i = 0; i < a.length; i++) {
            if (i > 0) out.byte(0x2c);
            fields[i](a[i], out);
          }
          out.byte(0x5d);
        };
      }
      case Kind.Array:
      case Kind.Set: {
        const elem = this.encoder(t.elem);
        return (b, out) => {
          if (b === null) return out.ascii("null");
          const a = b as Body[];
          out.byte(0x5b);
          for (let i = 0; i < a.length; i++) {
            if (i > 0) out.byte(0x2c);
            elem(a[i], out);
          }
          out.byte(0x5d);
        };
      }
      case Kind.Map: {
        const key = this.encoder(t.key);
        const val = this.encoder(t.value);
        return (b, out) => {
          // An empty map is written as null (a nil slice in the reference).
          if (b === null || (b as Body[]).length === 0) return out.ascii("null");
          const a = b as Body[];
          out.byte(0x5b);
          for (let i = 0; i < a.length; i += 2) {
            if (i > 0) out.byte(0x2c);
            out.byte(0x5b);
            key(a[i], out);
            out.byte(0x2c);
            val(a[i + 1], out);
            out.byte(0x5d);
          }
          out.byte(0x5d);
        };
      }
      case Kind.Union: {
        const members = t.types.map((m) => this.encoder(m));
        // The reference writes the tag of the member type, the last one if listed twice.
        const tags = t.types.map((m) => '["' + t.types.lastIndexOf(m) + '",');
        return (b, out) => {
          if (b === null) return out.ascii("null");
          const u = b as UnionBody;
          out.ascii(tags[u.tag]);
          members[u.tag](u.body, out);
          out.byte(0x5d);
        };
      }
      case Kind.Enum:
        return (b, out) => {
          if (b === null) return out.ascii("null");
          out.byte(0x22);
          out.ascii(String(b));
          out.byte(0x22);
        };
    }
  }
}

const NON_ASCII = /[\u0080-\uffff]/g;

function escapeNonAscii(s: string): string {
  return s.replace(NON_ASCII, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}
