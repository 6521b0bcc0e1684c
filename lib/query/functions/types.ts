// Functions about types, errors and presence: typeof, typeunder, nameof,
// typename, kind, is, under, error, is_error, has_error, quiet, has, missing,
// coalesce, len (language.md §6).

import { parseZsonType } from "../../formats/zson/reader.ts";
import { zctx } from "../../zed/context.ts";
import {
  ID_BYTES,
  ID_IP,
  ID_NET,
  ID_NULL,
  ID_STRING,
  ID_TYPE,
  Kind,
  type Type,
  TypeInt64,
  TypeString,
  TypeType,
  typeUnder,
} from "../../zed/types.ts";
import { formatType } from "../../zed/typetext.ts";
import { utf8Length } from "../../zed/utf8.ts";
import { type Body, type UnionBody, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import {
  boolValue,
  errorOn,
  errorValue,
  FALSE,
  isError,
  isMissing,
  isQuiet,
  MISSING,
  NULL,
  QUIET,
  TRUE,
} from "../runtime/values.ts";
import { define, thisExpr, unary, variadic } from "./define.ts";

/**
 * Type-name bindings that fall back to the names most recently bound in the
 * type context, as the reference's analyzer does when parsing types and
 * values at run time.
 */
export class ContextBindings extends Map<string, Type> {
  override get(name: string): Type | undefined {
    return super.get(name) ?? zctx.latestNamed(name);
  }
}

function typeValue(t: Type): Value {
  return new Value(TypeType, t);
}

unary("typeof", (a) => typeValue(a.type));
unary("typeunder", (a) => typeValue(typeUnder(a.type)));
unary("nameof", (a) => a.type.kind === Kind.Named ? new Value(TypeString, a.type.name) : MISSING);

variadic("typename", 1, 2, (args) => {
  const name = args[0];
  if (typeUnder(name.type) !== TypeString) {
    return errorValue("typename: first argument not a string");
  }
  if (args.length === 1) {
    const t = zctx.latestNamed((name.body ?? "") as string);
    return t === undefined ? MISSING : typeValue(t);
  }
  const t = args[1];
  if (typeUnder(t.type) !== TypeType) {
    return errorValue("typename: second argument not a type value");
  }
  return t.body === null ? MISSING : typeValue(t.body as Type);
});

const kindNames = ["primitive", "record", "array", "set", "map", "union", "enum", "error"];

unary("kind", (a) => {
  let t = a.type;
  if (typeUnder(t) === TypeType && a.body !== null) t = a.body as Type;
  return new Value(TypeString, kindNames[typeUnder(t).kind]);
});

/** The type an `is` argument names: a type value, or a string in ZSON type syntax. */
function typeArgument(v: Value): Type | undefined {
  const u = typeUnder(v.type);
  if (u === TypeString) {
    try {
      return parseZsonType((v.body ?? "") as string, new ContextBindings());
    } catch {
      return undefined;
    }
  }
  return u === TypeType && v.body !== null ? v.body as Type : undefined;
}

// is([val,] t): the value defaults to `this`.
define("is", {
  min: 1,
  max: 2,
  compile(args: Expr[]): Expr {
    const [subject, type] = args.length === 1 ? [thisExpr, args[0]] : args;
    return (v) => {
      const s = subject(v);
      return boolValue(typeArgument(type(v)) === s.type);
    };
  },
});

unary("under", (a) => {
  const t = a.type;
  switch (t.kind) {
    case Kind.Named:
      return new Value(t.type, a.body);
    case Kind.Error:
      return new Value(t.inner, a.body);
    case Kind.Union: {
      if (a.body === null) return a;
      const u = a.body as UnionBody;
      return new Value(t.types[u.tag], u.body);
    }
  }
  if (t === TypeType && a.body !== null) return typeValue(typeUnder(a.body as Type));
  return a;
});

unary("error", (a) => new Value(zctx.lookupError(a.type), a.body));
unary("is_error", (a) => boolValue(isError(a)));
unary("quiet", (a) => isMissing(a) ? QUIET : a);

/** Whether a value of type t holds an error anywhere (a null error counts). */
function hasError(t: Type, body: Body): boolean {
  const u = typeUnder(t);
  if (u.kind === Kind.Error) return true;
  if (body === null) return false;
  switch (u.kind) {
    case Kind.Record: {
      const fields = body as Body[];
      for (let i = 0; i < u.fields.length; i++) {
        if (hasError(u.fields[i].type, fields[i])) return true;
      }
      return false;
    }
    case Kind.Array:
    case Kind.Set:
      for (const e of body as Body[]) if (hasError(u.elem, e)) return true;
      return false;
    case Kind.Map: {
      const kv = body as Body[];
      for (let i = 0; i < kv.length; i += 2) {
        if (hasError(u.key, kv[i]) || hasError(u.value, kv[i + 1])) return true;
      }
      return false;
    }
    case Kind.Union: {
      const ub = body as UnionBody;
      return hasError(u.types[ub.tag], ub.body);
    }
  }
  return false;
}

unary("has_error", (a) => boolValue(hasError(a.type, a.body)));

/** has(): false on missing/quiet, another error is returned, else true. */
function has(args: Value[]): Value {
  for (const a of args) {
    if (isError(a)) return isMissing(a) || isQuiet(a) ? FALSE : a;
  }
  return TRUE;
}

variadic("has", 1, Infinity, has);
variadic("missing", 1, Infinity, (args) => {
  const r = has(args);
  return r === TRUE ? FALSE : r === FALSE ? TRUE : r;
});

variadic("coalesce", 1, Infinity, (args) => {
  for (const a of args) {
    if (a.body !== null && !isMissing(a) && !isQuiet(a)) return a;
  }
  return NULL;
});

/** The reference's "length" of a type value. */
function typeLength(t: Type): number {
  const u = typeUnder(t);
  switch (u.kind) {
    case Kind.Record:
      return u.fields.length;
    case Kind.Union:
      return u.types.length;
    case Kind.Array:
    case Kind.Set:
      return typeLength(u.elem);
    case Kind.Enum:
      return u.symbols.length;
    case Kind.Map:
      return typeLength(u.value);
    case Kind.Error:
      return typeLength(u.inner);
  }
  return 1;
}

function int64(n: number): Value {
  return new Value(TypeInt64, n);
}

unary("len", (a) => {
  const u = typeUnder(a.type);
  const body = a.body;
  switch (u.kind) {
    case Kind.Record:
      return int64(u.fields.length);
    case Kind.Array:
    case Kind.Set:
      return int64(body === null ? 0 : (body as Body[]).length);
    case Kind.Map:
      return int64(body === null ? 0 : (body as Body[]).length / 2);
    case Kind.Error:
      return errorOn("len()", a);
    case Kind.Primitive:
      switch (u.id) {
        case ID_NULL:
          return int64(0);
        case ID_STRING:
          return int64(body === null ? 0 : utf8Length(body as string));
        case ID_BYTES:
        case ID_IP:
        case ID_NET:
          return int64(body === null ? 0 : (body as Uint8Array).length);
        case ID_TYPE:
          return int64(body === null ? 0 : typeLength(body as Type));
      }
  }
  return errorValue(`len: bad type: ${formatType(u)}`);
});
