// A load that dies (SIGKILL in another process) or fails (an exception) in
// the middle leaves the branch at the commit before it: the lake opens
// cleanly and reads exactly what was committed.

import assert from "node:assert/strict";
import { createBranch, deleteBranch, getBranch } from "../../lib/lake/branches.ts";
import { toBase62, toHex } from "../../lib/lake/ksuid.ts";
import { Lake } from "../../lib/lake/lake.ts";
import { load } from "../../lib/lake/load.ts";
import { tipObjects } from "../../lib/lake/objects.ts";
import type { PoolConfig } from "../../lib/lake/pools.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import {
  dataFiles,
  keyedPool,
  lines,
  loadText,
  range,
  records,
  rejection,
  ROOT,
  ScriptedReader,
  withDir,
  withLake,
} from "./helpers.ts";

const committed = records(range(100), (n) => `{x:${n},s:"committed"}`);
const committedLines = range(100).map((n) => `{x:${n},s:"committed"}`);

async function waitFor(cond: () => Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("crash: a process killed in the middle of a load leaves the previous commit", async () => {
  await withDir(async (dir) => {
    let lake = await Lake.open(dir);
    const pool = keyedPool(lake, "p", "x", "asc", { threshold: 4096 });
    const before = await loadText(lake, pool, committed);
    const beforeFiles = await dataFiles(lake, pool);
    assert.equal(beforeFiles.length, before.objects.length);
    const objectsDir = `${lake.poolDir(pool.id)}/data`;
    lake.close();

    // 1000 batches of 200 values, 10 ms apart: far longer than the test waits.
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--config",
        `${ROOT}deno.json`,
        `${ROOT}tests/lake/fixtures/slowload.ts`,
        dir,
        "p",
        "1000",
      ],
      cwd: ROOT,
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const newFiles = async () => {
      const names: string[] = [];
      for await (const e of Deno.readDir(objectsDir)) {
        if (!beforeFiles.includes(e.name)) names.push(e.name);
      }
      return names;
    };
    // Kill it once it has written some objects of the new load.
    try {
      await waitFor(async () => (await newFiles()).length >= 3, 20_000, "objects of the load");
    } finally {
      child.kill("SIGKILL");
    }
    const status = await child.status;
    await child.stderr.cancel();
    assert.equal(status.success, false);
    assert.equal(status.signal, "SIGKILL");
    const orphans = await newFiles();
    assert.ok(orphans.length >= 3);

    lake = await Lake.open(dir);
    try {
      const integrity = lake.catalog.get<{ integrity_check: string }>("PRAGMA integrity_check");
      assert.equal(integrity?.integrity_check, "ok");
      const tip = getBranch(lake.catalog, pool.id, "main").commit;
      assert.equal(toHex(tip), toHex(before.commit.id));
      assert.deepEqual(await lines(lake, "from p"), committedLines);
      assert.deepEqual(
        await lines(lake, "from p@main:log | nameof(this) == 'Commit' | count()"),
        ["{count:1(uint64)}"],
      );
      // The files the dead load wrote belong to no object of the branch.
      const live = new Set(
        tipObjects(lake.catalog, pool.id, "main").map((o) => `${toBase62(o.id)}.zng`),
      );
      for (const f of orphans) assert.ok(!live.has(f), f);
      const known = lake.catalog.get<{ n: number }>("SELECT count(*) AS n FROM objects")!.n;
      assert.equal(known, before.objects.length);
      // The lake takes new loads as usual.
      await loadText(lake, pool, "{x:-1}");
      assert.equal((await lines(lake, "from p")).length, 101);
    } finally {
      lake.close();
    }
  });
});

/** Reads n batches of 100 values {x:i} and then throws. */
function failingReader(batches: number, error: Error): ScriptedReader {
  const steps = range(batches).map((b) => () =>
    range(100).map((i) => parseZsonValue(`{x:${1000 + b * 100 + i},s:"doomed value"}`))
  );
  steps.push(() => {
    throw error;
  });
  return new ScriptedReader(steps);
}

async function checkUnchanged(lake: Lake, pool: PoolConfig, tip: string, files: string[]) {
  assert.equal(toHex(getBranch(lake.catalog, pool.id, "main").commit), tip);
  assert.deepEqual(await dataFiles(lake, pool), files);
  assert.deepEqual(await lines(lake, "from p"), committedLines);
}

Deno.test("crash: a reader that throws mid-load leaves the branch and removes its objects", async () => {
  await withLake(async (lake) => {
    const pool = keyedPool(lake, "p", "x", "asc", { threshold: 2048 });
    const before = await loadText(lake, pool, committed);
    const tip = toHex(before.commit.id);
    const files = await dataFiles(lake, pool);
    // Enough values before the failure that several objects were written.
    const progress: number[] = [];
    const msg = await rejection(
      load(lake, pool, "main", failingReader(20, new Error("disk on fire")), {
        onProgress: (p) => progress.push(p.objects),
      }),
    );
    assert.equal(msg, "disk on fire");
    assert.ok(progress.at(-1)! >= 3, `objects written before the failure: ${progress.at(-1)}`);
    await checkUnchanged(lake, pool, tip, files);
    // Failing on the very first read leaves nothing either.
    assert.equal(
      await rejection(load(lake, pool, "main", failingReader(0, new Error("early")))),
      "early",
    );
    await checkUnchanged(lake, pool, tip, files);
  });
});

Deno.test("crash: a load whose commit fails removes the objects it wrote", async () => {
  await withLake(async (lake) => {
    const pool = keyedPool(lake, "p", "x", "asc", { threshold: 2048 });
    const before = await loadText(lake, pool, committed);
    createBranch(lake, pool, "doomed", before.commit.id);
    const files = await dataFiles(lake, pool);
    // The branch goes away while the load is reading.
    const steps = range(10).map((b) => () =>
      range(100).map((i) => parseZsonValue(`{x:${1000 + b * 100 + i}}`))
    );
    steps.splice(5, 0, () => {
      deleteBranch(lake, pool.id, "doomed");
      return [parseZsonValue("{x:999}")];
    });
    const msg = await rejection(load(lake, pool, "doomed", new ScriptedReader(steps)));
    assert.equal(msg, '"doomed": branch not found');
    assert.deepEqual(await dataFiles(lake, pool), files);
    assert.deepEqual(await lines(lake, "from p"), committedLines);
  });
});
