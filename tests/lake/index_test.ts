// Index rules and index objects (lib/lake/rules.ts, lib/lake/index/): the
// rule catalogue and its errors, apply and update (the reference's
// lake/ztests/index/*.yaml and revert-index.yaml), index objects as files and
// meta-query records; time travel, rule drops and reverts. Queries that use
// indexes are in index_query_test.ts.

import { formatTime } from "../../lib/zed/time.ts";
import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { decodeZng } from "../../lib/formats/zng/reader.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { commitToBranch } from "../../lib/lake/branches.ts";
import { applyRules, updateIndex } from "../../lib/lake/index/apply.ts";
import { indexObjectPath } from "../../lib/lake/index/store.ts";
import { toBase62, toHex } from "../../lib/lake/ksuid.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { createPool, type PoolConfig } from "../../lib/lake/pools.ts";
import { revertCommit } from "../../lib/lake/revert.ts";
import {
  addRules,
  deleteRules,
  type IndexRule,
  listRules,
  lookupRules,
  ruleById,
  ruleProgram,
} from "../../lib/lake/rules.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { Collector } from "../../lib/query/runtime/op.ts";
import {
  keyedPool,
  lines,
  loadText,
  query,
  readStored,
  rejection,
  textReader,
  thrown,
  withLake,
} from "./helpers.ts";

function errorKind(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return e instanceof LochError ? e.kind : "not a LochError";
  }
  throw new Error("expected an exception");
}

/** `count() by name` of the index objects of test@main (as revert-index.yaml asks). */
function indexCounts(lake: Lake, at = "test@main"): Promise<string[]> {
  return lines(lake, `from ${at}:indexes | count() by name:=rule.name | sort name`);
}

Deno.test("rules: add, list, look up and drop, with the reference's errors", () => {
  return withLake((lake) => {
    const cat = lake.catalog;
    const [ips] = addRules(cat, [{ name: "IPs", kind: "type", type: "ip" }]);
    const [ab, c] = addRules(cat, [
      { name: "idx", kind: "field", fields: [["a", "b"]] },
      { name: "idx", kind: "field", fields: [["c"]] },
    ]);
    assert.deepEqual(listRules(cat).map((r) => r.name), ["IPs", "idx", "idx"]);
    // create-duplicate.yaml: same name and definition.
    assert.equal(
      thrown(() => addRules(cat, [{ name: "IPs", kind: "type", type: "ip" }])),
      "index rule already exists",
    );
    // Another name may have the same definition.
    addRules(cat, [{ name: "IPs2", kind: "type", type: "ip" }]);
    // A client-chosen id that is taken.
    assert.equal(
      thrown(() => addRules(cat, [{ name: "x", kind: "type", type: "string", id: ips.id }])),
      `rule "${toBase62(ips.id)}": ID in use`,
    );
    // All or nothing: the first rule of a failing request is not added.
    thrown(() =>
      addRules(cat, [
        { name: "new", kind: "type", type: "int64" },
        { name: "IPs", kind: "type", type: "ip" },
      ])
    );
    assert.equal(listRules(cat).some((r) => r.name === "new"), false);
    assert.equal(
      thrown(() => addRules(cat, [{ name: "f", kind: "field", fields: [["a"], ["b"]] }])),
      "a field index rule takes exactly one field",
    );
    assert.match(
      thrown(() => addRules(cat, [{ name: "bad", kind: "agg", script: "count((" }])),
      /error parsing Zed/,
    );

    // A name selects its group (oldest first); ids work in base62 and hex.
    const hexes = (rs: IndexRule[]) => rs.map((r) => toHex(r.id));
    assert.deepEqual(hexes(lookupRules(cat, ["idx"])), hexes([ab, c]));
    assert.deepEqual(lookupRules(cat, [toHex(c.id), "idx"]).map((r) => toHex(r.id)), [
      toHex(c.id),
      toHex(ab.id),
    ]);
    assert.equal(lookupRules(cat, [toBase62(ips.id)])[0].name, "IPs");
    assert.equal(thrown(() => lookupRules(cat, ["nope"])), 'rule "nope" not found');
    assert.equal(errorKind(() => lookupRules(cat, ["nope"])), "not found");

    // drop.yaml: dropped rules are no longer listed or looked up, but their
    // definitions stay for the index objects they made.
    assert.deepEqual(deleteRules(cat, [c.id]).map((r) => r.name), ["idx"]);
    assert.deepEqual(lookupRules(cat, ["idx"]).map((r) => toHex(r.id)), [toHex(ab.id)]);
    assert.equal(ruleById(cat, c.id)?.kind, "field");
    assert.equal(
      thrown(() => deleteRules(cat, [c.id])),
      `index ${toBase62(c.id)} not found`,
    );
    assert.equal(
      thrown(() => lookupRules(cat, [toBase62(c.id)])),
      `rule "${toBase62(c.id)}" not found`,
    );
    // A dropped rule's id is taken back only for the same definition.
    assert.equal(
      thrown(() => addRules(cat, [{ name: "idx", kind: "field", fields: [["d"]], id: c.id }])),
      `rule "${toBase62(c.id)}": ID in use`,
    );
    addRules(cat, [{ name: "idx2", kind: "field", fields: [["c"]], id: c.id }]);
    assert.equal(lookupRules(cat, ["idx2"]).length, 1);
  });
});

