// `file` and `get` sources in lake queries: local files only when the caller
// allows them (the command line), URLs always; and a `from` with a pass leg
// after a pool scan.

import assert from "node:assert/strict";
import { prepareLakeQuery } from "../../lib/lake/query.ts";
import { LOCAL_ACCESS, NO_ACCESS } from "../../lib/query/mod.ts";
import { withFixtureServer } from "../query/fixture_server.ts";
import { keyedPool, lines, loadText, rejection, thrown, withLake } from "./helpers.ts";

Deno.test("lake query: file sources only when allowed", async () => {
  await withLake(async (lake, dir) => {
    const p = keyedPool(lake, "p", "a");
    await loadText(lake, p, "{a:5}\n{a:6}\n");
    const f = `${dir}/in.zson`;
    await Deno.writeTextFile(f, "{a:1}\n{a:2}\n");
    const text = `from p | from (pass => put x:=1 file ${f} => put f:=1 ) | sort this`;
    assert.deepEqual(await lines(lake, text, { access: LOCAL_ACCESS }), [
      "{a:1,f:1}",
      "{a:2,f:1}",
      "{a:5,x:1}",
      "{a:6,x:1}",
    ]);
    assert.deepEqual(
      await lines(lake, `from (pool p file ${f} ) | sort this`, { access: LOCAL_ACCESS }),
      ["{a:1}", "{a:2}", "{a:5}", "{a:6}"],
    );
    // Not allowed by default (the service): refused before anything runs.
    assert.equal(thrown(() => prepareLakeQuery(lake, text)), `${f}: scheme "file" not allowed`);
    assert.equal(
      await rejection(lines(lake, `file ${f}`, { access: NO_ACCESS })),
      `${f}: scheme "file" not allowed`,
    );
  });
});

Deno.test("lake query: get sources and pass legs", async () => {
  await withFixtureServer({ "/in.zson": { body: "{a:1}\n" } }, async ({ url }) => {
    await withLake(async (lake) => {
      const p = keyedPool(lake, "p", "a");
      await loadText(lake, p, "{a:5}\n");
      const access = { files: false, urls: [url] };
      assert.deepEqual(await lines(lake, `get ${url}/in.zson | put g:=1`, { access }), [
        "{a:1,g:1}",
      ]);
      assert.match(
        await rejection(lines(lake, `get ${url}/in.zson`)),
        /not allowed here/,
        "a lake query fetches nothing unless allowed",
      );
      assert.deepEqual(
        await lines(lake, `from p | from (pass => put x:=1 get ${url}/in.zson ) | sort this`, {
          access,
        }),
        ["{a:5,x:1}", "{a:1}"],
      );
      // A leading pass leg has no upstream, HEAD or not.
      assert.equal(
        await rejection(
          lines(lake, `from (pass get ${url}/in.zson )`, { head: { pool: "p" }, access }),
        ),
        "no data source for 'from operator' pass-through branch",
      );
      // A query without `from` reads HEAD, which flows into the pass leg.
      assert.deepEqual(
        await lines(lake, `put y:=1 | from (pass get ${url}/in.zson ) | sort this`, {
          head: { pool: "p" },
          access,
        }),
        ["{a:5,y:1}", "{a:1}"],
      );
    });
  });
});
