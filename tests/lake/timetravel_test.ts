// Time travel by time: `from pool@branch at <time>` reads the branch as it
// was then, by the dates of its commits (lib/lake/sources.ts), in a lake,
// over HTTP and on the command line.

import assert from "node:assert/strict";
import { formatTime } from "../../lib/zed/time.ts";
import { compact } from "../../lib/lake/compact.ts";
import { deleteWhere } from "../../lib/lake/delete.ts";
import { vacuum } from "../../lib/lake/vacuum.ts";
import { addRules } from "../../lib/lake/rules.ts";
import { updateIndex } from "../../lib/lake/index/apply.ts";
import { keyedPool, lines, loadText, query, rejection, withLake } from "./helpers.ts";
import { post, withServer } from "../service/helpers.ts";
import { TempLake } from "../cli/loch.ts";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The time now, as a Zed time's text. */
const now = () => formatTime(BigInt(Date.now()) * 1_000_000n);

Deno.test("time travel: a branch as it was at a time, its log and objects then", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const before = now();
    await pause(5);
    await loadText(lake, p, "{x:1}");
    await pause(5);
    const t1 = now();
    await pause(5);
    await loadText(lake, p, "{x:2}");
    await pause(5);
    const t2 = now();
    await pause(5);
    await loadText(lake, p, "{x:3}");

    assert.deepEqual(await lines(lake, `from p at ${t1}`), ["{x:1}"]);
    assert.deepEqual(await lines(lake, `from p@main at ${t2} | sort x`), ["{x:1}", "{x:2}"]);
    assert.deepEqual(await lines(lake, `from p at ${now()} | count()`), ["{count:3(uint64)}"]);
    // The log as it was then; and the log filtered by a time range, in the language.
    assert.deepEqual(
      await lines(lake, `from p@main:log at ${t2} | nameof(this) == "Commit" | count()`),
      ["{count:2(uint64)}"],
    );
    assert.deepEqual(
      await lines(
        lake,
        `from p@main:log | nameof(this) == "Commit" and date > ${t1} and date <= ${t2} | count()`,
      ),
      ["{count:1(uint64)}"],
    );
    assert.deepEqual(await lines(lake, `from p@main:objects at ${t1} | count()`), [
      "{count:1(uint64)}",
    ]);
    // Times with offsets are the same instants.
    const t1Offset = formatTime(BigInt(Date.parse(t1)) * 1_000_000n).replace("Z", "+00:00");
    assert.deepEqual(await lines(lake, `from p at ${t1Offset}`), ["{x:1}"]);

    assert.match(
      await rejection(lines(lake, `from p at ${before}`)),
      /^p@main: nothing was committed at or before /,
    );
    assert.equal(
      await rejection(lines(lake, `from p:branches at ${t1}`)),
      "at: time travel is for a branch or commit of a pool",
    );
    // What Zed takes there (an id) it refuses; so does loch.
    assert.equal(
      await rejection(lines(lake, "from p at 2DtVSMtMvJ2gUnzdxjCqjSbATQ5")),
      "TBD: at clause in from operator needs to use time",
    );
  });
});

Deno.test("time travel: over HTTP and on the command line", async () => {
  await withServer(async (s) => {
    await post(s, "/pool", '{"name":"p","layout":{"order":"asc","keys":[["x"]]}}');
    await post(s, "/pool/p/branch/main", "{x:1}");
    await pause(5);
    const t1 = now();
    await pause(5);
    await post(s, "/pool/p/branch/main", "{x:2}");
    const q = (query: string) =>
      post(s, "/query", JSON.stringify({ query }), { Accept: "application/json" });
    assert.equal((await q(`from p at ${t1}`)).text, '[{"x":1}]\n');
    const early = await q("from p at 2001-01-01T00:00:00Z");
    assert.equal(early.status, 400);
    assert.match(early.text, /p@main: nothing was committed at or before 2001-01-01T00:00:00Z/);
  });
  const cli = await TempLake.make();
  try {
    await cli.run(["create", "-q", "-orderby", "x:asc", "p"]);
    const a = await cli.file("a.zson", "{x:1}\n");
    await cli.run(["load", "-use", "p", a]);
    await pause(5);
    const t1 = now();
    await pause(5);
    await cli.run(["load", "-use", "p", await cli.file("b.zson", "{x:2}\n")]);
    const r = await cli.run(["query", "-z", `from p at ${t1}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "{x:1}\n");
  } finally {
    await cli.remove();
  }
});

Deno.test("time travel: vacuum keeps what a branch's history can still read", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    await loadText(lake, p, "{x:1}");
    await pause(5);
    const t1 = now();
    await pause(5);
    await deleteWhere(lake, p, "main", "x==1");
    await loadText(lake, p, "{x:2}");
    await loadText(lake, p, "{x:3}");
    await compact(lake, p, "main", "auto");
    const r = await vacuum(lake, p, { minAge: 0 });
    // Every object was reachable from main's history: nothing goes.
    assert.deepEqual([r.objects.length, r.commits.length], [0, 0]);
    assert.deepEqual(await lines(lake, `from p at ${t1}`), ["{x:1}"]);
  });
});

Deno.test("time travel and diffs with index objects: the index of the time is used, and ignored by diffs", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    addRules(lake.catalog, [{ name: "s", kind: "field", fields: [["s"]] }]);
    await loadText(lake, p, '{x:1,s:"a"}');
    await loadText(lake, p, '{x:2,s:"b"}');
    await updateIndex(lake, p, "main");
    await pause(5);
    const t1 = now();
    await pause(5);
    await loadText(lake, p, '{x:3,s:"a"}');
    const indexed = await query(lake, `from p at ${t1} | s=="a"`);
    assert.deepEqual(indexed.lines, ['{x:1,s:"a"}']);
    // The index at that time proves the other object holds no "a".
    assert.equal(indexed.stats.objectsRead, 1);
    // A diff across an indexing commit is empty: index objects are not data.
    const log = (await lines(lake, 'from p@main:log | nameof(this)=="Commit" | yield id'))
      .map((l) => l.match(/0x[0-9a-f]{40}/)![0]);
    assert.deepEqual(await lines(lake, `from p diff ${log[2]} ${log[1]}`), []);
    assert.deepEqual(await lines(lake, `from p diff ${log[1]} ${log[0]}`), [
      '{diff:"added",x:3,s:"a"}',
    ]);
  });
});
