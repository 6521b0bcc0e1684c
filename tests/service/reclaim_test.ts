import assert, { strictEqual as assertEquals } from "node:assert";
import { collectGarbage, IdleReclaim } from "../../lib/service/reclaim.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("collectGarbage frees a dropped heap", () => {
  assert(collectGarbage());
  const before = Deno.memoryUsage().heapUsed;
  let held: number[][] | null = [];
  for (let i = 0; i < 2000; i++) held.push(new Array(1000).fill(i));
  assert(Deno.memoryUsage().heapUsed > before + 8_000_000);
  held = null;
  assert(collectGarbage());
  assert(Deno.memoryUsage().heapUsed < before + 4_000_000, "the arrays were collected");
});

Deno.test("IdleReclaim collects once idle, never while work is in progress", async () => {
  const r = new IdleReclaim(30);
  r.begin();
  r.begin();
  r.end();
  await sleep(80);
  assertEquals(r.collections, 0, "one piece of work is still in progress");
  r.end();
  await sleep(80);
  assertEquals(r.collections, 1);
  // Work that starts before the idle time is up puts the collection off.
  r.begin();
  r.end();
  await sleep(10);
  r.begin();
  await sleep(60);
  assertEquals(r.collections, 1);
  r.end();
  r.cancel();
  await sleep(60);
  assertEquals(r.collections, 1, "cancelled");
});

Deno.test("IdleReclaim with a negative idle time never collects", async () => {
  const r = new IdleReclaim(-1);
  r.begin();
  r.end();
  await sleep(30);
  assertEquals(r.collections, 0);
});
