// `rename new:=old, ...` (language.md §3.14): renames fields in place, left
// to right, each rename seeing the previous ones. Only the last name of a
// path may change. Renaming never touches bodies, only the record type,
// which is computed once per input type. The output type is always unnamed;
// named sub-records are not descended into (as in the reference). A name
// clash gives error({message:"rename: duplicate field: \"a\"",on:<input>}).

import { invalid } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { Field, Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import { type Batch, Value } from "../../zed/value.ts";
import { type Op, Unary } from "../runtime/op.ts";
import { errorOn, isMissing, isQuiet } from "../runtime/values.ts";
import { type Path, pathString } from "./paths.ts";

export interface RenamePair {
  to: Path;
  from: Path;
}

/** The compile-time checks: same depth, same prefix. */
export function checkRenamePaths(pairs: readonly RenamePair[]): void {
  for (const { to, from } of pairs) {
    if (to.length !== from.length) {
      throw invalid(`cannot rename ${pathString(from)} to ${pathString(to)}`);
    }
    for (let i = 0; i < from.length - 1; i++) {
      if (from[i] !== to[i]) {
        throw invalid(
          `cannot rename ${pathString(from)} to ${pathString(to)} (differ in ${from[i]} vs ${
            to[i]
          })`,
        );
      }
    }
  }
}

export class Rename extends Unary {
  /** Output type per input type, or the duplicate field's message. */
  private readonly types = new Map<Type, Type | string>();

  constructor(next: Op, private readonly pairs: readonly RenamePair[]) {
    super(next);
    checkRenamePaths(pairs);
  }

  push(batch: Batch): void {
    const out: Value[] = [];
    for (let i = 0; i < batch.length; i++) {
      const v = batch[i];
      let t = this.types.get(v.type);
      if (t === undefined) {
        t = this.outputType(v.type);
        this.types.set(v.type, t);
      }
      if (t === v.type) {
        if (!isMissing(v) && !isQuiet(v)) out.push(v);
      } else if (typeof t === "string") out.push(errorOn(t, v));
      else out.push(new Value(t, v.body));
    }
    this.emit(out);
  }

  /** The renamed type; non-records map to themselves. */
  private outputType(t: Type): Type | string {
    let rt = typeUnder(t);
    if (rt.kind !== Kind.Record) return t;
    for (const { to, from } of this.pairs) {
      const r = renamed(rt, from, to[to.length - 1]);
      if (typeof r === "string") return r;
      rt = r;
    }
    return rt;
  }
}

/** rt with the field at path renamed to leaf; unchanged when there is no such field. */
function renamed(rt: RecordType, path: Path, leaf: string): RecordType | string {
  const i = rt.indexOf(path[0]);
  if (i < 0) return rt;
  const f = rt.fields[i];
  let field: Field;
  if (path.length > 1) {
    // The reference looks for a plain record here: a named one is not renamed into.
    if (f.type.kind !== Kind.Record) return rt;
    const inner = renamed(f.type, path.slice(1), leaf);
    if (typeof inner === "string") return inner;
    field = new Field(f.name, inner);
  } else {
    field = new Field(leaf, f.type);
  }
  const fields = rt.fields.slice();
  fields[i] = field;
  for (let k = 0; k < fields.length; k++) {
    if (k !== i && fields[k].name === field.name) {
      return `rename: duplicate field: ${quoteGoString(field.name)}`;
    }
  }
  return zctx.lookupRecord(fields);
}
