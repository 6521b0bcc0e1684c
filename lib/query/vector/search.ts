// Search terms over columns: the walk a search makes of a value (search-walk.ts)
// taken apart by record type. A record type whose field names match makes all
// its rows match; otherwise a row matches when one of its leaf values does,
// tested per dictionary entry or per value. Keyword searches for ASCII terms
// scan a string column's bytes at once. Types not wholly in columns are left
// to the row path.

import { ALWAYS, type BodyTest, type SearchWalker } from "../expr/search-walk.ts";
import { Kind, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import {
  BinaryVector,
  DictVector,
  ListVector,
  NULL_ROW,
  VALUE,
  type Vector,
} from "../../zed/vector.ts";
import type { ColumnarObject, ColumnRef } from "./object.ts";
import {
  F,
  type FilterNode,
  rowsFromTypes,
  T,
  type TypeIndex,
  type TypeOutcomes,
  VARIES,
} from "./codes.ts";

interface LeafTest {
  path: string[];
  type: Type;
  test: BodyTest;
}

/** A search term over a whole value; keyword is the term of a keyword search. */
export function compileSearchAtom(walker: SearchWalker, keyword: string | null): FilterNode {
  return new SearchAtom(walker, keyword);
}

class SearchAtom implements FilterNode {
  private plans = new Map<Type, LeafTest[] | boolean>();
  private asciiTerm: string | null;

  constructor(private walker: SearchWalker, keyword: string | null) {
    this.asciiTerm = keyword !== null && keyword !== "" && isAscii(keyword)
      ? keyword.toLowerCase()
      : null;
  }

  /** What decides a type's rows: true/false for all of them, or tests of its leaves. */
  private plan(t: Type): LeafTest[] | boolean {
    let p = this.plans.get(t);
    if (p === undefined) {
      const rec = typeUnder(t);
      const tests: LeafTest[] = [];
      p = rec.kind === Kind.Record && this.leaves(rec, [], tests) ? true : tests;
      if (Array.isArray(p) && p.length === 0) p = false;
      this.plans.set(t, p);
    }
    return p;
  }

  /** Collects a record type's leaf tests; true when the record itself always matches. */
  private leaves(rec: RecordType, prefix: string[], out: LeafTest[]): boolean {
    const w = this.walker;
    if (w.tester(rec) === ALWAYS) return true;
    for (const f of rec.fields) {
      const path = [...prefix, f.name];
      const u = typeUnder(f.type);
      if (u.kind === Kind.Record) {
        if (this.leaves(u, path, out)) return true;
        continue;
      }
      const test = w.tester(f.type);
      if (test === null) continue;
      if (test === ALWAYS) return true;
      out.push({ path, type: f.type, test });
    }
    return false;
  }

  perType(o: ColumnarObject): TypeOutcomes | null {
    const nt = o.types.length;
    const per = new Int8Array(nt);
    for (let k = 0; k < nt; k++) {
      if (!o.complete[k]) return null;
      const p = this.plan(o.types[k]);
      if (typeof p === "boolean") per[k] = p ? T : F;
      else {
        // Its leaves decide, if they all have columns.
        for (const leaf of p) {
          const c = o.columnsOf(leaf.path).find((c) =>
            c.type === leaf.type && c.covers.includes(k)
          );
          if (c === undefined) return null;
        }
        per[k] = VARIES;
      }
    }
    return per;
  }

  async eval(o: ColumnarObject, types: TypeIndex, per: TypeOutcomes): Promise<Uint8Array | null> {
    const nt = o.types.length;
    /** The columns to test, with the types each is tested for. */
    const work = new Map<ColumnRef, { test: BodyTest; types: Uint8Array }>();
    for (let k = 0; k < nt; k++) {
      if (per[k] !== VARIES) continue;
      for (const leaf of this.plan(o.types[k]) as LeafTest[]) {
        const c = o.columnsOf(leaf.path).find((c) => c.type === leaf.type && c.covers.includes(k))!;
        let w = work.get(c);
        if (w === undefined) work.set(c, w = { test: leaf.test, types: new Uint8Array(nt) });
        w.types[k] = 1;
      }
    }
    const codes = rowsFromTypes(o.rows, types, per);
    for (const [c, w] of work) {
      const v = await o.vector(c);
      const hits = this.matches(v, w.test);
      for (let i = 0; i < codes.length; i++) {
        if (hits[i] && (types === null || w.types[types[i]])) codes[i] = T;
      }
    }
    return codes;
  }

  /** Per row of v: 1 when its value (or null) passes the test. */
  private matches(v: Vector, test: BodyTest): Uint8Array {
    const n = v.length, state = v.state;
    const out = new Uint8Array(n);
    const nullHit = test(null) ? 1 : 0;
    if (v instanceof ListVector) {
      const elems = this.elementMatches(v.child);
      const off = v.offsets;
      for (let i = 0; i < n; i++) {
        if (state[i] === NULL_ROW) out[i] = nullHit;
        else if (state[i] === VALUE) {
          for (let k = off[i]; k < off[i + 1]; k++) {
            if (elems[k]) {
              out[i] = 1;
              break;
            }
          }
        }
      }
      return out;
    }
    if (v instanceof DictVector) {
      // The entries are tested (as a vector of their own), then each row takes its entry's.
      const d = this.entryMatches(v, test);
      const index = v.index;
      for (let i = 0; i < n; i++) {
        if (state[i] === VALUE) out[i] = d[index[i]];
        else if (state[i] === NULL_ROW) out[i] = nullHit;
      }
      return out;
    }
    if (v instanceof BinaryVector && v.isString && this.asciiTerm !== null) {
      asciiFind(v, this.asciiTerm, out);
      if (nullHit) { for (let i = 0; i < n; i++) if (state[i] === NULL_ROW) out[i] = 1; }
      return out;
    }
    for (let i = 0; i < n; i++) {
      if (state[i] === VALUE) out[i] = test(v.body(i)) ? 1 : 0;
      else if (state[i] === NULL_ROW) out[i] = nullHit;
    }
    return out;
  }

  private entryCache = new WeakMap<Vector, Uint8Array>();

  /** Per entry of a dictionary, whether it passes (worked out once per dictionary). */
  private entryMatches(v: DictVector, test: BodyTest): Uint8Array {
    let d = this.entryCache.get(v.entries);
    if (d === undefined) {
      d = this.matches(v.entries, test);
      this.entryCache.set(v.entries, d);
    }
    return d;
  }

  /** Per element of a list column: whether it passes the test of its type (a list matches by element). */
  private elementMatches(child: Vector): Uint8Array {
    const elemTest = this.walker.tester(child.type);
    if (elemTest === null) return new Uint8Array(child.length);
    return this.matches(child, elemTest);
  }
}

/**
 * Marks the rows of a string column containing an ASCII term, ignoring ASCII
 * case. An ASCII term can only match ASCII bytes, so the search runs on the
 * UTF-8 bytes: each case of the term's first character is found with the
 * native byte search, and the rest compared there.
 */
function asciiFind(v: BinaryVector, term: string, out: Uint8Array): void {
  const data = v.data, off = v.offsets, state = v.state, n = term.length;
  const want = new Uint8Array(n), fold = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    const c = term.charCodeAt(k);
    const letter = c >= 0x61 && c <= 0x7a;
    want[k] = c;
    fold[k] = letter ? 0x20 : 0;
  }
  const firsts = fold[0] !== 0 ? [want[0], want[0] ^ 0x20] : [want[0]];
  for (const first of firsts) {
    let row = 0;
    for (let p = data.indexOf(first); p >= 0; p = data.indexOf(first, p + 1)) {
      while (off[row + 1] <= p) row++;
      if (out[row] === 1 || p + n > off[row + 1] || state[row] !== VALUE) continue;
      let k = 1;
      while (k < n && (data[p + k] | fold[k]) === want[k]) k++;
      if (k === n) out[row] = 1;
    }
  }
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}
