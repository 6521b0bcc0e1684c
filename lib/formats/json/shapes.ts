// Record types for JSON objects without building a lookup key per object
// (and array types by their element type, looked up once each).
// Each reader owns a tree whose edges are (field name, value type): parsing
// an object walks the tree one field at a time and the node it ends on caches
// the record type. Nodes remember the edge taken last, so a stream of
// same-shaped objects costs one string match per key.

import { zctx } from "../../zed/context.ts";
import type { ArrayType, RecordType, Type } from "../../zed/types.ts";
import type { Body } from "../../zed/value.ts";

/** Whether a name appears verbatim between quotes in JSON (no escapes needed). */
function isPlain(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 34 || c === 92) return false;
  }
  return true;
}

/** More edges than this and a node indexes them by name. */
const INDEX_AT = 8;

export class ShapeEdge {
  /**
   * The name's UTF-16 code units when it appears verbatim between quotes in
   * JSON (nothing to escape), for matching against raw input; else null.
   */
  readonly codes: number[] | null;
  /** The node this edge leads to. */
  readonly to: Shape;
  constructor(readonly from: Shape, readonly name: string, readonly type: Type) {
    this.codes = isPlain(name) ? codeUnits(name) : null;
    this.to = new Shape(this);
  }
}

export class Shape {
  readonly edges: ShapeEdge[] = [];
  /** The edge taken most recently: the guess for the next object's key. */
  last: ShapeEdge | null = null;
  /** The record type of an object whose fields led here, once computed. */
  record: RecordType | null = null;
  /**
   * With duplicate keys: output field j takes input value plan[j] (the last
   * value of the name, at its first position). Null when keys are distinct.
   */
  plan: number[] | null = null;
  private byName: Map<string, ShapeEdge[]> | null = null;

  /** The edge that leads here; null at the root. */
  constructor(readonly via: ShapeEdge | null) {}

  /**
   * An edge whose name s holds at i, followed by `"` (the key's closing
   * quote), looking at the first few edges only; null if none matches.
   */
  match(s: string, i: number): ShapeEdge | null {
    const edges = this.edges;
    const n = edges.length < INDEX_AT ? edges.length : INDEX_AT;
    for (let k = 0; k < n; k++) {
      const codes = edges[k].codes;
      if (codes !== null && matchKey(s, i, codes)) return edges[k];
    }
    return null;
  }

  /** The edge for (name, type), created when new. */
  step(name: string, type: Type): ShapeEdge {
    const list = this.byName === null ? this.edges : this.byName.get(name);
    if (list !== undefined) {
      for (let i = 0; i < list.length; i++) {
        const e = list[i];
        if (e.type === type && e.name === name) return e;
      }
    }
    const e = new ShapeEdge(this, name, type);
    this.edges.push(e);
    if (this.byName !== null) {
      addToIndex(this.byName, e);
    } else if (this.edges.length > INDEX_AT) {
      this.byName = new Map();
      for (const x of this.edges) addToIndex(this.byName, x);
    }
    return e;
  }

  /** Computes (once) the record type of the object that ended at this node. */
  finish(): RecordType {
    if (this.record !== null) return this.record;
    const names: string[] = [];
    const types: Type[] = [];
    for (let e = this.via; e !== null; e = e.from.via) {
      names.push(e.name);
      types.push(e.type);
    }
    names.reverse();
    types.reverse();
    const first = new Map<string, number>();
    const outNames: string[] = [];
    const outTypes: Type[] = [];
    const plan: number[] = [];
    for (let i = 0; i < names.length; i++) {
      const j = first.get(names[i]);
      if (j === undefined) {
        first.set(names[i], outNames.length);
        outNames.push(names[i]);
        outTypes.push(types[i]);
        plan.push(i);
      } else {
        outTypes[j] = types[i];
        plan[j] = i;
      }
    }
    if (outNames.length !== names.length) this.plan = plan;
    this.record = zctx.lookupRecordOf(outNames, outTypes);
    return this.record;
  }

  /** The record body for the values parsed along the path to this node. */
  body(vals: Body[]): Body[] {
    const plan = this.plan;
    if (plan === null) return vals;
    const out = new Array<Body>(plan.length);
    for (let j = 0; j < plan.length; j++) out[j] = vals[plan[j]];
    return out;
  }
}

/** Whether s holds a key's characters and then `"` at i. */
export function matchKey(s: string, i: number, codes: number[]): boolean {
  const n = codes.length;
  if (s.charCodeAt(i + n) !== 34) return false;
  for (let k = 0; k < n; k++) if (s.charCodeAt(i + k) !== codes[k]) return false;
  return true;
}

function codeUnits(s: string): number[] {
  const codes: number[] = [];
  for (let i = 0; i < s.length; i++) codes.push(s.charCodeAt(i));
  return codes;
}

function addToIndex(index: Map<string, ShapeEdge[]>, e: ShapeEdge): void {
  const list = index.get(e.name);
  if (list === undefined) index.set(e.name, [e]);
  else list.push(e);
}

/** Array types by element type, each looked up in the shared context once. */
export class ArrayTypes {
  private types = new Map<Type, ArrayType>();

  of(elem: Type): ArrayType {
    let t = this.types.get(elem);
    if (t === undefined) this.types.set(elem, t = zctx.lookupArray(elem));
    return t;
  }
}
