// Turns one ZJSON line into a Value, with the reference reader's checks and
// error texts (formats.md §3.5). Value decoders are compiled once per type.
// Errors about the line's JSON, its shape and its values carry the
// `line N: ` prefix; errors from resolving the line's type do not (as in the
// reference).

import { invalid, messageOf } from "../../errors.ts";
import { normalizeSet } from "../../zed/normalize.ts";
import { parsePrimitive } from "../../zed/primitive.ts";
import { ID_STRING, ID_TYPE, Kind, type PrimitiveType, type Type } from "../../zed/types.ts";
import { isNfcQuick, wellFormed } from "../../zed/utf8.ts";
import { type Body, intBody, uint64Body, UnionBody, Value } from "../../zed/value.ts";
import { isJsonObject, jsonKindOf, parseGoJson } from "./gojson.ts";
import { quoteGoString as goQuote } from "../../zed/goquote.ts";
import { checkTypeObject, isPlainRef, TypeDecoder } from "./typeobj.ts";

type Decode = (v: unknown) => Body;

const templateType =
  'struct { Type interface {} "json:\\"type\\""; Value interface {} "json:\\"value\\"" }';

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;
const intRE = /^[+-]?\d+$/;

/** strconv.Atoi: the integer, or the error text. */
function goAtoi(s: string): number | bigint | string {
  if (!intRE.test(s)) return `strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`;
  if (s.length < 16) return Number(s) || 0;
  const v = BigInt(s);
  if (v < MIN_INT64 || v > MAX_INT64) {
    return `strconv.Atoi: parsing ${goQuote(s)}: value out of range`;
  }
  return intBody(v);
}

function withLine(line: number, e: unknown): Error {
  return invalid(`line ${line}: ${messageOf(e)}`);
}

export class ZjsonDecoder {
  readonly types = new TypeDecoder();
  private decoders = new Map<Type, Decode>();

  /**
   * Decodes one non-blank line, text[start:end] without its line ending;
   * `terminated` tells whether a newline ended it.
   */
  decodeLine(text: string, start: number, end: number, lineNo: number, terminated: boolean): Value {
    let typeObj: unknown;
    let value: unknown = null;
    try {
      const j = parseGoJson(text, start, end);
      let t: unknown = null;
      if (isJsonObject(j)) {
        // encoding/json matches struct keys case-insensitively; the last one wins.
        for (const k in j) {
          if (k === "type" || (k.length === 4 && k.toLowerCase() === "type")) t = j[k];
          else if (k === "value" || (k.length === 5 && k.toLowerCase() === "value")) value = j[k];
        }
      } else if (j !== null) {
        throw invalid(
          `json: cannot unmarshal ${jsonKindOf(j)} into Go value of type ${templateType}`,
        );
      }
      if (isPlainRef(t)) typeObj = t;
      else {
        typeObj = checkTypeObject(t);
        if (typeObj === undefined) {
          // The reference quotes the line with its newline.
          const raw = text.slice(start, end) + (terminated ? "\n" : "");
          throw invalid("ZJSON types object is not a type: " + raw);
        }
      }
    } catch (e) {
      throw withLine(lineNo, e);
    }
    const type = this.types.decode(typeObj);
    let body: Body;
    try {
      body = this.decoderFor(type)(value);
    } catch (e) {
      throw withLine(lineNo, e);
    }
    return new Value(type, body);
  }

  private decoderFor(t: Type): Decode {
    let d = this.decoders.get(t);
    if (d === undefined) {
      d = this.build(t);
      this.decoders.set(t, d);
    }
    return d;
  }

