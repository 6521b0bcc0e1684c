// Spilling past the memory budget (lib/query/spill): sort, summarize, fuse and
// join run with a budget of a few KB over inputs many times larger give the
// same output as in memory, and leave no temporary files behind, also when a
// query fails or stops early.

import assert from "node:assert/strict";
import type { ValueReader, ValueWriter } from "../../lib/formats/io.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { runQuery } from "../../lib/query/run.ts";
import { compileFieldPath } from "../../lib/query/expr/access.ts";
import { Sort } from "../../lib/query/ops/sort.ts";
import { Collector } from "../../lib/query/runtime/op.ts";
import {
  memoryBudget,
  parseByteSize,
  setMemoryBudget,
  setSpillDir,
} from "../../lib/query/spill/config.ts";
import { liveSpillFiles, spillFilesCreated } from "../../lib/query/spill/scope.ts";
import { batchSize } from "../../lib/query/spill/size.ts";
import type { Batch, Value } from "../../lib/zed/value.ts";
import { values } from "./ops_helpers.ts";
import { TempLake } from "../cli/loch.ts";

/** A memory file system when there is one: spill files are many and small here. */
function tmpRoot(): string | undefined {
  try {
    return Deno.statSync("/dev/shm").isDirectory ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
}

const dir = Deno.makeTempDirSync({ dir: tmpRoot(), prefix: "loch-spill-test-" });
setSpillDir(dir);
// (Also when a --filter leaves out the last test.)
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

/** A budget far below the inputs below (each is hundreds of KB estimated). */
const TINY = 8 * 1024;

/** Deterministic pseudo-random numbers. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Records with string and int keys (many ties), floats whose sum depends on
 * the order of additions, nulls, missing fields and a few other shapes.
 */
function records(n: number, seed = 1): string {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = `"k${Math.floor(r() * 300)}"`;
    const big = [1e16, 1, -1e16, 0.1, 3.3e-5, 7e15][Math.floor(r() * 6)];
    const x = (r() < 0.5 ? -1 : 1) * big * (1 + Math.floor(r() * 3));
    const n8 = Math.floor(r() * 256) - 128;
    const pad = "x".repeat(Math.floor(r() * 40));
    const flag = r() < 0.8;
    switch (i % 10) {
      case 7:
        out.push(`{i:${i},k:null,x:${x},n:${n8}(int8),flag:${flag},pad:"${pad}"}`);
        break;
      case 8:
        out.push(`{i:${i},x:${x},extra:[${n8},${i}],pad:"${pad}"}`);
        break;
      case 9:
        out.push(`{i:${i},k:${Math.floor(r() * 50)},x:${x},s:{a:"${pad}"}}`);
        break;
      default:
        out.push(`{i:${i},k:${k},x:${x},n:${n8}(int8),flag:${flag},pad:"${pad}"}`);
    }
  }
  return out.join("\n");
}

class ArrayReader implements ValueReader {
  private i = 0;
  constructor(private batches: Batch[], private failAt = -1) {}
  read(): Promise<Batch | null> {
    if (this.i === this.failAt) return Promise.reject(new Error("input failed"));
    return Promise.resolve(this.i < this.batches.length ? this.batches[this.i++] : null);
  }
}

function batches(vals: Value[], size = 500): Batch[] {
  const out: Batch[] = [];
  for (let i = 0; i < vals.length; i += size) out.push(vals.slice(i, i + size));
  return out;
}

interface Ran {
  text: string;
  /** Spill files the run made. */
  files: number;
}

/** Runs a query over values (one input, or two for a query starting with join). */
async function run(
  query: string,
  inputs: Value[][],
  budget?: number,
  batchLen = 500,
): Promise<Ran> {
  const chunks: string[] = [];
  const dec = new TextDecoder();
  const writer = new ZsonWriter((c) => {
    chunks.push(dec.decode(c));
    return Promise.resolve();
  });
  const before = spillFilesCreated();
  const readers = inputs.map((vals) => new ArrayReader(batches(vals, batchLen)));
  await runQuery(compileQuery(query), readers, writer, { memoryBudget: budget });
  return { text: chunks.join(""), files: spillFilesCreated() - before };
}

function assertNoFiles(): void {
  assert.equal(liveSpillFiles(), 0);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), []);
}

