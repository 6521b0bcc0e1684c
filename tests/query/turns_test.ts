// Taking turns on the event loop (lib/query/runtime/turns.ts, work.ts,
// sliced-sort.ts): operators built to pause do their end-of-input work in
// slices, letting timers (a server's other requests) run and the runner
// write what they emitted before they go on; built otherwise (lateral
// scopes, direct use) they end synchronously. Either way the output is the
// same.

import assert from "node:assert/strict";
import type { ValueReader, ValueWriter } from "../../lib/formats/io.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { compileFieldPath } from "../../lib/query/expr/access.ts";
import { Sort } from "../../lib/query/ops/sort.ts";
import { Summarize } from "../../lib/query/ops/summarize.ts";
import { lookupAggregate } from "../../lib/query/aggregates/registry.ts";
import "../../lib/query/aggregates/mod.ts";
import { runQuery } from "../../lib/query/run.ts";
import { Collector, type Op } from "../../lib/query/runtime/op.ts";
import { SORT_CHUNK, sortSliced } from "../../lib/query/runtime/sliced-sort.ts";
import {
  buildPausing,
  CONTENDED_SLICE_MS,
  currentSliceMs,
  enterWork,
  maybeYield,
  type Pause,
  SHARED_SLICE_MS,
  shareEventLoop,
  sliceUsed,
} from "../../lib/query/runtime/turns.ts";
import { finishSync } from "../../lib/query/runtime/work.ts";
import { liveSpillFiles } from "../../lib/query/spill/scope.ts";
import { zctx } from "../../lib/zed/context.ts";
import { TypeInt64, TypeString } from "../../lib/zed/types.ts";
import { type Batch, Value } from "../../lib/zed/value.ts";
import { lines } from "./helpers.ts";

/** Deterministic pseudo-random numbers. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const KI = zctx.lookupRecordOf(["k", "i"], [TypeString, TypeInt64]);

/** n records {k, i}: k one of `keys` strings (many ties), i the position. */
function records(n: number, keys: number, seed = 7): Value[] {
  const r = rng(seed);
  const out: Value[] = [];
  for (let i = 0; i < n; i++) out.push(new Value(KI, [`key${Math.floor(r() * keys)}`, i]));
  return out;
}

function batches(vals: Value[], size = 1000): Batch[] {
  const out: Batch[] = [];
  for (let i = 0; i < vals.length; i += size) out.push(vals.slice(i, i + size));
  return out;
}

/** Uses up the current slice, so the next pause point yields. */
function spendSlice(): void {
  const t0 = performance.now();
  while (performance.now() - t0 <= currentSliceMs() + 1) {
    // busy
  }
}

/** Runs fn with the event loop shared (as the server runs queries), then stops sharing. */
function sharedLoop(fn: () => void | Promise<void>): () => Promise<void> {
  return async () => {
    const release = await shareEventLoop();
    try {
      await fn();
    } finally {
      await release();
    }
  };
}

/** The values an operator made by make emits for input, built and ended synchronously. */
function runSync(make: (next: Op) => Op, input: Value[]): Value[] {
  const out = new Collector();
  const op = make(out);
  for (const b of batches(input)) op.push(b);
  assert.equal(op.end(), undefined, "built outside buildPausing, it ends synchronously");
  return out.take().flat();
}

const sortByK = (next: Op) => new Sort(next, [compileFieldPath(["k"])], DEFAULTS);
const DEFAULTS = { reverse: false, nullsFirst: false };

Deno.test(
  "sortSliced: the same as a stable Array.prototype.sort",
  sharedLoop(() => {
    interface Item {
      k: number;
      i: number;
    }
    const cmp = (a: Item, b: Item) => a.k - b.k;
    const r = rng(3);
    const sizes = [0, 1, 10, SORT_CHUNK, SORT_CHUNK + 1, 3 * SORT_CHUNK + 17, 9 * SORT_CHUNK + 5];
    for (const n of sizes) {
      const orders: [string, (i: number) => number][] = [
        ["random with ties", () => Math.floor(r() * 50)],
        ["random", () => r()],
        ["ascending", (i) => i],
        ["descending", (i) => -i],
        ["descending with ties", (i) => -Math.floor(i / 3)],
        ["all equal", () => 1],
        ["sawtooth", (i) => i % 1000],
      ];
      for (const [name, key] of orders) {
        const items: Item[] = [];
        for (let i = 0; i < n; i++) items.push({ k: key(i), i });
        const want = items.slice().sort(cmp);
        const got = finishSync(sortSliced(items.slice(), cmp));
        assert.deepEqual(got, want, `${name}, n=${n}`);
      }
    }
  }),
);