  private build(t: Type): Decode {
    switch (t.kind) {
      case Kind.Named:
        return this.decoderFor(t.type);
      case Kind.Error:
        return this.decoderFor(t.inner);
      case Kind.Primitive:
        return this.primitive(t);
      case Kind.Record: {
        const fields = t.fields.map((f) => this.decoderFor(f.type));
        const n = fields.length;
        return (v) => {
          if (!Array.isArray(v)) throw invalid("ZJSON record value must be a JSON array");
          const out = new Array<Body>(n);
          for (let k = 0; k < v.length; k++) {
            if (k >= n) throw invalid("record with extra field");
            const e = v[k];
            out[k] = e === null ? null : fields[k](e);
          }
          // The reference leaves missing trailing fields out; loch pads with nulls.
          for (let k = v.length; k < n; k++) out[k] = null;
          return out;
        };
      }
      case Kind.Array: {
        const elem = this.decoderFor(t.elem);
        return (v) => {
          if (v === null) return null;
          if (!Array.isArray(v)) throw invalid("bad JSON for ZJSON array value");
          const out = new Array<Body>(v.length);
          for (let i = 0; i < v.length; i++) out[i] = elem(v[i]);
          return out;
        };
      }
      case Kind.Set: {
        const elemType = t.elem;
        const elem = this.decoderFor(elemType);
        return (v) => {
          if (v === null) return null;
          if (!Array.isArray(v)) throw invalid("bad JSON for ZJSON set value");
          const out = new Array<Body>(v.length);
          for (let i = 0; i < v.length; i++) out[i] = elem(v[i]);
          return normalizeSet(elemType, out);
        };
      }
      case Kind.Map: {
        const key = this.decoderFor(t.key);
        const val = this.decoderFor(t.value);
        return (v) => {
          if (v === null) return null;
          // Sic: the reference names the wrong kind here.
          if (!Array.isArray(v)) throw invalid("bad JSON for ZJSON union value");
          const out: Body[] = [];
          for (const item of v) {
            if (!Array.isArray(item) || item.length !== 2) {
              throw invalid("ZJSON map value must be an array of two-element arrays");
            }
            out.push(key(item[0]), val(item[1]));
          }
          // Like the reference, map entries are kept in the order given.
          return out;
        };
      }
      case Kind.Union: {
        const members = t.types.map((m) => this.decoderFor(m));
        return (v) => {
          if (v === null) return null;
          if (!Array.isArray(v)) throw invalid("bad JSON for ZJSON union value");
          if (v.length !== 2) throw invalid("ZJSON union value not an array of two elements");
          const s = v[0];
          if (typeof s !== "string") throw invalid("bad tag for ZJSON union value");
          const tag = goAtoi(s);
          if (typeof tag === "string") throw invalid("bad tag for ZJSON union value: " + tag);
          if (typeof tag !== "number" || tag < 0 || tag >= members.length) {
            throw invalid("bad tag for ZJSON union value: invalid union tag");
          }
          return new UnionBody(tag, members[tag](v[1]));
        };
      }
      case Kind.Enum:
        return (v) => {
          if (typeof v !== "string") throw invalid("ZJSON enum index value is not a JSON string");
          const n = goAtoi(v);
          if (typeof n === "string") {
            throw invalid("ZJSON enum index value is not a string integer");
          }
          // The index is stored as uint64 without a range check.
          return n < 0 ? uint64Body(BigInt(n)) : n;
        };
    }
  }

  private primitive(t: PrimitiveType): Decode {
    const id = t.id;
    if (id === ID_TYPE) {
      return (v) => {
        if (v === null) return null;
        const o = isPlainRef(v) ? v : checkTypeObject(v);
        if (o === undefined) throw invalid("type value is not a valid ZJSON type");
        return this.types.decode(o);
      };
    }
    if (id === ID_STRING) {
      return (v) => {
        if (v === null) return null;
        if (typeof v !== "string") throw invalid("ZJSON primitive value is not a JSON string");
        // A lone surrogate came from a \u escape; Go decodes it as U+FFFD.
        return isNfcQuick(v) ? v : wellFormed(v).normalize("NFC");
      };
    }
    return (v) => {
      if (v === null) return null;
      if (typeof v !== "string") throw invalid("ZJSON primitive value is not a JSON string");
      return parsePrimitive(id, v);
    };
  }
}
