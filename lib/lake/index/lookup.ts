// Answering a filter's terms (terms.ts) from the field indexes of a data
// object: which of its records may pass, as a range of record positions, or
// null when the indexes prove none can. Index objects are immutable, so
// loaded ones are kept (up to a bound) and shared by every query.

import { LruMap } from "../../lru.ts";
import { ZngDecoder } from "../../formats/zng/reader.ts";
import type { Value } from "../../zed/value.ts";
import type { KSUID } from "../ksuid.ts";
import type { Lake } from "../lake.ts";
import type { IndexRule } from "../rules.ts";
import { FieldIndex, type RecordRange } from "./fieldindex.ts";
import type { IndexTerms } from "./terms.ts";
import { indexObjectPath } from "./store.ts";

const cache = new LruMap<string, Promise<FieldIndex | undefined>>(1024);

/** Keeps a field index just built, so the first query need not read it back. */
export function primeFieldIndex(path: string, index: FieldIndex): void {
  cache.set(path, Promise.resolve(index));
}

/** Forgets cached indexes (tests; and files that are removed). */
export function forgetFieldIndexes(): void {
  cache.clear();
}

/** The field index at path; undefined when it cannot be read (then it is not used). */
function loadFieldIndex(
  lake: Lake,
  path: string,
  field: string[],
): Promise<FieldIndex | undefined> {
  let p = cache.get(path);
  if (p === undefined) {
    p = readFieldIndex(lake, path, field).catch(() => undefined);
    cache.set(path, p);
  }
  return p;
}

async function readFieldIndex(lake: Lake, path: string, field: string[]): Promise<FieldIndex> {
  const decoder = new ZngDecoder();
  for await (const chunk of lake.storage.readRange(path, 0, Number.MAX_SAFE_INTEGER)) {
    decoder.feed(chunk);
  }
  decoder.feed(new Uint8Array(0), true);
  const values: Value[] = [];
  for (;;) {
    const r = decoder.next();
    if (r === null || r === undefined) break;
    if (Array.isArray(r)) { for (const v of r) values.push(v); }
  }
  return FieldIndex.fromRecords(field, values);
}

/**
 * What the indexes of one data object say about a filter's terms: a range
 * of record positions that holds every record that may pass, null when no
 * record can, undefined when they say nothing (a term's field has no index).
 */
export async function evaluateTerms(
  lake: Lake,
  poolId: KSUID,
  objectId: KSUID,
  rules: IndexRule[],
  terms: IndexTerms,
): Promise<RecordRange | null | undefined> {
  switch (terms.kind) {
    case "field": {
      const rule = rules.find((r) => r.kind === "field" && samePath(r.fields[0], terms.path));
      if (rule === undefined) return undefined;
      const path = indexObjectPath(lake, poolId, rule.id, objectId);
      const index = await loadFieldIndex(lake, path, terms.path);
      return index === undefined ? undefined : index.lookup(terms);
    }
    case "and": {
      const [a, b] = await Promise.all([
        evaluateTerms(lake, poolId, objectId, rules, terms.lhs),
        evaluateTerms(lake, poolId, objectId, rules, terms.rhs),
      ]);
      if (a === null || b === null) return null;
      if (a === undefined || b === undefined) return a ?? b;
      const lo = Math.max(a[0], b[0]), hi = Math.min(a[1], b[1]);
      return lo > hi ? null : [lo, hi];
    }
    case "or": {
      const [a, b] = await Promise.all([
        evaluateTerms(lake, poolId, objectId, rules, terms.lhs),
        evaluateTerms(lake, poolId, objectId, rules, terms.rhs),
      ]);
      if (a === undefined || b === undefined) return undefined;
      if (a === null || b === null) return a ?? b;
      return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
    }
  }
}

function samePath(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}