Deno.test("rules: the programs of the reference and the `:index_rules` listing", async () => {
  await withLake(async (lake) => {
    const [f, t, a] = addRules(lake.catalog, [
      { name: "foo.bar", kind: "field", fields: [["foo", "bar"]] },
      { name: "IPs", kind: "type", type: "ip" },
      { name: "duration.sum", kind: "agg", script: "sum(duration)" },
    ]);
    assert.equal(
      ruleProgram(f),
      "cut foo.bar\n| put key := this, count := count() - 1\n" +
        "| count := count(), seek.min := min(count), seek.max := max(count) by key\n" +
        "| sort key.foo.bar",
    );
    assert.equal(ruleProgram(t), "explode this by ip as key | count() by key | sort key");
    assert.equal(ruleProgram(a), "sum(duration)");
    deleteRules(lake.catalog, [t.id]);
    assert.deepEqual(await lines(lake, "from :index_rules | sort name | drop id, ts"), [
      '{name:"duration.sum",script:"sum(duration)"}',
      '{name:"foo.bar",fields:[["foo","bar"](=field.Path)](=field.List)}',
    ]);
  });
});

const JOIN_COUNTS = `from (
  pool :index_rules => sort id
  pool test@main:indexes => sort rule.id | cut o:=this
)
| left join on id = o.rule.id o
| count(o) by name, fields
| sort name`;

