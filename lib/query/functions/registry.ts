// The scalar function library: each function is registered by name with its
// arity and a compile step that turns compiled argument expressions into the
// call's expression. Most functions only need their evaluated arguments
// (`simple`); a few look at constant arguments or at `this`.

import { invalid } from "../../errors.ts";
import type { Value } from "../../zed/value.ts";
import type { Expr } from "../runtime/expr.ts";

export interface CallInfo {
  /** The function name as written. */
  name: string;
  /** For each argument, its value when it is a compile-time constant. */
  consts: (Value | undefined)[];
}

export interface FunctionDef {
  /** Fewest arguments. */
  min: number;
  /** Most arguments (Infinity for variadic). */
  max: number;
  compile(args: Expr[], info: CallInfo): Expr;
}

const library = new Map<string, FunctionDef>();

export function register(name: string, def: FunctionDef): void {
  library.set(name, def);
}

export function lookupFunction(name: string): FunctionDef | undefined {
  return library.get(name);
}

/** Checks arity with the reference's messages and compiles the call. */
export function compileCall(name: string, args: Expr[], consts: (Value | undefined)[]): Expr {
  const def = library.get(name);
  if (def === undefined) throw invalid(`${name}(): no such function`);
  if (args.length < def.min) throw invalid(`${name}(): too few arguments`);
  if (args.length > def.max) throw invalid(`${name}(): too many arguments`);
  return def.compile(args, { name, consts });
}

/**
 * A function of its evaluated arguments (and `this`). Arguments arrive as
 * values, errors included; the function decides what to do with them.
 */
export function simple(
  min: number,
  max: number,
  impl: (args: Value[], thisValue: Value) => Value,
): FunctionDef {
  return {
    min,
    max,
    compile(args: Expr[]): Expr {
      switch (args.length) {
        case 0:
          return (v) => impl([], v);
        case 1: {
          const [a] = args;
          return (v) => impl([a(v)], v);
        }
        case 2: {
          const [a, b] = args;
          return (v) => impl([a(v), b(v)], v);
        }
        default:
          return (v) => impl(args.map((a) => a(v)), v);
      }
    },
  };
}
