// Meta-queries (meta.ts, records.ts, rules.ts): the records and type names
// the reference emits (lake-api.md §10, §14; lake/ztests/meta.yaml and
// friends, service/ztests/curl-*.yaml for the JSON form).

import assert from "node:assert/strict";
import { openWriter } from "../../lib/formats/registry.ts";
import { createBranch } from "../../lib/lake/branches.ts";
import { toHex } from "../../lib/lake/ksuid.ts";
import type { Lake } from "../../lib/lake/lake.ts";
import { createPool, renamePool } from "../../lib/lake/pools.ts";
import { runLakeQuery } from "../../lib/lake/query.ts";
import { addRules } from "../../lib/lake/rules.ts";
import { keyedPool, lines, loadText, query, rejection, withLake } from "./helpers.ts";

/** Ids and times replaced by ID and TS, so whole records can be compared. */
function normalize(s: string): string {
  return s.replace(/0x[0-9a-f]{40}/g, (m) => (/^0x0+$/.test(m) ? "NIL" : "ID"))
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TS")
    .replace(/\b[0-9A-Za-z]{27}\b/g, "B62");
}

async function normalized(lake: Lake, q: string): Promise<string[]> {
  return (await lines(lake, q)).map(normalize);
}

async function json(lake: Lake, q: string): Promise<string> {
  let out = "";
  const dec = new TextDecoder();
  const w = openWriter("json", (c) => {
    out += dec.decode(c, { stream: true });
    return Promise.resolve();
  });
  await runLakeQuery(lake, q, w);
  return out + dec.decode();
}

/** meta.yaml's lake: poolA keyed a:asc with {a:1}{a:2}, poolB keyed b:desc with {b:3}{b:2}{b:1}. */
async function metaLake(lake: Lake) {
  const a = keyedPool(lake, "poolA", "a", "asc");
  const b = keyedPool(lake, "poolB", "b", "desc");
  const la = await loadText(lake, a, "{a:1}\n{a:2}\n");
  await loadText(lake, b, "{b:3}\n{b:2}\n{b:1}\n");
  return { a, b, la };
}

Deno.test("meta: from :pools (meta.yaml)", async () => {
  await withLake(async (lake) => {
    await metaLake(lake);
    assert.deepEqual(await lines(lake, "from :pools | drop id | sort name | drop ts"), [
      '{name:"poolA",layout:{order:"asc"(=order.Which),keys:[["a"](=field.Path)](=field.List)}(=order.Layout),seek_stride:65536,threshold:524288000}',
      '{name:"poolB",layout:{order:"desc"(=order.Which),keys:[["b"](=field.Path)](=field.List)}(=order.Layout),seek_stride:65536,threshold:524288000}',
    ]);
    assert.deepEqual(await normalized(lake, "from :pools | name == 'poolA'"), [
      '{ts:TS,name:"poolA",id:ID(=ksuid.KSUID),layout:{order:"asc"(=order.Which),keys:[["a"](=field.Path)](=field.List)}(=order.Layout),seek_stride:65536,threshold:524288000}(=pools.Config)',
    ]);
  });
});