Deno.test("apply: rules by name to an object (apply.yaml), and by commit id", async () => {
  await withLake(async (lake) => {
    const pool = createPool(lake, { name: "test" });
    const { commit, objects } = await loadText(
      lake,
      pool,
      '{_path:"conn",srcip:127.0.0.1}\n{_path:"conn",srcip:127.0.0.2}\n',
    );
    addRules(lake.catalog, [{ name: "paths", kind: "field", fields: [["_path"]] }]);
    addRules(lake.catalog, [{ name: "srcip", kind: "field", fields: [["srcip"]] }]);
    const c = await applyRules(lake, pool, "main", {
      rules: ["srcip", "paths"],
      tags: [toBase62(objects[0].id)],
    });
    assert.equal(c.author, "indexer");
    assert.equal(c.message, "index rules applied: srcip,paths");
    assert.equal(c.meta, null);
    assert.deepEqual(await lines(lake, JOIN_COUNTS), [
      '{name:"paths",fields:[["_path"](=field.Path)](=field.List),count:1(uint64)}',
      '{name:"srcip",fields:[["srcip"](=field.Path)](=field.List),count:1(uint64)}',
    ]);
    // The index object files are where the reference puts them.
    for (const r of lookupRules(lake.catalog, ["paths", "srcip"])) {
      assert.ok(await lake.storage.stat(indexObjectPath(lake, pool.id, r.id, objects[0].id)));
      assert.match(
        indexObjectPath(lake, pool.id, r.id, objects[0].id),
        new RegExp(
          `/pools/${toBase62(pool.id)}/index/${toBase62(r.id)}/${toBase62(objects[0].id)}\\.zng$`,
        ),
      );
    }

    // A commit id stands for the objects it added; unknown tags are ignored
    // (an empty commit, as the reference makes).
    addRules(lake.catalog, [{ name: "IPs", kind: "type", type: "ip" }]);
    const byCommit = await applyRules(lake, pool, "main", {
      rules: ["IPs"],
      tags: [toHex(commit.id)],
    });
    assert.equal(byCommit.message, "index rules applied: IPs");
    assert.deepEqual(await indexCounts(lake), [
      '{name:"IPs",count:1(uint64)}',
      '{name:"paths",count:1(uint64)}',
      '{name:"srcip",count:1(uint64)}',
    ]);
    const empty = await applyRules(lake, pool, "main", {
      rules: ["IPs"],
      tags: ["2AAAAAAAAAAAAAAAAAAAAAAAAAA"],
    });
    assert.equal(empty.message, "index rules applied: IPs");
    // 4 commits, 1 data object, 3 index objects.
    assert.equal((await lines(lake, "from test@main:rawlog | count()"))[0], "{count:8(uint64)}");

    assert.equal(
      await rejection(applyRules(lake, pool, "main", { rules: ["nope"], tags: [] })),
      'rule "nope" not found',
    );
    assert.equal(
      await rejection(applyRules(lake, pool, "main", { rules: ["IPs"], tags: ["0x1234"] })),
      "invalid ID: 0x1234",
    );
    assert.equal(
      await rejection(applyRules(lake, pool, "dev", { rules: ["IPs"], tags: [] })),
      '"dev": branch not found',
    );
  });
});

Deno.test("update: indexes what is not indexed yet (update.yaml); nothing to do is invalid", async () => {
  await withLake(async (lake) => {
    const pool = createPool(lake, { name: "test" });
    addRules(lake.catalog, [{ name: "foo", kind: "field", fields: [["foo"]] }]);
    addRules(lake.catalog, [{ name: "bar", kind: "field", fields: [["bar"]] }]);
    for (const n of [1, 2, 3]) await loadText(lake, pool, `{foo:${n},bar:${n}}`);
    const c = await updateIndex(lake, pool, "main");
    assert.equal(c.message, "index rules applied: bar,foo");
    assert.deepEqual(await lines(lake, JOIN_COUNTS), [
      '{name:"bar",fields:[["bar"](=field.Path)](=field.List),count:3(uint64)}',
      '{name:"foo",fields:[["foo"](=field.Path)](=field.List),count:3(uint64)}',
    ]);
    const err = await updateIndex(lake, pool, "main").catch((e) => e);
    assert.ok(err instanceof LochError);
    assert.equal(err.message, "empty transaction");
    assert.equal(err.kind, "invalid");

    // A new object and a new rule: only what is missing is indexed.
    await loadText(lake, pool, "{foo:4,bar:4,baz:4}");
    addRules(lake.catalog, [{ name: "baz", kind: "field", fields: [["baz"]] }]);
    const next = await updateIndex(lake, pool, "main", ["foo"]);
    assert.equal(next.message, "index rules applied: foo");
    assert.equal(
      (await lines(lake, `from test@main:rawlog | commit == ${toHex(next.id)} | count()`))[0],
      "{count:1(uint64)}",
    );
    await updateIndex(lake, pool, "main");
    assert.deepEqual(await indexCounts(lake), [
      '{name:"bar",count:4(uint64)}',
      '{name:"baz",count:4(uint64)}',
      '{name:"foo",count:4(uint64)}',
    ]);
    assert.equal(
      await rejection(updateIndex(lake, pool, "main", ["nope"])),
      'rule "nope" not found',
    );
  });
});

