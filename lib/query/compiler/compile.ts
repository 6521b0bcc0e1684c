// Query text to a runnable operator graph.

import "../aggregates/mod.ts";
import "../functions/mod.ts";
import type { OpFactory } from "../runtime/op.ts";
import { parseQuery } from "../parser/parse.ts";
import { OpCompiler } from "./ops.ts";
import { Scope } from "./scope.ts";

export interface CompiledQuery {
  /** Builds a fresh instance of the query's operators in front of `next`. */
  make: OpFactory;
}

export function compileQuery(text: string): CompiledQuery {
  const ast = parseQuery(text);
  const make = new OpCompiler().sequential(ast, new Scope());
  return { make };
}