Deno.test("meta: :pools as JSON after a rename (curl-pool-rename.yaml)", async () => {
  await withLake(async (lake) => {
    const p = createPool(lake, { name: "test", layout: { order: "desc", keys: [["ts"]] } });
    renamePool(lake, p.id, "new_test");
    assert.equal(
      await json(lake, "from :pools | id:=0,ts:=0"),
      '{"ts":0,"name":"new_test","id":0,"layout":{"order":"desc","keys":[["ts"]]},"seek_stride":65536,"threshold":524288000}\n',
    );
    const raw = JSON.parse(await json(lake, "from :pools"));
    assert.equal(raw.id, toHex(p.id));
    assert.match(raw.ts, /^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    assert.equal(await json(lake, "from :pools | cut name"), '{"name":"new_test"}\n');
  });
});

Deno.test("meta: objects, log and index rules (meta.yaml)", async () => {
  await withLake(async (lake) => {
    await metaLake(lake);
    assert.deepEqual(await lines(lake, "from poolA@main:objects | cut nameof(this),meta"), [
      '{nameof:"data.Object",meta:{first:1,last:2,count:2(uint64),size:18}(=data.Meta)}',
    ]);
    assert.deepEqual(await lines(lake, "from poolA@main:log | cut nameof(this) | drop ts"), [
      '{nameof:"lake.BranchTip"}',
      '{nameof:"Commit"}',
    ]);
    // desc pool: first is the greatest key.
    assert.deepEqual(await lines(lake, "from poolB@main:objects | yield meta"), [
      "{first:3,last:1,count:3(uint64),size:22}(=data.Meta)",
    ]);
    addRules(lake.catalog, [{ name: "Rule", kind: "field", fields: [["a"]] }]);
    assert.deepEqual(
      await lines(lake, "from :index_rules | nameof:=nameof(this) | drop ts,id"),
      [
        '{name:"Rule",fields:[["a"](=field.Path)](=field.List),nameof:"index.FieldRule"}',
      ],
    );
  });
});

Deno.test("meta: whole records of every kind", async () => {
  await withLake(async (lake) => {
    const { a, la } = await metaLake(lake);
    const objectRec =
      "{id:ID(=ksuid.KSUID),meta:{first:1,last:2,count:2(uint64),size:18}(=data.Meta)}(=data.Object)";
    assert.deepEqual(await normalized(lake, "from poolA@main:objects"), [objectRec]);
    assert.deepEqual(await normalized(lake, "from poolA@main:log"), [
      '{Name:"main",Commit:ID(=ksuid.KSUID)}(=lake.BranchTip)',
      '{id:ID(=KSUID),parent:NIL(KSUID),retries:0(uint8),author:"",date:TS,message:"loaded 1 data object\\n\\n  B62 2 records in 18 data bytes\\n",meta:null}(=Commit)',
    ]);
    assert.deepEqual(await normalized(lake, "from poolA@main:rawlog"), [
      '{id:ID(=ksuid.KSUID),parent:NIL(ksuid.KSUID),retries:0(uint8),author:"",date:TS,message:"loaded 1 data object\\n\\n  B62 2 records in 18 data bytes\\n",meta:null}(=commits.Commit)',
      "{commit:ID(=ksuid.KSUID),object:{id:ID(ksuid.KSUID),meta:{first:1,last:2,count:2(uint64),size:18}(=data.Meta)}(=data.Object)}(=commits.Add)",
    ]);
    assert.deepEqual(await normalized(lake, "from poolA@main:partitions"), [
      `{First:1,Last:2,Objects:[${objectRec}]}(=meta.Partition)`,
    ]);
    const branchMeta =
      '{pool:{ts:TS,name:"poolA",id:ID(=ksuid.KSUID),layout:{order:"asc"(=order.Which),keys:[["a"](=field.Path)](=field.List)}(=order.Layout),seek_stride:65536,threshold:524288000}(=pools.Config),branch:{ts:TS,name:"main",commit:ID(ksuid.KSUID)}(=branches.Config)}(=lake.BranchMeta)';
    assert.deepEqual(await normalized(lake, "from poolA:branches"), [branchMeta]);
    assert.deepEqual(
      await normalized(lake, "from :branches | pool.name == 'poolA'"),
      [branchMeta],
    );
    assert.deepEqual(await lines(lake, "from :branches | yield pool.name | sort this"), [
      '"poolA"',
      '"poolB"',
    ]);
    // The branch tips in :log are those of every branch.
    createBranch(lake, a, "dev", la.commit.id);
    assert.deepEqual(
      await lines(lake, "from poolA@main:log | has(Name) | yield Name | sort this"),
      [
        '"dev"',
        '"main"',
      ],
    );
    assert.deepEqual(await lines(lake, "from poolA@main:vectors"), []);
    assert.deepEqual(await lines(lake, "from poolA@main:indexes"), []);
  });
});

Deno.test("meta: index rules of each kind, sorted by name (query-rules.yaml)", async () => {
  await withLake(async (lake) => {
    addRules(lake.catalog, [
      { name: "foo.bar", kind: "field", fields: [["foo", "bar"]] },
      { name: "IPs", kind: "type", type: "ip" },
      { name: "duration.sum", kind: "agg", script: "sum(duration)" },
    ]);
    assert.deepEqual(await lines(lake, "from :index_rules | sort name | drop id, ts"), [
      '{name:"IPs",type:"ip"}',
      '{name:"duration.sum",script:"sum(duration)"}',
      '{name:"foo.bar",fields:[["foo","bar"](=field.Path)](=field.List)}',
    ]);
    assert.deepEqual(await lines(lake, "from :index_rules | yield nameof(this)"), [
      '"index.TypeRule"',
      '"index.AggRule"',
      '"index.FieldRule"',
    ]);
    assert.deepEqual(await normalized(lake, "from :index_rules | name == 'IPs'"), [
      '{ts:TS,id:ID(=ksuid.KSUID),name:"IPs",type:"ip"}(=index.TypeRule)',
    ]);
  });
});

Deno.test("meta: an empty pool has no objects, partitions or log entries (meta-empty-pool.yaml)", async () => {
  await withLake(async (lake) => {
    createPool(lake, { name: "test" });
    for (const m of ["objects", "partitions", "rawlog", "indexes", "vectors"]) {
      assert.deepEqual(await lines(lake, `from test@main:${m}`), [], m);
    }
    assert.deepEqual(await normalized(lake, "from test@main:log"), [
      '{Name:"main",Commit:NIL(=ksuid.KSUID)}(=lake.BranchTip)',
    ]);
    assert.deepEqual(await lines(lake, "from :pools | yield name"), ['"test"']);
  });
});

Deno.test("meta: unknown names and the wrong level are errors", async () => {
  await withLake(async (lake) => {
    await metaLake(lake);
    const cases: [string, string][] = [
      ["from :log", 'unknown lake metadata type: "log"'],
      ["from :rules", 'unknown lake metadata type: "rules"'],
      ["from poolA:objects", 'unknown pool metadata type: "objects"'],
      ["from poolA:log", 'unknown pool metadata type: "log"'],
      ["from poolA@main:bogus", 'unknown commit metadata type: "bogus"'],
      ["from nope:branches", "nope: pool not found"],
      ["from poolA@nope:objects", '"nope": branch not found'],
    ];
    for (const [q, msg] of cases) assert.equal(await rejection(query(lake, q)), msg, q);
  });
});

Deno.test("meta: filters after a meta source apply", async () => {
  await withLake(async (lake) => {
    await metaLake(lake);
    assert.deepEqual(await lines(lake, "from :pools | layout.order == 'desc' | yield name"), [
      '"poolB"',
    ]);
    assert.deepEqual(await lines(lake, "from poolB@main:objects | meta.count > 10"), []);
    assert.deepEqual(
      await lines(lake, "from poolB@main:log | nameof(this) == 'Commit' | yield author"),
      ['""'],
    );
  });
});
