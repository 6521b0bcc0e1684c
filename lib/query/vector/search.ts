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
  FixedVector,
  ListVector,
  NULL_ROW,
  NumberVector,
  VALUE,
  type Vector,
} from "../../zed/vector.ts";
import type { ColumnarObject, ColumnRef } from "./object.ts";
import { asciiSetHas } from "./asciiset.ts";
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

/**
 * How a term can search a string column's bytes at once: for an ASCII
 * substring, ignoring ASCII case (a keyword) or not (a glob `*text*`, whose
 * `.*` also cannot cross a newline, so a value holding one does not match).
 */
export interface BytesTerm {
  text: string;
  foldCase: boolean;
}

/** The bytes search of a keyword, when it is ASCII. */
export function keywordBytes(keyword: string): BytesTerm | null {
  return keyword !== "" && isAscii(keyword)
    ? { text: keyword.toLowerCase(), foldCase: true }
    : null;
}

/** The bytes search of a glob `*text*` (text ASCII, without glob or escape characters). */
export function globBytes(glob: string): BytesTerm | null {
  const m = /^\*+([^*\\?[\]{}\n]+)\*+$/.exec(glob);
  return m !== null && isAscii(m[1]) ? { text: m[1], foldCase: false } : null;
}

/**
 * A search term over a whole value; bytes: how it searches string columns'
 * bytes, if it can; equalTo: for a number literal, its value as a double
 * (a number equals it only where its double does, so only those are tested).
 */
export function compileSearchAtom(
  walker: SearchWalker,
  bytes: BytesTerm | null,
  equalTo?: number,
): FilterNode {
  return new SearchAtom(walker, bytes, equalTo);
}

class SearchAtom implements FilterNode {
  private plans = new Map<Type, LeafTest[] | boolean>();

  constructor(
    private walker: SearchWalker,
    private bytes: BytesTerm | null,
    private equalTo: number | undefined,
  ) {}

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
      // A column without some character of the term: no need to read it.
      if (this.bytes !== null && c.ascii !== undefined && !w.test(null)) {
        if (!mayHold(c.ascii, this.bytes)) continue;
      }
      // A dictionary none of whose entries (nor null) matches: its rows need not be read.
      const entries = await o.dictionary(c);
      if (entries !== null && !w.test(null) && !this.entryHits(entries, w.test).includes(1)) {
        continue;
      }
      const v = await o.vector(c);
      const hits = this.matches(v, w.test);
      if (Array.isArray(hits)) {
        for (const i of hits) if (types === null || w.types[types[i]]) codes[i] = T;
        continue;
      }
      for (let i = 0; i < codes.length; i++) {
        if (hits[i] && (types === null || w.types[types[i]])) codes[i] = T;
      }
    }
    return codes;
  }

  /** Per row of v: 1 when its value (or null) passes the test; or the rows that pass, ascending. */
  private matches(v: Vector, test: BodyTest): Uint8Array | number[] {
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
    if (v instanceof BinaryVector && v.isString && this.bytes !== null) {
      const rows = asciiFind(v, this.bytes);
      if (!nullHit) return rows;
      for (const i of rows) out[i] = 1;
      for (let i = 0; i < n; i++) if (state[i] === NULL_ROW) out[i] = 1;
      return out;
    }
    if (v instanceof NumberVector && this.equalTo !== undefined) {
      // A number literal's equality: only rows whose doubles equal its double
      // can hold it (equal numbers have equal doubles); those are tested.
      const f64 = v.f64, x = this.equalTo;
      for (let i = 0; i < n; i++) {
        if (state[i] === VALUE) out[i] = f64[i] === x && test(v.body(i)) ? 1 : 0;
        else if (state[i] === NULL_ROW) out[i] = nullHit;
      }
      return out;
    }
    if (v instanceof FixedVector && v.width === 4) {
      // IPv4 addresses: the test once per distinct address (a column has far
      // fewer than rows), not a slice of bytes and a test for every row.
      const data = v.data, seen = new Map<number, number>();
      for (let i = 0; i < n; i++) {
        if (state[i] === NULL_ROW) out[i] = nullHit;
        if (state[i] !== VALUE) continue;
        const p = i * 4;
        const k = (data[p] << 24 | data[p + 1] << 16 | data[p + 2] << 8 | data[p + 3]) >>> 0;
        let hit = seen.get(k);
        if (hit === undefined) seen.set(k, hit = test(v.body(i)) ? 1 : 0);
        out[i] = hit;
      }
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
    return this.entryHits(v.entries, test);
  }

  /** Per entry of a dictionary's entries, whether it passes. */
  private entryHits(entries: Vector, test: BodyTest): Uint8Array {
    let d = this.entryCache.get(entries);
    if (d === undefined) {
      const hits = this.matches(entries, test);
      if (Array.isArray(hits)) {
        d = new Uint8Array(entries.length);
        for (const i of hits) d[i] = 1;
      } else d = hits;
      this.entryCache.set(entries, d);
    }
    return d;
  }

  /** Per element of a list column: whether it passes the test of its type (a list matches by element). */
  private elementMatches(child: Vector): Uint8Array {
    const elemTest = this.walker.tester(child.type);
    if (elemTest === null) return new Uint8Array(child.length);
    const hits = this.matches(child, elemTest);
    if (!Array.isArray(hits)) return hits;
    const dense = new Uint8Array(child.length);
    for (const i of hits) dense[i] = 1;
    return dense;
  }
}

