// Lexical scopes of a query: `const` values, `type` names and lateral
// variables (`over ... with x=e`), each sequence and lateral scope opening a
// new level. An identifier not found here is a field of `this`.

import { invalid } from "../../errors.ts";
import type { Type } from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";

/** A lateral variable: a slot in a frame the `over` operator fills per value. */
export class Frame {
  values: Value[] = [];
}

export type Symbol =
  | { kind: "const"; value: Value }
  | { kind: "type"; value: Value; type: Type }
  | { kind: "var"; frame: Frame; slot: number };

export class Scope {
  private symbols = new Map<string, Symbol>();

  constructor(readonly parent?: Scope) {}

  enter(): Scope {
    return new Scope(this);
  }

  define(name: string, sym: Symbol): void {
    if (this.symbols.has(name)) throw invalid(`symbol ${JSON.stringify(name)} redefined`);
    this.symbols.set(name, sym);
  }

  lookup(name: string): Symbol | undefined {
    return this.symbols.get(name) ?? this.parent?.lookup(name);
  }

  /** Named types declared with `type` statements in this scope and its parents. */
  lookupType(name: string): Type | undefined {
    const sym = this.lookup(name);
    return sym?.kind === "type" ? sym.type : undefined;
  }
}
