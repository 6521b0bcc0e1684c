// loch serve's warm-up runs queries over a throwaway lake and leaves nothing
// behind; the metadata preload reads every branch tip's objects.

import assert from "node:assert/strict";
import { dirname } from "node:path";
import { preloadMetadata, warmUp } from "../../lib/lake/warmup.ts";
import { createBranch, findBranch } from "../../lib/lake/branches.ts";
import { keyedPool, loadText, withLake } from "./helpers.ts";

/** This process's warm-up directories (others' come and go as their servers start). */
async function warmupDirs(): Promise<string[]> {
  const probe = await Deno.makeTempDir({ prefix: "loch-probe-" });
  await Deno.remove(probe);
  const tmp = dirname(probe);
  const out: string[] = [];
  for await (const e of Deno.readDir(tmp)) {
    if (e.name.startsWith(`loch-warmup-${Deno.pid}.`)) out.push(e.name);
  }
  return out;
}

Deno.test("warm-up runs over a lake of its own and removes it", async () => {
  let during: string[] = [];
  await warmUp(1, async () => {
    during = await warmupDirs();
  });
  assert.equal(during.length, 1, "the warm-up's lake is a directory of this process");
  assert.deepEqual(await warmupDirs(), []);
});

Deno.test("the metadata preload reads the objects of every branch tip", async () => {
  await withLake(async (lake) => {
    const a = keyedPool(lake, "a", "ts");
    const b = keyedPool(lake, "b", "ts");
    await loadText(lake, a, "{ts:1}\n{ts:2}");
    await loadText(lake, a, "{ts:3}");
    await loadText(lake, b, "{ts:1}");
    createBranch(lake, a, "dev", findBranch(lake.catalog, a.id, "main")!.commit);
    // a: two objects on main and on dev; b: one.
    assert.equal(preloadMetadata(lake), 5);
  });
});