/**
 * Runs in memory and with a tiny budget (in batches of batchLen values):
 * same text, spilled files, none left.
 */
async function assertSame(
  query: string,
  inputs: Value[][],
  minFiles = 2,
  batchLen = 500,
): Promise<string> {
  const mem = await run(query, inputs);
  assert.equal(mem.files, 0, `${query}: spilled with the default budget`);
  const spilled = await run(query, inputs, TINY, batchLen);
  assert.ok(spilled.files >= minFiles, `${query}: ${spilled.files} spill files`);
  assert.equal(spilled.text, mem.text, query);
  assert.ok(mem.text.length > 0);
  assertNoFiles();
  return mem.text;
}

function estimate(vals: Value[]): number {
  return batches(vals).reduce((s, b) => s + batchSize(b), 0);
}

const DATA = values(records(4000));

Deno.test("spill: the test inputs are far larger than the tiny budget", () => {
  assert.ok(estimate(DATA) > 40 * TINY, `estimate ${estimate(DATA)}`);
});

Deno.test("spill: sort, stable, every direction and null placement", async () => {
  for (
    const q of [
      "sort k",
      "sort -r k",
      "sort k, -x",
      "sort -r x, i",
      "sort -nulls first k",
      "sort -r -nulls first n",
      "sort flag",
      "sort -r flag",
      "sort", // the key guessed from the first value
      "sort len(pad)", // many ties: input order kept across runs
      "sort this",
    ]
  ) {
    await assertSame(q, [DATA]);
  }
});

Deno.test("spill: sort by int8 keys, then keys of other types, as in memory", async () => {
  // The first runs hold only int8 keys (compared as numbers), the last ones
  // strings: the whole input is then in the general order, where int8 compares
  // byte-wise, so the first runs are sorted again.
  const ints = values(
    Array.from({ length: 3000 }, (_, i) => `{n:${((i * 37) % 256) - 128}(int8),i:${i}}`).join("\n"),
  );
  const strs = values(Array.from({ length: 500 }, (_, i) => `{n:"s${i % 7}",i:${i}}`).join("\n"));
  const mixed = await assertSame("sort n", [[...ints, ...strs]]);
  // The int8 keys come out in another order than when they are all there is.
  const int8s = (text: string) => text.split("\n").filter((l) => l.includes("(int8)"));
  assert.notDeepEqual(int8s(mixed), int8s((await run("sort n", [ints])).text));
  await assertSame("sort -r n", [[...ints, ...strs]]);
  // All int8: compared as numbers throughout.
  const text = await assertSame("sort n", [ints]);
  assert.ok(text.startsWith("{n:-128(int8)"), text.slice(0, 40));
});

Deno.test("spill: sort | head stops early and removes its runs", async () => {
  // (A pass between them: a sort right before a short head holds only the head's values.)
  await assertSame("sort x | pass | head 3", [DATA]);
  await assertSame("sort -r i | pass | head 1", [DATA]);
  assert.equal((await run("sort x | head 3", [DATA], TINY)).files, 0);
  assert.equal(
    (await run("sort x | head 3", [DATA], TINY)).text,
    (await run("sort x | pass | head 3", [DATA])).text,
  );
});

Deno.test("spill: count() by and sum() by come out sorted by the keys, with in-memory values", async () => {
  // Spilled output is in key order (the reference's order when it spills);
  // in memory it is first-seen order.
  for (
    const [q, keys] of [
      ["count() by k", "k"],
      ["count() by k, flag", "k, flag"],
      ["s:=sum(x) by k", "k"],
      ["c:=count() where flag, s:=sum(x) where i%3==0 by k", "k"],
      ["count() by n", "n"],
    ]
  ) {
    const mem = await run(`${q} | sort ${keys}`, [DATA]);
    const spilled = await run(q, [DATA], TINY);
    assert.ok(spilled.files >= 2, `${q}: ${spilled.files}`);
    assert.equal(spilled.text, mem.text, q);
    assertNoFiles();
  }
});

