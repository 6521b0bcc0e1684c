// Every input decoder is total: 2,000 seeded mutations of a valid body per
// format each decode or fail with a format error (a 400), on a thread that is
// stopped if it does not finish in time. (bench/fuzz.ts runs longer.)

import assert from "node:assert/strict";
import { FUZZED, type FuzzResult } from "./fuzz.ts";

const CASES = 2000;
const DEADLINE_MS = 60_000;

function fuzzOnWorker(format: string, seed: number): Promise<FuzzResult> {
  const w = new Worker(new URL("./fuzz_worker.ts", import.meta.url).href, { type: "module" });
  return new Promise<FuzzResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      w.terminate();
      reject(new Error(`${format}: decoding did not finish within ${DEADLINE_MS / 1000} s`));
    }, DEADLINE_MS);
    w.onmessage = (e) => {
      clearTimeout(timer);
      w.terminate();
      if (e.data.error !== undefined) reject(new Error(e.data.error));
      else resolve(e.data.result);
    };
    w.onerror = (e) => {
      e.preventDefault();
      clearTimeout(timer);
      w.terminate();
      reject(new Error(`${format}: ${e.message}`));
    };
    w.postMessage({ format, seed, count: CASES });
  });
}

for (const format of Object.keys(FUZZED)) {
  Deno.test(`fuzz: ${format} bodies decode or fail with a format error, in bounded time`, async () => {
    const r = await fuzzOnWorker(format, 0x5eed + format.length);
    assert.equal(r.cases, CASES);
    assert.deepEqual(r.faults, [], `${format}: errors that are not format errors`);
    assert.ok(r.decoded < CASES || format === "line", "the mutations break some bodies");
    assert.ok(r.slowestMs < 5_000, `${format}: a case took ${r.slowestMs} ms`);
  });
}
