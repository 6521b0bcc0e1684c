// Building index objects: one pass over a data object feeds every rule being
// applied to it, and each rule's output becomes one ZNG file, written whole
// or not at all. Field rules are computed directly (the values of one field,
// decoded alone); type and agg rules run their Zed program over the values.

import { invalid } from "../../errors.ts";
import { ZngDecoder } from "../../formats/zng/reader.ts";
import { ZngEncoder } from "../../formats/zng/writer.ts";
import { Collector, compileQuery, type Op } from "../../query/mod.ts";
import { recordOf, type Type } from "../../zed/types.ts";
import type { Value } from "../../zed/value.ts";
import type { KSUID } from "../ksuid.ts";
import type { Lake } from "../lake.ts";
import { type IndexRule, ruleProgram } from "../rules.ts";
import { FieldIndexBuilder } from "./fieldindex.ts";
import { primeFieldIndex } from "./lookup.ts";
import { indexObjectPath, indexObjectSize } from "./store.ts";

/** An index object of a rule for a data object. */
export interface BuiltIndex {
  rule: IndexRule;
  objectId: KSUID;
  size: number;
}

/** Something that turns a data object's values into index records. */
interface Indexer {
  add(batch: Value[]): void;
  records(): Value[];
}

/** A rule's Zed program, fed batch by batch. */
class ProgramIndexer implements Indexer {
  private out = new Collector();
  private head: Op;

  constructor(program: string) {
    const q = compileQuery(program);
    if (q.sources !== null || q.inputs !== 1) {
      throw invalid("an index rule's script reads the data object: it cannot use from or join");
    }
    this.head = q.make(this.out)[0];
  }

  add(batch: Value[]): void {
    if (!this.head.done) this.head.push(batch);
  }

  records(): Value[] {
    this.head.end();
    return this.out.take().flat();
  }
}

function indexerOf(rule: IndexRule): Indexer {
  return rule.kind === "field"
    ? new FieldIndexBuilder(rule.fields[0])
    : new ProgramIndexer(ruleProgram(rule));
}

/**
 * Makes the index objects of the rules for a data object of the pool.
 * Index objects already written (they are immutable, like the rules and
 * data objects they come from) are reused.
 */
export async function buildIndexes(
  lake: Lake,
  poolId: KSUID,
  objectId: KSUID,
  rules: IndexRule[],
): Promise<BuiltIndex[]> {
  const out = new Map<IndexRule, BuiltIndex>();
  const todo: IndexRule[] = [];
  for (const rule of rules) {
    const size = indexObjectSize(lake.catalog, poolId, rule.id, objectId);
    if (
      size !== undefined &&
      (await lake.storage.stat(indexObjectPath(lake, poolId, rule.id, objectId))) !== undefined
    ) {
      out.set(rule, { rule, objectId, size });
    } else {
      todo.push(rule);
    }
  }
  if (todo.length > 0) {
    const indexers = todo.map(indexerOf);
    await readObject(lake, poolId, objectId, projectionFor(todo), (batch) => {
      for (const ix of indexers) ix.add(batch);
    });
    for (let i = 0; i < todo.length; i++) {
      const rule = todo[i], ix = indexers[i];
      const path = indexObjectPath(lake, poolId, rule.id, objectId);
      const size = await writeValues(lake, path, ix.records());
      if (ix instanceof FieldIndexBuilder) primeFieldIndex(path, ix.index());
      out.set(rule, { rule, objectId, size });
    }
  }
  return rules.map((r) => out.get(r)!);
}

/** The top-level fields to decode when only field rules read the values (else all). */
function projectionFor(rules: IndexRule[]): ((t: Type) => ReadonlySet<number>) | undefined {
  if (rules.some((r) => r.kind !== "field")) return undefined;
  const names = new Set(rules.map((r) => r.kind === "field" ? r.fields[0][0] : ""));
  const cache = new Map<Type, ReadonlySet<number>>();
  return (t) => {
    let positions = cache.get(t);
    if (positions === undefined) {
      const s = new Set<number>();
      recordOf(t)?.fields.forEach((f, i) => {
        if (names.has(f.name)) s.add(i);
      });
      positions = s;
      cache.set(t, positions);
    }
    return positions;
  };
}

/** Feeds a data object's values, in order, to fn. */
async function readObject(
  lake: Lake,
  poolId: KSUID,
  objectId: KSUID,
  project: ((t: Type) => ReadonlySet<number>) | undefined,
  fn: (batch: Value[]) => void,
): Promise<void> {
  const decoder = new ZngDecoder(undefined, { project });
  const path = lake.objectPath(poolId, objectId);
  const drain = () => {
    for (;;) {
      const r = decoder.next();
      if (r === null || r === undefined) return;
      if (Array.isArray(r)) fn(r);
    }
  };
  for await (const chunk of lake.storage.readRange(path, 0, Number.MAX_SAFE_INTEGER)) {
    decoder.feed(chunk);
    drain();
  }
  decoder.feed(new Uint8Array(0), true);
  drain();
}

/** Writes values as one ZNG stream (LZ4 frames) to a new file; returns its size. */
async function writeValues(lake: Lake, path: string, values: Value[]): Promise<number> {
  return await lake.storage.createAtomic(path, async (sink) => {
    const enc = new ZngEncoder();
    for (const v of values) {
      enc.write(v);
      if (enc.pending >= 1 << 20) await sink.write(enc.take());
    }
    enc.endStream();
    if (enc.pending > 0) await sink.write(enc.take());
  });
}
