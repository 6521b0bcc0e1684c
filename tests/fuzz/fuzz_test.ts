// Every input decoder is total, and so is the query engine: 2,000 seeded
// mutations of a valid body per format, and 3,000 mutated queries, each
// decode (or run) or fail with a LochError (a 4xx), on a thread that is
// stopped if it does not finish in time. A JSON load from its bytes agrees
// with one from its values on 400 mutated bodies. (bench/fuzz.ts runs longer.)

import assert from "node:assert/strict";
import { FUZZED } from "./formats.ts";
import type { FuzzJob } from "./worker.ts";

const DEADLINE_MS = 60_000;

interface Result {
  cases: number;
  faults: string[];
  slowestMs: number;
}

function onWorker(job: FuzzJob): Promise<Result> {
  const w = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" });
  return new Promise<Result>((resolve, reject) => {
    const timer = setTimeout(() => {
      w.terminate();
      reject(new Error(`${job.target}: did not finish within ${DEADLINE_MS / 1000} s`));
    }, DEADLINE_MS);
    const done = () => {
      clearTimeout(timer);
      w.terminate();
    };
    w.onmessage = (e) => {
      done();
      if (e.data.error !== undefined) reject(new Error(e.data.error));
      else resolve(e.data.result);
    };
    w.onerror = (e) => {
      e.preventDefault();
      done();
      reject(new Error(`${job.target}: ${e.message}`));
    };
    w.postMessage(job);
  });
}

for (const format of Object.keys(FUZZED)) {
  Deno.test(`fuzz: ${format} bodies decode or fail with a format error, in bounded time`, async () => {
    const r = await onWorker({ target: format, seed: 0x5eed + format.length, count: 2000 });
    assert.equal(r.cases, 2000);
    assert.deepEqual(r.faults, [], `${format}: errors that are not format errors`);
    assert.ok(r.slowestMs < 5_000, `${format}: a case took ${r.slowestMs} ms`);
  });
}

Deno.test("fuzz: mutated queries compile and run or fail with a query error, in bounded time", async () => {
  const r = await onWorker({ target: "query", seed: 0x9e7, count: 3000 });
  assert.equal(r.cases, 3000);
  assert.deepEqual(r.faults, [], "errors from inside the engine");
  assert.ok(r.slowestMs < 5_000, `a query took ${r.slowestMs} ms`);
});

Deno.test("fuzz: mutated JSON loads the same from its bytes as from its values", async () => {
  const r = await onWorker({ target: "json-load", seed: 0x10ad, count: 400 });
  assert.equal(r.cases, 400);
  assert.deepEqual(r.faults, [], "loads that differ");
  assert.ok(r.slowestMs < 5_000, `a load took ${r.slowestMs} ms`);
});