Deno.test("index objects hold what the reference's rule programs compute", async () => {
  await withLake(async (lake) => {
    const pool = keyedPool(lake, "test", "ts");
    const data = [
      "{ts:1,s:127.0.0.1,n:{a:1},x:[10.0.0.1,10.0.0.2]}",
      "{ts:2,s:1,n:{a:2}}",
      '{ts:3,s:"hello",n:{a:1}}',
      "{ts:4}",
      "{ts:5,s:1,n:null({a:int64})}",
      "{ts:6,s:1.5,n:{a:error(1)}}",
      "{ts:7,s:null(int64),y:10.0.0.1}",
    ];
    const { objects } = await loadText(lake, pool, data.join("\n"));
    const rules = addRules(lake.catalog, [
      { name: "s", kind: "field", fields: [["s"]] },
      { name: "na", kind: "field", fields: [["n", "a"]] },
      { name: "ip", kind: "type", type: "ip" },
      { name: "agg", kind: "agg", script: "count() by s | sort s" },
    ]);
    await updateIndex(lake, pool, "main");
    for (const rule of rules) {
      const path = indexObjectPath(lake, pool.id, rule.id, objects[0].id);
      const got = decodeZng(await readStored(lake, path)).map((v) => formatZson(v.type, v.body));
      assert.deepEqual(got, await runProgram(rule, data.join("\n")), rule.name);
    }
  });
});

/** A rule's program run by the query engine over ZSON values, as one-line ZSON. */
async function runProgram(rule: IndexRule, zson: string): Promise<string[]> {
  const out = new Collector();
  const head = compileQuery(ruleProgram(rule)).make(out)[0];
  const r = await textReader(zson);
  for (let b = await r.read(); b !== null; b = await r.read()) head.push(b);
  head.end();
  return out.take().flat().map((v) => formatZson(v.type, v.body));
}

Deno.test("index objects survive time travel, rule drops and reverts (revert-index.yaml)", async () => {
  await withLake(async (lake) => {
    const pool = createPool(lake, { name: "test" });
    await loadText(lake, pool, "{x:127.0.0.1,y:1}\n{x:127.0.0.2,y:2}\n");
    const loaded = (await loadText(lake, pool, "{x:127.0.0.3,y:3}")).commit;
    addRules(lake.catalog, [{ name: "IPs", kind: "type", type: "ip" }]);
    const [ys] = addRules(lake.catalog, [{ name: "Ys", kind: "field", fields: [["y"]] }]);
    const a = await updateIndex(lake, pool, "main");
    assert.deepEqual(await indexCounts(lake), [
      '{name:"IPs",count:2(uint64)}',
      '{name:"Ys",count:2(uint64)}',
    ]);
    const r = await revertCommit(lake, pool, "main", a.id);
    assert.deepEqual(await indexCounts(lake), []);
    assert.equal((await query(lake, "from test | y == 3")).stats.objectsSkippedByIndex, 0);
    const rawlog = await lines(
      lake,
      "from test@main:rawlog | count() by n:=nameof(this) | sort n",
    );
    assert.deepEqual(rawlog, [
      '{n:"commits.Add",count:2(uint64)}',
      '{n:"commits.AddIndex",count:4(uint64)}',
      '{n:"commits.Commit",count:4(uint64)}',
      '{n:"commits.DeleteIndex",count:4(uint64)}',
    ]);
    await revertCommit(lake, pool, "main", r.id);
    assert.deepEqual(await indexCounts(lake), [
      '{name:"IPs",count:2(uint64)}',
      '{name:"Ys",count:2(uint64)}',
    ]);

    // At the commit of the update the index is there; before it, not.
    const at = `test@${toBase62(a.id)}`;
    assert.deepEqual(await indexCounts(lake, at), [
      '{name:"IPs",count:2(uint64)}',
      '{name:"Ys",count:2(uint64)}',
    ]);
    assert.deepEqual(await indexCounts(lake, `test@${toBase62(loaded.id)}`), []);
    const then = await query(lake, `from ${at} | y == 3`);
    assert.deepEqual(then.lines, ["{x:127.0.0.3,y:3}"]);
    assert.equal(then.stats.objectsSkippedByIndex, 1);
    const before = await query(lake, `from test@${toBase62(loaded.id)} | y == 3`);
    assert.equal(before.stats.objectsSkippedByIndex, 0);

    // Dropping the rule keeps its index objects (listed, and still used).
    deleteRules(lake.catalog, [ys.id]);
    assert.deepEqual(await indexCounts(lake), [
      '{name:"IPs",count:2(uint64)}',
      '{name:"Ys",count:2(uint64)}',
    ]);
    assert.equal((await query(lake, "from test | y == 3")).stats.objectsSkippedByIndex, 1);
  });
});

