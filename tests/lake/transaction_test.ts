// Atomic commits across pools (lib/lake/transaction.ts): loads, deletes and
// moves on several pools commit all or none, with one commit and one event
// per branch after all are durable; over HTTP (POST /transaction) and the
// CLI (`loch tx`); and SIGKILLs at random points of a stream of
// transactions never leave one partly visible.

import assert from "node:assert/strict";
import { getBranch } from "../../lib/lake/branches.ts";
import { toBase62 } from "../../lib/lake/ksuid.ts";
import { Lake, type LakeEvent } from "../../lib/lake/lake.ts";
import { runTransaction } from "../../lib/lake/transaction.ts";
import { TempLake } from "../cli/loch.ts";
import { post, withServer } from "../service/helpers.ts";
import { dataFiles, keyedPool, lines, loadText, rejection, withDir, withLake } from "./helpers.ts";

Deno.test("transaction: loads, deletes and moves on three pools land together", async () => {
  await withLake(async (lake) => {
    keyedPool(lake, "a", "x");
    const b = keyedPool(lake, "b", "x"), c = keyedPool(lake, "c", "x");
    await loadText(lake, b, "{x:1}\n{x:2}");
    const c1 = await loadText(lake, c, "{x:10}");
    await loadText(lake, c, "{x:11}");
    const events: LakeEvent[] = [];
    lake.subscribe((e) => events.push(e));
    const done = await runTransaction(lake, {
      author: "me",
      operations: [
        { op: "load", pool: "a", data: "{x:5}\n{x:6}" },
        { op: "delete", pool: "b", where: "x==1" },
        { op: "move", pool: "c", to: toBase62(c1.commit.id) },
      ],
    });
    assert.deepEqual(done.map((d) => d.pool.name), ["a", "b", "c"]);
    assert.deepEqual(await lines(lake, "from a | sort x"), ["{x:5}", "{x:6}"]);
    assert.deepEqual(await lines(lake, "from b"), ["{x:2}"]);
    assert.deepEqual(await lines(lake, "from c"), ["{x:10}"]);
    for (const d of done) {
      assert.deepEqual(getBranch(lake.catalog, d.pool.id, "main").commit, d.commit.id);
      assert.equal(d.commit.author, "me");
    }
    // One event per commit, after all of them.
    assert.deepEqual(events.map((e) => e.kind), [
      "branch-commit",
      "branch-commit",
      "branch-commit",
    ]);
    // The move is a commit like others: its log says so.
    assert.deepEqual(
      await lines(lake, 'from c@main:log | nameof(this)=="Commit" | head 1 | yield message'),
      [`"moved to ${toBase62(c1.commit.id)} (${toBase62(c1.commit.id)})"`],
    );
  });
});

Deno.test("transaction: one failing operation commits nothing and leaves no objects", async () => {
  await withLake(async (lake) => {
    const a = keyedPool(lake, "a", "x"), b = keyedPool(lake, "b", "x");
    await loadText(lake, b, "{x:1}");
    const tipA = getBranch(lake.catalog, a.id, "main").commit;
    const tipB = getBranch(lake.catalog, b.id, "main").commit;
    const filesB = await dataFiles(lake, b);
    const msg = await rejection(runTransaction(lake, {
      operations: [
        { op: "load", pool: "a", data: "{x:5}" },
        { op: "delete", pool: "b", where: "x==99" },
      ],
    }));
    assert.equal(msg, "empty transaction");
    assert.deepEqual(getBranch(lake.catalog, a.id, "main").commit, tipA);
    assert.deepEqual(getBranch(lake.catalog, b.id, "main").commit, tipB);
    assert.deepEqual(await dataFiles(lake, a), []);
    assert.deepEqual(await dataFiles(lake, b), filesB);
    assert.equal(
      await rejection(runTransaction(lake, {
        operations: [
          { op: "load", pool: "a", data: "{x:5}" },
          { op: "load", pool: "a", branch: "main", data: "{x:6}" },
        ],
      })),
      "transaction: more than one operation on a@main",
    );
    assert.deepEqual(await dataFiles(lake, a), []);
    assert.equal(
      await rejection(runTransaction(lake, { operations: [] })),
      "transaction: no operations",
    );
    assert.match(
      await rejection(
        runTransaction(lake, { operations: [{ op: "load", pool: "zz", data: "1" }] }),
      ),
      /zz: pool not found/,
    );
  });
});

