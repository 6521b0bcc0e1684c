// Rebuilds rows from leaf columns (Dremel record assembly). Every leaf under
// a node is at the same slot when the node is read: a null or empty node
// holds exactly one entry in each of its leaves, and a list continues while
// its first leaf's next entry repeats at the list's level.

import type { MapType } from "../../zed/types.ts";
import { normalizeMap } from "../../zed/normalize.ts";
import type { Body } from "../../zed/value.ts";
import type { LeafData } from "./chunk.ts";
import { NodeKind, type ReadNode } from "./schema_read.ts";

class Cursor {
  pos = 0;
  vpos = 0;
  constructor(readonly data: LeafData) {}
}

export class Assembler {
  private cursors: Cursor[];

  constructor(private fields: ReadNode[], leaves: LeafData[]) {
    this.cursors = leaves.map((d) => new Cursor(d));
  }

  /** The body of the next row's record. */
  row(): Body[] {
    const fields = this.fields;
    const out = new Array<Body>(fields.length);
    for (let i = 0; i < fields.length; i++) out[i] = this.read(fields[i]);
    return out;
  }

  private read(n: ReadNode): Body {
    // A group without leaves (not valid Parquet) has no levels to consult.
    if (n.first === n.end) return n.kind === NodeKind.Record ? [] : null;
    const c = this.cursors[n.first];
    if (n.optional && c.data.def[c.pos] < n.def) {
      this.skip(n);
      return null;
    }
    switch (n.kind) {
      case NodeKind.Leaf:
        c.pos++;
        return c.data.values[c.vpos++];
      case NodeKind.Record: {
        const fields = n.children;
        const out = new Array<Body>(fields.length);
        for (let i = 0; i < fields.length; i++) out[i] = this.read(fields[i]);
        return out;
      }
      case NodeKind.List: {
        const out: Body[] = [];
        if (c.data.def[c.pos] < n.itemDef) {
          this.skip(n);
          return out;
        }
        const item = n.children[0];
        do out.push(this.read(item)); while (this.repeats(c, n.itemRep));
        return out;
      }
      case NodeKind.Map: {
        const out: Body[] = [];
        if (c.data.def[c.pos] < n.itemDef) {
          this.skip(n);
          return out;
        }
        const [key, val] = n.children;
        do {
          out.push(this.read(key));
          out.push(this.read(val));
        } while (this.repeats(c, n.itemRep));
        return normalizeMap((n.type as MapType).key, out);
      }
    }
  }

  /** Whether the cursor's next entry continues a list at level rep. */
  private repeats(c: Cursor, rep: number): boolean {
    return c.pos < c.data.count && c.data.rep[c.pos] >= rep;
  }

  /** Steps over one undefined slot of every leaf under n. */
  private skip(n: ReadNode): void {
    for (let i = n.first; i < n.end; i++) this.cursors[i].pos++;
  }
}