Deno.test("`:rawlog` shows index actions as the reference stores them", async () => {
  await withLake(async (lake) => {
    const pool = createPool(lake, { name: "test" });
    const { objects } = await loadText(lake, pool, "{a:1}");
    const [rule] = addRules(lake.catalog, [{ name: "A", kind: "field", fields: [["a"]] }]);
    const c = await updateIndex(lake, pool, "main");
    const d = await commitToBranch(lake, pool.id, "main", () => ({
      author: "t",
      message: "unbind",
      meta: null,
      actions: [{ kind: "delete_index", objectId: objects[0].id, ruleId: rule.id }],
    }));
    const rows = await lines(lake, "from test@main:rawlog | nameof(this) != 'commits.Commit'");
    const ruleText = `{ts:${formatTs(rule.ts)},id:${toHex(rule.id)}(ksuid.KSUID),name:"A",` +
      `fields:[["a"](=field.Path)](=field.List)}(=index.FieldRule)`;
    assert.equal(
      rows[1],
      `{commit:${toHex(c.id)}(=ksuid.KSUID),object:{rule:${ruleText},id:${
        toHex(objects[0].id)
      }(ksuid.KSUID)}(=index.Object)}(=commits.AddIndex)`,
    );
    assert.equal(
      rows[2],
      `{commit:${toHex(d.id)}(=ksuid.KSUID),id:${toHex(objects[0].id)}(ksuid.KSUID),rule_id:${
        toHex(rule.id)
      }(ksuid.KSUID)}(=commits.DeleteIndex)`,
    );
    assert.deepEqual(await lines(lake, "from test@main:indexes"), []);
  });
});

/** A rule's creation time as ZSON prints it (trailing zeros of the fraction dropped). */
function formatTs(ns: bigint): string {
  return formatTime(ns);
}

Deno.test("index objects of a deleted data object are not listed", async () => {
  await withLake(async (lake) => {
    const pool: PoolConfig = createPool(lake, { name: "test" });
    const { objects } = await loadText(lake, pool, "{a:1}");
    await loadText(lake, pool, "{a:2}");
    addRules(lake.catalog, [{ name: "A", kind: "field", fields: [["a"]] }]);
    await updateIndex(lake, pool, "main");
    await commitToBranch(lake, pool.id, "main", () => ({
      author: "t",
      message: "delete",
      meta: null,
      actions: [{ kind: "delete", objectId: objects[0].id }],
    }));
    assert.deepEqual(await indexCounts(lake), ['{name:"A",count:1(uint64)}']);
    assert.deepEqual(await lines(lake, "from test | a == 1"), []);
  });
});
