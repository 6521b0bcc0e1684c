// The value walk behind searches (Zed's Value.Walk): a value is visited, then
// every record field, array/set element, map key and value, union payload and
// error payload below it. A search decides per visited type what a visit
// checks; SearchWalker compiles that once per type into a test of bodies that
// descends only into parts whose types can match, so the per-value work is a
// few indexed loads and the leaf checks.

import { Kind, type NamedType, type RecordType, type Type, typeUnder } from "../../zed/types.ts";
import type { Body, UnionBody } from "../../zed/value.ts";

/** A test of the body of a value of a known type. */
export type BodyTest = (body: Body) => boolean;

/** The test that holds for every body (e.g. a record type whose field names match). */
export const ALWAYS: BodyTest = () => true;

/**
 * What visiting one value of type t checks, apart from its children: a body
 * test, ALWAYS, or null when the visit alone can never match. Named types are
 * never passed (a visit sees through names, as Go's type IDs do).
 */
export type Visit = (t: Exclude<Type, NamedType>) => BodyTest | null;

export class SearchWalker {
  private readonly cache = new Map<Type, BodyTest | null>();
  private lastType: Type | undefined = undefined;
  private lastTest: BodyTest | null = null;

  constructor(private readonly visit: Visit) {}

  /** The test for values of type t (the value and everything below it), or null if none can match. */
  tester(t: Type): BodyTest | null {
    // Consecutive values mostly share a type.
    if (t === this.lastType) return this.lastTest;
    let f = this.cache.get(t);
    if (f === undefined) {
      f = t.kind === Kind.Named ? this.tester(typeUnder(t)) : this.build(t);
      this.cache.set(t, f);
    }
    this.lastType = t;
    this.lastTest = f;
    return f;
  }

  private build(t: Exclude<Type, NamedType>): BodyTest | null {
    const self = this.visit(t);
    if (self === ALWAYS) return ALWAYS;
    const below = this.children(t);
    if (self === null) return below;
    if (below === null) return self;
    return (body) => self(body) || below(body);
  }

  private children(t: Exclude<Type, NamedType>): BodyTest | null {
    switch (t.kind) {
      case Kind.Record:
        return this.record(t);
      case Kind.Array:
      case Kind.Set:
        return elements(this.tester(t.elem));
      case Kind.Map:
        return this.map(this.tester(t.key), this.tester(t.value));
      case Kind.Union: {
        const tests = t.types.map((m) => this.tester(m));
        if (tests.every((f) => f === null)) return null;
        return (body) => {
          if (body === null) return false;
          const u = body as UnionBody;
          const f = tests[u.tag];
          return f !== null && f(u.body);
        };
      }
      case Kind.Error:
        return this.tester(t.inner);
    }
    return null;
  }

  private record(t: RecordType): BodyTest | null {
    const index: number[] = [];
    const tests: BodyTest[] = [];
    for (let i = 0; i < t.fields.length; i++) {
      const f = this.tester(t.fields[i].type);
      if (f === null) continue;
      // Every field of a present record is visited.
      if (f === ALWAYS) return (body) => body !== null;
      index.push(i);
      tests.push(f);
    }
    if (index.length === 0) return null;
    if (index.length === 1) {
      const i0 = index[0], f0 = tests[0];
      return (body) => body !== null && f0((body as Body[])[i0]);
    }
    // The most common test (typically the string test) gets a loop of its own,
    // keeping that call site monomorphic.
    const common = mostCommon(tests);
    const same = index.filter((_, k) => tests[k] === common);
    const otherIndex = index.filter((_, k) => tests[k] !== common);
    const others = tests.filter((f) => f !== common);
    const ns = same.length, no = others.length;
    return (body) => {
      if (body === null) return false;
      const b = body as Body[];
      for (let k = 0; k < ns; k++) if (common(b[same[k]])) return true;
      for (let k = 0; k < no; k++) if (others[k](b[otherIndex[k]])) return true;
      return false;
    };
  }

  private map(key: BodyTest | null, value: BodyTest | null): BodyTest | null {
    if (key === null && value === null) return null;
    if (key === ALWAYS || value === ALWAYS) {
      return (body) => body !== null && (body as Body[]).length > 0;
    }
    const k = key ?? never, v = value ?? never;
    return (body) => {
      if (body === null) return false;
      const b = body as Body[];
      for (let i = 0; i < b.length; i += 2) if (k(b[i]) || v(b[i + 1])) return true;
      return false;
    };
  }
}

const never: BodyTest = () => false;

function mostCommon(tests: BodyTest[]): BodyTest {
  const counts = new Map<BodyTest, number>();
  let best = tests[0], bestCount = 0;
  for (const f of tests) {
    const c = (counts.get(f) ?? 0) + 1;
    counts.set(f, c);
    if (c > bestCount) {
      best = f;
      bestCount = c;
    }
  }
  return best;
}

function elements(elem: BodyTest | null): BodyTest | null {
  if (elem === null) return null;
  if (elem === ALWAYS) return (body) => body !== null && (body as Body[]).length > 0;
  return (body) => {
    if (body === null) return false;
    const b = body as Body[];
    for (let i = 0; i < b.length; i++) if (elem(b[i])) return true;
    return false;
  };
}

const pathCache = new WeakMap<RecordType, readonly string[]>();

/**
 * The dotted paths of a record type's leaf fields (`a.b` for `{a:{b:1}}`);
 * fields holding non-empty records are descended into, nothing else is.
 */
export function fieldPaths(t: RecordType): readonly string[] {
  let paths = pathCache.get(t);
  if (paths === undefined) {
    const out: string[] = [];
    collectPaths(t, "", out);
    paths = out;
    pathCache.set(t, paths);
  }
  return paths;
}

function collectPaths(t: RecordType, prefix: string, out: string[]): void {
  for (const f of t.fields) {
    const name = prefix + f.name;
    const u = typeUnder(f.type);
    if (u.kind === Kind.Record && u.fields.length > 0) collectPaths(u, name + ".", out);
    else out.push(name);
  }
}