Deno.test(
  "sortSliced: pauses when the slice is used up",
  sharedLoop(() => {
    const items: number[] = [];
    const r = rng(5);
    for (let i = 0; i < 4 * SORT_CHUNK; i++) items.push(r());
    const work = sortSliced(items, (a, b) => a - b);
    spendSlice();
    // Sorting a chunk is one step; with the slice used up, the work pauses right after the first.
    assert.equal(work.next().done, false);
  }),
);

Deno.test(
  "sort: end() yields the event loop and emits a batch per pause",
  sharedLoop(async () => {
    const input = records(6 * SORT_CHUNK, 500);
    const want = runSync(sortByK, input);
    assert.equal(want.length, input.length);

    const out = new Collector();
    let pauses = 0, most = 0;
    const emitted: Value[] = [];
    // As the runner's pause does: takes what was emitted, then maybe yields.
    const pause: Pause = async () => {
      pauses++;
      const held = out.take();
      most = Math.max(most, held.length);
      for (const b of held) emitted.push(...b);
      await maybeYield();
    };
    const sort = buildPausing(pause, () => sortByK(out));
    for (const b of batches(input)) sort.push(b);

    let fired = false;
    setTimeout(() => fired = true, 0);
    spendSlice();
    const ended = sort.end();
    assert.ok(ended instanceof Promise, "built to pause, end() returns a promise");
    assert.equal(fired, false);
    let firedBeforeOutput: boolean | undefined;
    const firstPush = out.push.bind(out);
    out.push = (b: Batch) => {
      firedBeforeOutput ??= fired;
      firstPush(b);
    };
    await ended;
    assert.equal(firedBeforeOutput, true, "the timer ran before the sort emitted anything");
    for (const b of out.take()) emitted.push(...b);
    assert.ok(pauses >= input.length / 1000, `paused ${pauses} times`);
    assert.equal(most, 1, "a batch at most is held between pauses");
    assert.deepEqual(emitted, want);
  }),
);

Deno.test(
  "sort: a query run lets a timer set at the end of its input run before output",
  sharedLoop(async () => {
    const input = records(5 * SORT_CHUNK, 1000, 11);
    const bs = batches(input);
    let fired = false;
    const reader: ValueReader = {
      read() {
        const b = bs.shift();
        if (b !== undefined) return Promise.resolve(b);
        // The input ends: end() comes next, with the slice used up.
        setTimeout(() => fired = true, 0);
        spendSlice();
        return Promise.resolve(null);
      },
    };
    const writes: boolean[] = [];
    const got: Value[] = [];
    const writer: ValueWriter = {
      write(b) {
        writes.push(fired);
        got.push(...b);
        return Promise.resolve();
      },
      end: () => Promise.resolve(),
    };
    await runQuery(compileQuery("sort k"), [reader], writer);
    assert.ok(writes.length >= input.length / 1000);
    assert.ok(writes.every((f) => f), "the timer ran before the first write");
    assert.deepEqual(got, runSync(sortByK, input));
  }),
);

Deno.test("summarize: emits its groups in slices with the same output", async () => {
  const input = records(30_000, 20_000, 13);
  const count = lookupAggregate("count")!;
  const make = (next: Op) =>
    new Summarize(next, [{ path: ["k"], expr: compileFieldPath(["k"]) }], [{
      path: ["n"],
      def: count,
    }]);
  const want = runSync(make, input);
  const out = new Collector();
  let pauses = 0;
  const summarize = buildPausing(async () => {
    pauses++;
    await Promise.resolve();
  }, () => make(out));
  for (const b of batches(input)) summarize.push(b);
  await summarize.end();
  assert.ok(pauses >= Math.floor(want.length / 1000), `paused ${pauses} times`);
  assert.deepEqual(out.take().flat(), want);
});