Deno.test("spill: every aggregate gives its in-memory result", async () => {
  const aggs = [
    "c:=count()",
    "cx:=count(x)",
    "s:=sum(x)",
    "a:=avg(x)",
    "mn:=min(x)",
    "mx:=max(i)",
    "col:=collect(i)",
    "u:=union(n)",
    "d:=dcount(n)",
    "an:=any(pad)",
    "f:=fuse(this)",
    "m:=map(|{pad:i}|)",
    "b:=and(flag)",
    "o:=or(flag)",
  ];
  // All at once (some do not merge saved states: raw rows after the first spill) ...
  await assertSame(`${aggs.join(", ")} by k | sort k`, [DATA]);
  // ... and the mergeable ones alone (every spill a table).
  await assertSame(
    "c:=count(), col:=collect(i), u:=union(n), d:=dcount(n), an:=any(pad), f:=fuse(this), " +
      "m:=map(|{pad:i}|), b:=and(flag), o:=or(flag) by k | sort k",
    [DATA],
  );
  // Grouped by the value itself: as many groups as values.
  await assertSame("count() by v:=this | sort v", [DATA]);
});

Deno.test("spill: float sums stay exact (order-dependent rounding)", async () => {
  const q = "s:=sum(x), a:=avg(x) by k | sort k";
  const text = await assertSame(q, [DATA]);
  // The inputs make sums whose rounding depends on the order of additions.
  assert.notEqual((await run(q, [DATA.toReversed()])).text, text);
});

Deno.test("spill: many runs are merged in stages, keeping the order", async () => {
  // A budget of 2KB and batches of 10 values: hundreds of runs, several
  // times the fan-in of 64.
  for (
    const q of [
      "sort k, len(pad)",
      "count() by k | sort k",
      "s:=sum(x), c:=collect(i) by k | sort k",
    ]
  ) {
    const mem = await run(q, [DATA]);
    const spilled = await run(q, [DATA], 2048, 10);
    assert.ok(spilled.files > 3 * 64, `${q}: ${spilled.files}`);
    assert.equal(spilled.text, mem.text, q);
    assertNoFiles();
  }
});

Deno.test("spill: fuse keeps input order", async () => {
  // (One file: the values held are appended to it at each spill.)
  await assertSame("fuse", [DATA], 1);
  // Before a head it holds only the head's values: nothing to spill.
  await assertSame("fuse | head 5", [DATA], 0);
  await assertSame("fuse | tail 5", [DATA], 1);
});

Deno.test("spill: join holds its inputs in files", async () => {
  const right = values(
    Array.from(
      { length: 1500 },
      (_, i) => `{k:"k${(i * 7) % 350}",r:${i},pad:"${"y".repeat(i % 30)}"}`,
    )
      .join("\n"),
  );
  for (const style of ["", "inner", "left", "right", "anti"]) {
    await assertSame(`${style} join on k=k r:=r | sort this`, [DATA, right]);
  }
  // The fork form: both legs of one input.
  await assertSame(
    "fork (=> sort k => sort k | head 400) | join on k=k j:=i | count()",
    [DATA],
  );
});

Deno.test("spill: uniq holds only the previous value and never spills", async () => {
  const sorted = values((await run("sort k | cut k", [DATA])).text);
  for (const q of ["uniq", "uniq -c"]) {
    const mem = await run(q, [sorted]);
    const small = await run(q, [sorted], TINY);
    assert.equal(small.text, mem.text);
    // (Whatever spills is the output buffer of the run, not uniq.)
    assert.ok(mem.text.split("\n").length > 300);
  }
  assertNoFiles();
});

Deno.test("spill: files are removed when the input fails", async () => {
  for (const q of ["sort k", "count() by k", "s:=sum(x) by k", "fuse"]) {
    const before = spillFilesCreated();
    const writer: ValueWriter = { write: () => Promise.resolve(), end: () => Promise.resolve() };
    const reader = new ArrayReader(batches(DATA), 6);
    await assert.rejects(
      () => runQuery(compileQuery(q), [reader], writer, { memoryBudget: TINY }),
      /input failed/,
    );
    assert.ok(spillFilesCreated() - before >= 1, q);
    assertNoFiles();
  }
});

Deno.test("spill: files are removed when writing the output fails", async () => {
  for (const q of ["sort k", "count() by v:=this", "fuse", "join on k=k"]) {
    let writes = 0;
    const writer: ValueWriter = {
      write: () => ++writes > 1 ? Promise.reject(new Error("client gone")) : Promise.resolve(),
      end: () => Promise.resolve(),
    };
    const inputs = q.startsWith("join") ? [DATA, DATA] : [DATA];
    const readers = inputs.map((vals) => new ArrayReader(batches(vals)));
    await assert.rejects(
      () => runQuery(compileQuery(q), readers, writer, { memoryBudget: TINY }),
      /client gone/,
    );
    assertNoFiles();
  }
});