/**
 * The rows of a string column containing an ASCII term (see BytesTerm),
 * ascending. An ASCII term can only match ASCII bytes, so the search runs on
 * the UTF-8 bytes: one of the term's characters (the rarest in a sample of
 * the data, so the search stops least often) is found, in either case for a
 * letter when case is folded, and the term compared around it.
 */
function asciiFind(v: BinaryVector, bytes: BytesTerm): number[] {
  const data = v.data, off = v.offsets, term = bytes.text, n = term.length;
  const want = new Uint8Array(n), fold = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    const c = term.charCodeAt(k);
    const letter = bytes.foldCase && c >= 0x61 && c <= 0x7a;
    want[k] = c;
    fold[k] = letter ? 0x20 : 0;
  }
  const { at, dense } = anchor(data, want, fold);
  const found = new Uint8Array(v.state.length);
  let hits = 0;
  let row = 0;
  /** Tests the term at p (where its anchor character was found). */
  const test = (p: number) => {
    while (off[row + 1] <= p) row++;
    // Rows without a value have no bytes, so a match is always in a value.
    if (found[row] === 1 || p < off[row] || p + n > off[row + 1]) return;
    let k = 0;
    while (k < n && (data[p + k] | fold[k]) === want[k]) k++;
    if (k === n && (bytes.foldCase || !hasNewline(data, off[row], off[row + 1]))) {
      found[row] = 1;
      hits++;
    }
  };
  if (fold[at] === 0 && dense && n > 1) {
    // A byte found every few bytes (digits and dots of an IP, say): four bytes
    // at a time, and the term's next (or previous) byte checked beside each
    // before the term is compared.
    const d = at + 1 < n ? 1 : -1;
    scanWords(data, at, want[at], 0, d, want[at + d], fold[at + d], test);
  } else if (fold[at] === 0) {
    // One byte to find, seldom there: the native search.
    for (let q = data.indexOf(want[at], at); q >= 0; q = data.indexOf(want[at], q + 1)) {
      test(q - at);
    }
  } else {
    // A letter in either case: four bytes at a time, case folded (one pass, not one per case).
    scanWords(data, at, want[at], 0x20, 0, want[at], 0x20, test);
  }
  const rows: number[] = new Array(hits);
  for (let i = 0, h = 0; h < hits; i++) if (found[i] === 1) rows[h++] = i;
  return rows;
}

/**
 * Calls test(q - at) for each q >= at where (data[q] | m) is c and the byte
 * d away, (data[q + d] | f), is e; four bytes at a time, the words without
 * such a byte passed over.
 */
function scanWords(
  data: Uint8Array,
  at: number,
  c: number,
  m: number,
  d: number,
  e: number,
  f: number,
  test: (p: number) => void,
): void {
  const hit = (q: number) => (data[q] | m) === c && (data[q + d] | f) === e;
  const head = Math.min(data.length, (4 - (data.byteOffset & 3)) & 3);
  for (let q = at; q < head; q++) if (hit(q)) test(q - at);
  const words = new Uint32Array(data.buffer, data.byteOffset + head, (data.length - head) >> 2);
  const pattern = Math.imul(c, 0x01010101), fill = Math.imul(m, 0x01010101);
  for (let w = 0; w < words.length; w++) {
    const x = (words[w] | fill) ^ pattern;
    if (((x - 0x01010101) & ~x & 0x80808080) === 0) continue;
    const b = head + (w << 2);
    for (let q = b; q < b + 4; q++) if (q >= at && hit(q)) test(q - at);
  }
  for (let q = Math.max(at, head + words.length * 4); q < data.length; q++) {
    if (hit(q)) test(q - at);
  }
}

/**
 * The position in the term of the character (either case) least frequent in
 * a sample of data, and whether even that one is dense there (one byte in 32
 * or more).
 */
function anchor(
  data: Uint8Array,
  want: Uint8Array,
  fold: Uint8Array,
): { at: number; dense: boolean } {
  if (want.length === 1) return { at: 0, dense: false };
  const end = Math.min(data.length, 1 << 16);
  const counts = new Uint32Array(256);
  for (let i = 0; i < end; i++) counts[data[i] | 0x20]++;
  let best = 0, fewest = Infinity;
  for (let k = 0; k < want.length; k++) {
    const c = fold[k] !== 0 ? counts[want[k]] : counts[want[k] | 0x20];
    if (c < fewest) {
      fewest = c;
      best = k;
    }
  }
  return { at: best, dense: fewest * 32 >= end && end > 0 };
}

/** Whether values holding the ASCII characters of set may contain the term. */
function mayHold(set: string, term: BytesTerm): boolean {
  const text = term.text;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    const upper = term.foldCase && c >= 0x61 && c <= 0x7a;
    if (!asciiSetHas(set, c) && !(upper && asciiSetHas(set, c - 0x20))) return false;
  }
  return true;
}

function hasNewline(data: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (data[i] === 0x0a) return true;
  return false;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}