Deno.test(
  "an abort while a sort ends stops the query and removes its spill files",
  sharedLoop(async () => {
    const input = records(5 * SORT_CHUNK, 1000, 17);
    const bs = batches(input);
    const ctl = new AbortController();
    const reader: ValueReader = {
      read() {
        const b = bs.shift();
        if (b === undefined) ctl.abort(); // gone just as the sort starts its end
        return Promise.resolve(b ?? null);
      },
    };
    let writes = 0;
    const writer: ValueWriter = {
      write() {
        writes++;
        return Promise.resolve();
      },
      end: () => Promise.resolve(),
    };
    await assert.rejects(
      () =>
        runQuery(compileQuery("sort k"), [reader], writer, {
          signal: ctl.signal,
          memoryBudget: 64 * 1024,
        }),
      (e: Error) => e.name === "AbortError",
    );
    assert.equal(writes, 0);
    assert.equal(liveSpillFiles(), 0);
  }),
);

Deno.test("lateral scopes end synchronously inside a paused query", async () => {
  // Arrays longer than a sort chunk, sorted per value by operators and by an expression.
  const n = SORT_CHUNK + 100;
  const arr = Array.from({ length: n }, (_, i) => (i * 7919) % n).join(",");
  const input = `[${arr}]\n[3,1,2]`;
  assert.deepEqual(await lines("over this => ( sort -r this | head 2 )", input), [
    String(n - 1),
    String(n - 2),
    "3",
    "2",
  ]);
  assert.deepEqual(
    await lines("yield (over this | sort this | tail 2)", input),
    [`[${n - 2},${n - 1}]`, "[2,3]"],
  );
  assert.deepEqual(await lines("over this => ( count() )", input), [
    `{count:${n}(uint64)}`,
    "{count:3(uint64)}",
  ]);
});

Deno.test("a process that does not share its loop never yields", async () => {
  assert.equal(currentSliceMs(), Infinity);
  let fired = false;
  setTimeout(() => fired = true, 0);
  const t0 = performance.now();
  while (performance.now() - t0 < 15) {
    // busy past any slice
  }
  assert.equal(sliceUsed(), false);
  await maybeYield();
  assert.equal(fired, false, "no turn was given");
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(fired, true);
});

Deno.test("sharing the loop: slices while any sharer remains, none after the last", async () => {
  const a = await shareEventLoop();
  const b = await shareEventLoop();
  assert.ok(Number.isFinite(currentSliceMs()));
  await a();
  await a(); // a second release by the same sharer counts once
  assert.ok(Number.isFinite(currentSliceMs()));
  await b();
  assert.equal(currentSliceMs(), Infinity);
});

Deno.test("work arriving at an idle thread starts a fresh slice", async () => {
  const release = await shareEventLoop();
  try {
    const first = enterWork();
    // The thread then sits idle well past a slice...
    first();
    await new Promise((r) => setTimeout(r, 3 * SHARED_SLICE_MS + 5));
    // ...and new work has its whole slice (it would be given a turn at once otherwise).
    const next = enterWork();
    assert.equal(sliceUsed(), false);
    // Work joining work in flight does not restart the slice.
    const t0 = performance.now();
    while (performance.now() - t0 < CONTENDED_SLICE_MS + 1) {
      // busy past the contended slice
    }
    const other = enterWork();
    assert.equal(sliceUsed(), true);
    other();
    next();
  } finally {
    await release();
  }
});

Deno.test("while other work is in flight, slices are short", async () => {
  const release = await shareEventLoop();
  try {
    assert.equal(currentSliceMs(), SHARED_SLICE_MS);
    const query = enterWork();
    assert.equal(currentSliceMs(), SHARED_SLICE_MS, "one piece of work has the loop to itself");
    const request = enterWork();
    assert.equal(currentSliceMs(), CONTENDED_SLICE_MS);
    request();
    request(); // leaving twice counts once
    assert.equal(currentSliceMs(), SHARED_SLICE_MS);
    query();
  } finally {
    await release();
  }
  const alone = enterWork(), other = enterWork();
  assert.equal(currentSliceMs(), Infinity, "without sharing, no slices at all");
  alone();
  other();
});
