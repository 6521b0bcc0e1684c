// The per-key queue behind in-process commits: work under one key runs one
// at a time in order, keys do not wait for each other, failures do not stop
// the queue, and idle keys are forgotten.

import assert from "node:assert/strict";
import { KeyedQueue } from "../../lib/lake/queue.ts";

const tick = () => new Promise((r) => setTimeout(r, 1));

Deno.test("work under one key runs one at a time, in order", async () => {
  const q = new KeyedQueue();
  const log: string[] = [];
  let running = 0;
  const job = (name: string) => async () => {
    running++;
    assert.equal(running, 1);
    log.push(`start ${name}`);
    await tick();
    log.push(`end ${name}`);
    running--;
    return name;
  };
  const results = await Promise.all([
    q.run("a", job("1")),
    q.run("a", job("2")),
    q.run("a", job("3")),
  ]);
  assert.deepEqual(results, ["1", "2", "3"]);
  assert.deepEqual(log, ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  await tick();
  assert.equal(q.size, 0);
});

Deno.test("different keys run side by side; a failure passes to its caller only", async () => {
  const q = new KeyedQueue();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const a = q.run("a", () => held.then(() => "a"));
  const b = await q.run("b", () => Promise.resolve("b"));
  assert.equal(b, "b"); // not behind a
  const failed = q.run("a", () => Promise.reject(new Error("boom")));
  const after = q.run("a", () => Promise.resolve("after"));
  release();
  assert.equal(await a, "a");
  await assert.rejects(failed, /boom/);
  assert.equal(await after, "after");
});
