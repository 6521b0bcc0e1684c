// Zeek types and Zed types (formats.md §9): the Zed type and field parser for
// each `#types` name, and the Zeek name of a Zed type for the writer.

import { invalid } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { parseGoFloat } from "../../zed/float.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import { parseNet } from "../../zed/ip.ts";
import { normalizeSet } from "../../zed/normalize.ts";
import { parseInt64, parseUint64 } from "../../zed/primitive.ts";
import { formatType } from "../../zed/typetext.ts";
import {
  ID_BOOL,
  ID_DURATION,
  ID_FLOAT32,
  ID_FLOAT64,
  ID_INT16,
  ID_INT32,
  ID_INT64,
  ID_INT8,
  ID_IP,
  ID_NET,
  ID_STRING,
  ID_TIME,
  ID_UINT16,
  ID_UINT32,
  ID_UINT64,
  ID_UINT8,
  Kind,
  type Type,
  TypeBool,
  TypeDuration,
  TypeFloat64,
  TypeInt64,
  TypeIP,
  TypeNet,
  TypeString,
  TypeTime,
  TypeUint16,
  TypeUint64,
} from "../../zed/types.ts";
import type { Body } from "../../zed/value.ts";
import { parseAddr } from "./addr.ts";
import { zeekStringField } from "./escape.ts";
import { parseZeekTime } from "./time.ts";

/** Parses one non-unset field (not `-`) of a column. */
export type FieldParser = (s: string) => Body;

/** A `#types` entry: its Zed type and how its fields parse. */
export interface ZeekColumnType {
  readonly type: Type;
  readonly parse: FieldParser;
}

function numError(fn: string, s: string, range: boolean): Error {
  const why = range ? "value out of range" : "invalid syntax";
  return invalid(`strconv.${fn}: parsing ${quoteGoString(s)}: ${why}`);
}

const signedRE = /^[+-]?\d+$/;
const unsignedRE = /^\d+$/;

function parseIntField(s: string): Body {
  const v = parseInt64(s);
  if (v === undefined) throw numError("ParseInt", s, signedRE.test(s));
  return v;
}

function parseCount(s: string): Body {
  const v = parseUint64(s);
  if (v === undefined) throw numError("ParseUint", s, unsignedRE.test(s));
  return v;
}

function parsePort(s: string): Body {
  const v = parseUint64(s);
  if (v === undefined || v > 65535) throw numError("ParseUint", s, unsignedRE.test(s));
  return v;
}

const floatSyntaxRE = /^[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?$/;

function parseDouble(s: string): Body {
  const v = parseGoFloat(s);
  if (v === undefined) throw numError("ParseFloat", s, floatSyntaxRE.test(s));
  return v;
}

function parseBool(s: string): Body {
  switch (s) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
  }
  throw numError("ParseBool", s, false);
}

function parseSubnet(s: string): Body {
  const n = parseNet(s);
  if (n === undefined) throw invalid(`invalid CIDR address: ${s}`);
  return n;
}

function primitive(name: string): ZeekColumnType | undefined {
  switch (name) {
    case "addr":
      return { type: TypeIP, parse: parseAddr };
    case "bool":
      return { type: TypeBool, parse: parseBool };
    case "count":
      return { type: TypeUint64, parse: parseCount };
    case "double":
      return { type: TypeFloat64, parse: parseDouble };
    case "enum":
      return { type: zctx.lookupNamed("zenum", TypeString), parse: zeekStringField };
    case "int":
      return { type: TypeInt64, parse: parseIntField };
    case "interval":
      return { type: TypeDuration, parse: parseZeekTime };
    case "port":
      return { type: zctx.lookupNamed("port", TypeUint16), parse: parsePort };
    case "string":
      return { type: TypeString, parse: zeekStringField };
    case "subnet":
      return { type: TypeNet, parse: parseSubnet };
    case "time":
      return { type: TypeTime, parse: parseZeekTime };
  }
  return undefined;
}

/** A comma-separated set or vector field; `(empty)` has no elements, `-` elements are null. */
function containerParser(elem: ZeekColumnType, isSet: boolean): FieldParser {
  const parse = elem.parse;
  return (s) => {
    const out: Body[] = [];
    if (s === "(empty)") return out;
    let start = 0;
    for (;;) {
      const comma = s.indexOf(",", start);
      const item = comma < 0 ? s.slice(start) : s.slice(start, comma);
      out.push(item === "-" ? null : parse(item));
      if (comma < 0) break;
      start = comma + 1;
    }
    return isSet ? normalizeSet(elem.type, out) : out;
  };
}

/** The column type of a `#types` entry (`set[T]` and `vector[T]` of a primitive T). */
export function parseZeekType(text: string): ZeekColumnType {
  const name = text.trim();
  const open = name.indexOf("[");
  if (open >= 0 && name.endsWith("]")) {
    const kind = name.slice(0, open);
    const elem = primitive(name.slice(open + 1, name.length - 1).trim());
    if (elem !== undefined) {
      if (kind === "set") {
        return { type: zctx.lookupSet(elem.type), parse: containerParser(elem, true) };
      }
      if (kind === "vector") {
        return { type: zctx.lookupArray(elem.type), parse: containerParser(elem, false) };
      }
    }
  }
  const t = primitive(name);
  if (t === undefined) throw invalid(`unknown type: ${name}`);
  return t;
}

/** The Zeek name of a Zed column type; types Zeek cannot hold are an error. */
export function zeekTypeName(t: Type): string {
  switch (t.kind) {
    case Kind.Array:
      return `vector[${zeekTypeName(t.elem)}]`;
    case Kind.Set:
      return `set[${zeekTypeName(t.elem)}]`;
    case Kind.Named:
      if (t.name === "zenum") return "enum";
      if (t.name === "port") return "port";
      return zeekTypeName(t.type);
    case Kind.Primitive:
      switch (t.id) {
        case ID_UINT8:
        case ID_INT8:
        case ID_INT16:
        case ID_INT32:
        case ID_INT64:
        case ID_UINT16:
        case ID_UINT32:
          return "int";
        case ID_UINT64:
          return "count";
        case ID_FLOAT32:
        case ID_FLOAT64:
          return "double";
        case ID_IP:
          return "addr";
        case ID_NET:
          return "subnet";
        case ID_DURATION:
          return "interval";
        case ID_BOOL:
        case ID_STRING:
        case ID_TIME:
          return t.name;
      }
  }
  throw invalid(`type ${formatType(t)}: type cannot be represented in zeek format`);
}
