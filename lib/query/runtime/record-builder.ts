// Builds records from values assigned to field paths (`cut a, b.c, b.d`,
// summarize keys and aggregates): nested paths make nested records. The
// reference requires fields of one sub-record to be adjacent and rejects
// duplicates; both are checked when the builder is made.

import { invalid } from "../../errors.ts";
import { zctx } from "../../zed/context.ts";
import { Field, type RecordType, type Type } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";

interface Node {
  name: string;
  /** Index into the values for a leaf; -1 for a sub-record. */
  leaf: number;
  children: Node[];
}

export class RecordBuilder {
  private root: Node = { name: "", leaf: -1, children: [] };
  private cache = new Map<string, RecordType>();

  constructor(readonly paths: readonly (readonly string[])[]) {
    const seenRecords = new Set<string>();
    const seenFields = new Set<string>();
    let current: readonly string[] = [];
    paths.forEach((path, i) => {
      if (path.length === 0) throw invalid("cannot assign to 'this'");
      const record = path.slice(0, -1);
      if (!samePath(record, current)) {
        let pos = 0;
        while (pos < record.length && pos < current.length && record[pos] === current[pos]) pos++;
        for (let p = pos; p < record.length; p++) {
          const name = record.slice(0, p + 1).join(".");
          if (seenRecords.has(name)) throw invalid(`fields in record ${name} must be adjacent`);
          seenRecords.add(name);
        }
        current = record;
      }
      const full = path.join(".");
      if (seenFields.has(full)) throw invalid(`duplicate field: ${JSON.stringify(full)}`);
      seenFields.add(full);
      this.insert(path, i);
    });
  }

  private insert(path: readonly string[], leaf: number): void {
    let node = this.root;
    for (let d = 0; d < path.length - 1; d++) {
      const name = path[d];
      let child = node.children.find((c) => c.name === name);
      if (child !== undefined && child.leaf >= 0) {
        throw invalid(`duplicate field: ${JSON.stringify(path.join("."))}`);
      }
      if (child === undefined) {
        child = { name, leaf: -1, children: [] };
        node.children.push(child);
      }
      node = child;
    }
    const name = path[path.length - 1];
    if (node.children.some((c) => c.name === name)) {
      throw invalid(`duplicate field: ${JSON.stringify(path.join("."))}`);
    }
    node.children.push({ name, leaf, children: [] });
  }

  /**
   * The record for these values (one per path, in path order). An undefined
   * value omits its field; a sub-record left empty is omitted too. Returns
   * undefined when every field is omitted.
   */
  build(values: readonly (Value | undefined)[]): Value | undefined {
    const r = this.node(this.root, values);
    return r === undefined ? undefined : r;
  }

  private node(n: Node, values: readonly (Value | undefined)[]): Value | undefined {
    const types: Type[] = [];
    const names: string[] = [];
    const bodies: Body[] = [];
    for (const c of n.children) {
      const v = c.leaf >= 0 ? values[c.leaf] : this.node(c, values);
      if (v === undefined) continue;
      names.push(c.name);
      types.push(v.type);
      bodies.push(v.body);
    }
    if (names.length === 0) return undefined;
    return new Value(this.recordType(names, types), bodies);
  }

  private recordType(names: string[], types: Type[]): RecordType {
    let key = "";
    for (let i = 0; i < names.length; i++) key += names[i] + "\u0000" + types[i].id + "\u0000";
    let t = this.cache.get(key);
    if (t === undefined) {
      t = zctx.lookupRecord(names.map((name, i) => new Field(name, types[i])));
      this.cache.set(key, t);
    }
    return t;
  }
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