Deno.test("transaction: over HTTP and with loch tx", async () => {
  await withServer(async (s) => {
    for (const n of ["a", "b"]) await post(s, "/pool", JSON.stringify({ name: n }));
    const body = JSON.stringify({
      operations: [
        { op: "load", pool: "a", data: '{ts:1,a:"x"}' },
        { op: "load", pool: "b", branch: "main", data: '{"ts":2}' },
      ],
      message: "both",
    });
    const r = await post(s, "/transaction", body, {
      Accept: "application/json",
      "Content-Type": "application/json",
    });
    assert.equal(r.status, 200, r.text);
    const out = JSON.parse(r.text) as {
      commits: { pool: string; branch: string; commit: string }[];
    };
    assert.deepEqual(out.commits.map((c) => [c.pool, c.branch]), [["a", "main"], ["b", "main"]]);
    const q = await post(s, "/query", '{"query":"from a | count()"}', {
      Accept: "application/json",
    });
    assert.equal(q.text, '[{"count":1}]\n');
    const bad = await post(s, "/transaction", '{"operations":[{"op":"fly","pool":"a"}]}', {
      "Content-Type": "application/json",
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /transaction: unknown operation \\"fly\\"/);
  });
  const cli = await TempLake.make();
  try {
    await cli.run(["create", "-q", "p"]);
    await cli.run(["create", "-q", "q"]);
    const file = await cli.file(
      "tx.json",
      JSON.stringify({
        operations: [{ op: "load", pool: "p", data: "{ts:1}" }, {
          op: "load",
          pool: "q",
          data: "{ts:2}",
        }],
      }),
    );
    const r = await cli.run(["tx", file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\w{27} committed to p@main\n\w{27} committed to q@main\n$/);
  } finally {
    await cli.remove();
  }
});

Deno.test("transaction: SIGKILL at random points never leaves one partly visible", async () => {
  await withDir(async (dir) => {
    const root = `${dir}/lake`;
    let lake = await Lake.open(root);
    for (const n of ["a", "b", "c"]) keyedPool(lake, n, "tx");
    lake.close();
    const fixture = new URL("./fixtures/tx.ts", import.meta.url).pathname;
    for (let trial = 0; trial < 6; trial++) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", fixture, root, String(trial * 1000)],
        stdout: "piped",
        stderr: "null",
      }).spawn();
      // Kill at a random point once some transactions went through.
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      const want = 2 + Math.floor(Math.random() * 4);
      while ((seen.match(/\n/g) ?? []).length < want) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      await new Promise((r) => setTimeout(r, Math.random() * 40));
      child.kill("SIGKILL");
      await child.status;
      await reader.cancel().catch(() => {});
      const acked = seen.trim().split("\n").filter((l) => l !== "").map(Number);
      lake = await Lake.open(root);
      try {
        const per = async (pool: string) =>
          await lines(lake, `from ${pool} | count() by tx | sort tx`);
        const a = await per("a"), b = await per("b"), c = await per("c");
        // Every transaction is in all three pools or in none (b holds two values per transaction).
        assert.deepEqual(a, c);
        assert.deepEqual(a.map((l) => l.replace("count:1", "count:2")), b);
        // Every acknowledged one is there.
        for (const i of acked) assert.ok(a.includes(`{tx:${i},count:1(uint64)}`), `tx ${i}`);
      } finally {
        lake.close();
      }
    }
  });
});