Deno.test("spill: an operator outside a query run cleans up after itself", () => {
  const prev = memoryBudget();
  setMemoryBudget(TINY);
  try {
    const before = spillFilesCreated();
    const out = new Collector();
    const sort = new Sort(out, [compileFieldPath(["i"])], { reverse: true, nullsFirst: false });
    for (const b of batches(DATA)) sort.push(b);
    assert.ok(spillFilesCreated() - before >= 2);
    sort.end();
    const got = out.take().flat().map((v) => v.body as unknown[]);
    assert.equal(got.length, DATA.length);
    assert.equal(got[0][0], DATA.length - 1);
    assertNoFiles();
  } finally {
    setMemoryBudget(prev);
  }
});

Deno.test("spill: byte sizes", () => {
  assert.equal(parseByteSize("4096"), 4096);
  assert.equal(parseByteSize("64KB"), 64 * 1024);
  assert.equal(parseByteSize("64kib"), 64 * 1024);
  assert.equal(parseByteSize("1.5MiB"), 1.5 * 1024 * 1024);
  assert.equal(parseByteSize("2g"), 2 * 1024 ** 3);
  assert.equal(parseByteSize(" 256 MB "), 256 * 1024 ** 2);
  for (const bad of ["", "abc", "0", "-1", "12XB", "1e6"]) {
    assert.throws(() => parseByteSize(bad), /invalid memory size/, bad);
  }
  const prev = memoryBudget();
  setMemoryBudget("1");
  assert.equal(memoryBudget(), 1024); // the floor
  setMemoryBudget(prev);
  assert.equal(memoryBudget(), prev);
});

// The "done when": sort and count() by over a pool holding more data
// than the configured budget, through the command line (-memmax and
// LOCH_MEMORY_BUDGET), give the in-memory answer.
Deno.test("spill: loch query -memmax: sort and count() by over a pool larger than the budget", async () => {
  const lake = await TempLake.make();
  const spillDir = await Deno.makeTempDir({ dir: tmpRoot(), prefix: "loch-spill-cli-" });
  try {
    const text = records(3000, 7);
    const file = await lake.file("data.zson", text);
    assert.equal((await lake.run(["create", "-orderby", "i", "p"])).code, 0);
    assert.equal((await lake.run(["load", "-use", "p", file])).code, 0);
    const env = { LOCH_SPILL_DIR: spillDir };
    const data = values(text);
    const cases = [
      ["from p | sort k, -x", "sort k, -x"],
      ["from p | count() by k", "count() by k | sort k"],
      ["from p | count() by k, flag", "count() by k, flag | sort k, flag"],
    ];
    for (const [q, inMemory] of cases) {
      const expected = (await run(inMemory, [data])).text;
      assert.ok(expected.split("\n").length > 300);
      const small = await lake.run(["query", "-memmax", "16KB", "-z", q], { env });
      assert.equal(small.code, 0, small.stderr);
      assert.equal(small.stdout, expected, q);
      if (q.includes("count")) {
        const viaEnv = await lake.run(["query", "-z", q], {
          env: { ...env, LOCH_MEMORY_BUDGET: "16k" },
        });
        assert.equal(viaEnv.stdout, expected, q);
      }
    }
    // It does spill: with nowhere to put the files, it fails.
    const nowhere = await lake.run(["query", "-memmax", "16KB", "-z", cases[1][0]], {
      env: { LOCH_SPILL_DIR: `${spillDir}/missing` },
    });
    assert.notEqual(nowhere.code, 0);
    assert.match(nowhere.stderr, /No such file|not found/i);
    // The data is well over the budget.
    assert.ok(estimate(values(text)) > 10 * 16 * 1024);
    assert.deepEqual([...Deno.readDirSync(spillDir)], []);
    const bad = await lake.run(["query", "-memmax", "lots", "-z", "from p"], { env });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /invalid memory size: lots/);
  } finally {
    await lake.remove();
    await Deno.remove(spillDir, { recursive: true });
  }
});

Deno.test("spill: no file is left in the spill directory", () => {
  assertNoFiles();
});
