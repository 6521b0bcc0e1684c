// A query's memory as a whole (spill/memory.ts): what its operators hold
// adds up against the query's limit and the thread's; past it, operators
// that can spill do and the others fail the query with a client's error;
// whatever ends the query, what it held is given back.

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import type { ValueReader } from "../../lib/formats/io.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { runQuery } from "../../lib/query/run.ts";
import {
  MIN_SPILL_BYTES,
  queryMemoryLimit,
  setQueryMemory,
  setThreadMemoryLimit,
  threadMemoryHeld,
} from "../../lib/query/spill/memory.ts";
import { spillFilesCreated } from "../../lib/query/spill/scope.ts";
import type { Batch, Value } from "../../lib/zed/value.ts";
import { values } from "./ops_helpers.ts";

const MiB = 1 << 20;

/** n records of about 100 bytes, in batches of 500. */
function input(n: number): Batch[] {
  const text: string[] = [];
  for (let i = 0; i < n; i++) text.push(`{i:${i},s:"${"x".repeat(60)}${i}"}`);
  const vals: Value[] = values(text.join("\n"));
  const out: Batch[] = [];
  for (let i = 0; i < vals.length; i += 500) out.push(vals.slice(i, i + 500));
  return out;
}

const BIG = input(60_000);

class BatchReader implements ValueReader {
  private i = 0;
  constructor(private readonly batches: Batch[]) {}
  read(): Promise<Batch | null> {
    return Promise.resolve(this.i < this.batches.length ? this.batches[this.i++] : null);
  }
}

/** The query's ZSON output over BIG with the given per-operator budget and query limit. */
async function run(query: string, memoryLimit?: number, memoryBudget?: number): Promise<string> {
  const chunks: string[] = [];
  const dec = new TextDecoder();
  const w = new ZsonWriter((c) => {
    chunks.push(dec.decode(c));
    return Promise.resolve();
  });
  await runQuery(compileQuery(query), [new BatchReader(BIG)], w, { memoryLimit, memoryBudget });
  return chunks.join("");
}

async function assertExceeds(query: string, limit: number, what: string): Promise<void> {
  await assert.rejects(run(query, limit), (e: unknown) => {
    assert.ok(e instanceof LochError, String(e));
    assert.equal(e.kind, "invalid");
    assert.equal(
      e.message,
      `query memory limit exceeded: ${what} would hold more than the query's ${
        Math.round(limit / MiB)
      } MiB (-query-memory)`,
    );
    return true;
  });
  assert.equal(threadMemoryHeld(), 0, "what the failed query held is given back");
}

Deno.test("query memory: operators that cannot spill fail the query past its limit", async () => {
  await assertExceeds("tail 1000000", 2 * MiB, "tail");
  await assertExceeds("top 1000000 i", 2 * MiB, "top");
  // One group, whose collect() grows with the input: a summarize without keys does not spill.
  await assertExceeds("summarize collect(s)", 2 * MiB, "summarize");
  // Within the limit the same queries run.
  assert.match(await run("tail 3 | count()", 2 * MiB), /^{count:3\(uint64\)}/);
  assert.match(await run("summarize c:=collect(s) | yield len(c)", 64 * MiB), /^60000\n/);
  assert.equal(threadMemoryHeld(), 0);
});

Deno.test("query memory: operators that can spill do when the query is over its limit", async () => {
  // A per-operator budget far above the input: only the query's limit makes them spill.
  // (A pass between the sort and the head: right before a short head, a sort holds only its values.)
  const expected = await run("sort -r i | pass | head 2", undefined, 1 << 30);
  for (const q of ["sort -r i | pass | head 2", "fuse | sort -r i | pass | head 2"]) {
    const before = spillFilesCreated();
    assert.equal(await run(q, 2 * MiB, 1 << 30), expected, q);
    assert.ok(spillFilesCreated() > before, `${q} spilled`);
  }
  const before = spillFilesCreated();
  assert.equal(await run("sort -r i | head 2", 2 * MiB, 1 << 30), expected);
  assert.equal(spillFilesCreated(), before, "a sort before a short head holds next to nothing");
  const groups = await run("count() by s | count()", undefined, 1 << 30);
  const beforeGroups = spillFilesCreated();
  assert.equal(await run("count() by s | count()", 2 * MiB, 1 << 30), groups);
  assert.ok(spillFilesCreated() > beforeGroups, "summarize spilled");
  assert.equal(threadMemoryHeld(), 0);
});

Deno.test("query memory: a spillable operator holding next to nothing fails rather than spilling in vain", async () => {
  // The tail holds the query past its limit; the sort after it holds little.
  await assert.rejects(
    run("tail 100000 | sort i", MIN_SPILL_BYTES / 2),
    /query memory limit exceeded: tail/,
  );
  assert.equal(threadMemoryHeld(), 0);
});

Deno.test("query memory: the thread's queries together have a limit too", async () => {
  setThreadMemoryLimit(2 * MiB);
  try {
    await assert.rejects(run("tail 1000000", 1 << 30), (e: unknown) => {
      assert.ok(e instanceof LochError && e.kind === "invalid");
      assert.match(
        e.message,
        /^query memory limit exceeded: tail would take the queries running here past 2 MiB; try again later$/,
      );
      return true;
    });
  } finally {
    setThreadMemoryLimit(undefined);
  }
  assert.equal(threadMemoryHeld(), 0);
});

Deno.test("query memory: the limit comes from -query-memory, else LOCH_QUERY_MEMORY, else a quarter of the heap", () => {
  setQueryMemory("3MiB");
  try {
    assert.equal(queryMemoryLimit(), 3 * MiB);
  } finally {
    setQueryMemory(undefined);
  }
  const saved = Deno.env.get("LOCH_QUERY_MEMORY");
  Deno.env.set("LOCH_QUERY_MEMORY", "5m");
  try {
    assert.equal(queryMemoryLimit(), 5 * MiB);
  } finally {
    if (saved === undefined) Deno.env.delete("LOCH_QUERY_MEMORY");
    else Deno.env.set("LOCH_QUERY_MEMORY", saved);
    setQueryMemory(undefined);
  }
  assert.ok(queryMemoryLimit() >= 256 * MiB);
  assert.throws(() => setQueryMemory("lots"), /invalid memory size: lots/);
});
