// Containment `elem in container` (language.md §4.8) and the depth-first
// value walk it uses (the reference's zed.Walk): the value itself first, then
// record fields, array/set elements, map keys and values, union and error
// payloads, recursively.

import { Kind, type Type, typeUnder } from "../../zed/types.ts";
import type { Body, UnionBody, Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";
import { errorValue, FALSE, isError, TRUE } from "../runtime/values.ts";
import { OVERFLOW_MESSAGE } from "./coerce.ts";
import { constBodyPredicate, EQUAL, equalBodies, OVERFLOWED } from "./compare.ts";

/** Visits a value and everything inside it until visit returns true; returns whether it did. */
export function walkValue(t: Type, body: Body, visit: (t: Type, body: Body) => boolean): boolean {
  if (visit(t, body)) return true;
  if (body === null) return false;
  switch (t.kind) {
    case Kind.Named:
      return walkValue(t.type, body, visit);
    case Kind.Record: {
      const fields = t.fields, b = body as Body[];
      for (let i = 0; i < fields.length; i++) {
        if (walkValue(fields[i].type, b[i], visit)) return true;
      }
      return false;
    }
    case Kind.Array:
    case Kind.Set: {
      const elem = t.kind === Kind.Set ? typeUnder(t.elem) : t.elem, b = body as Body[];
      for (let i = 0; i < b.length; i++) if (walkValue(elem, b[i], visit)) return true;
      return false;
    }
    case Kind.Map: {
      const k = typeUnder(t.key), v = typeUnder(t.value), b = body as Body[];
      for (let i = 0; i < b.length; i += 2) {
        if (walkValue(k, b[i], visit) || walkValue(v, b[i + 1], visit)) return true;
      }
      return false;
    }
    case Kind.Union: {
      const u = body as UnionBody;
      return walkValue(t.types[u.tag], u.body, visit);
    }
    case Kind.Error:
      return walkValue(t.inner, body, visit);
  }
  return false;
}

const INTEGER_OVERFLOW = errorValue(OVERFLOW_MESSAGE);

// State of the general-path visitor. A walk never evaluates expressions, so
// walks cannot nest and one module-level visitor serves every `in`.
let wanted: Value;
let overflowed = false;

function visitEqual(t: Type, body: Body): boolean {
  const r = equalBodies(wanted.type, wanted.body, t, body);
  if (r === EQUAL) return true;
  if (r === OVERFLOWED) {
    overflowed = true;
    return true;
  }
  return false;
}

/** elem in container on evaluated, non-error values (the general path). */
export function contains(elem: Value, container: Value): Value {
  wanted = elem;
  overflowed = false;
  const found = walkValue(container.type, container.body, visitEqual);
  if (overflowed) return INTEGER_OVERFLOW;
  return found ? TRUE : FALSE;
}

/**
 * elem in container. Pass `elemConst` when elem is a compile-time constant:
 * for the constant types of comparison path A the walk uses that typed `==`
 * predicate and elem is not evaluated at all.
 */
export function compileIn(elem: Expr, container: Expr, elemConst?: Value): Expr {
  if (elemConst !== undefined && !isError(elemConst)) {
    const pred = constBodyPredicate("==", elemConst);
    if (pred !== undefined) {
      return (v) => {
        const c = container(v);
        if (isError(c)) return c;
        return walkValue(c.type, c.body, pred) ? TRUE : FALSE;
      };
    }
  }
  return (v) => {
    const e = elem(v);
    if (isError(e)) return e;
    const c = container(v);
    if (isError(c)) return c;
    return contains(e, c);
  };
}
