// 32 clients each loading 20 times into one branch at once, over HTTP: every
// load is answered 200 and lands (commits from one server to one branch are
// queued, not retried into failure), and the records and the commit log agree.

import assert from "node:assert/strict";
import { createPool, load, withServer, zsonLines } from "./helpers.ts";

const WRITERS = 32;
const LOADS = 20;

Deno.test("32 writers x 20 loads into one branch: every load lands", async () => {
  await withServer(async (s) => {
    await createPool(s, "p", { order: "asc", keys: [["x"]] });
    const commits = await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const ids: string[] = [];
        for (let i = 0; i < LOADS; i++) {
          ids.push(await load(s, "p", `{x:${w * 1000 + i},w:${w}}\n{x:${w * 1000 + i},w:${w}}`));
        }
        return ids;
      }),
    );
    const ids = commits.flat();
    assert.equal(new Set(ids).size, WRITERS * LOADS);
    assert.deepEqual(await zsonLines(s, "from p | count() | yield count"), [
      `${2 * WRITERS * LOADS}(uint64)`,
    ]);
    assert.deepEqual(
      await zsonLines(s, "from p | count() by w | n:=count() by count | yield n"),
      [`${WRITERS}(uint64)`],
    );
    const logged = await zsonLines(s, "from p@main:log | nameof(this)=='Commit' | yield id");
    assert.equal(logged.length, WRITERS * LOADS);
    assert.deepEqual(new Set(logged.map((l) => l.replace("(=KSUID)", ""))), new Set(ids));
    // No commit needed a retry: each followed the tip the one before left.
    assert.deepEqual(
      await zsonLines(
        s,
        "from p@main:log | nameof(this)=='Commit' | count() by retries | yield retries",
      ),
      ["0(uint8)"],
    );
  });
});
