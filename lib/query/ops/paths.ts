// Field paths as the operators take them (`a.b.c` is ["a","b","c"]; `this`
// is []), and assignments of expressions to them (`cut`, `put`).

import type { Expr } from "../runtime/expr.ts";

export type Path = readonly string[];

/** `lhs := rhs`, compiled. */
export interface Assignment {
  path: Path;
  expr: Expr;
}

/** The reference's text for a path in messages: dotted, or `this`. */
export function pathString(p: Path): string {
  return p.length === 0 ? "this" : p.join(".");
}

export function pathEqual(a: Path, b: Path): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether prefix is a prefix of p (equal paths included). */
export function hasPrefix(p: Path, prefix: Path): boolean {
  if (p.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (p[i] !== prefix[i]) return false;
  return true;
}

/** Whether prefix is a proper prefix of p. */
export function hasStrictPrefix(p: Path, prefix: Path): boolean {
  return p.length > prefix.length && hasPrefix(p, prefix);
}
