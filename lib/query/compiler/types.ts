// Type syntax in queries (`<...>`, casts, `type` statements) to types.

import { invalid } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { Field, lookupPrimitive, type Type } from "../../zed/types.ts";
import type { TypeNode } from "../ast.ts";
import type { Scope } from "./scope.ts";

/**
 * Resolves a type. Names come from `type` statements in scope or from
 * definitions earlier in the same type (`{a:foo=int64,b:foo}`); a name that is
 * neither is an error (`no such type name: "foo"`).
 */
export function resolveType(node: TypeNode, scope: Scope, local = new Map<string, Type>()): Type {
  switch (node.kind) {
    case "TypePrimitive": {
      const t = lookupPrimitive(node.name);
      if (t === undefined) throw invalid(`no such primitive type: ${JSON.stringify(node.name)}`);
      return t;
    }
    case "TypeName": {
      const t = local.get(node.name) ?? lookupPrimitive(node.name) ?? scope.lookupType(node.name);
      if (t === undefined) throw invalid(`no such type name: ${JSON.stringify(node.name)}`);
      return t;
    }
    case "TypeDef": {
      const inner = resolveType(node.type, scope, local);
      const t = zctx.lookupNamed(node.name, inner);
      local.set(node.name, t);
      return t;
    }
    case "TypeRecord":
      return zctx.lookupRecord(
        (node.fields ?? []).map((f) => new Field(f.name, resolveType(f.type, scope, local))),
      );
    case "TypeArray":
      return zctx.lookupArray(resolveType(node.type, scope, local));
    case "TypeSet":
      return zctx.lookupSet(resolveType(node.type, scope, local));
    case "TypeMap": {
      const k = resolveType(node.key_type, scope, local);
      return zctx.lookupMap(k, resolveType(node.val_type, scope, local));
    }
    case "TypeUnion":
      return zctx.lookupUnion(node.types.map((t) => resolveType(t, scope, local)));
    case "TypeValue":
      return resolveType(node.value, scope, local);
  }
}
