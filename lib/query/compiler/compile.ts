// Query text to a runnable operator graph.

import "../aggregates/mod.ts";
import "../functions/mod.ts";
import type { Op } from "../runtime/op.ts";
import { parseQuery } from "../parser/parse.ts";
import { OpCompiler } from "./ops.ts";
import { Scope } from "./scope.ts";

export interface CompiledQuery {
  /** Input ports: 1, or 2 for a query that starts with `join`. */
  inputs: number;
  /** Builds a fresh instance of the query's operators in front of `next`; returns its inputs. */
  make: (next: Op) => Op[];
}

export function compileQuery(text: string): CompiledQuery {
  return new OpCompiler().program(parseQuery(text), new Scope());
}
