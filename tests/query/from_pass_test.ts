// `from` after other operators (language.md §3.5): its one `pass` leg takes
// the upstream values, its other legs read their sources; and the
// reference's errors for pass legs in the wrong number or place. Expected
// outputs were checked against zq v1.3.0.

import assert from "node:assert/strict";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { fails, run, withFiles } from "./source_helpers.ts";

const INPUT = "{a:1}\n{a:2}\n";

Deno.test("mid-pipeline from: the pass leg takes the upstream values", async () => {
  const opts = { input: INPUT };
  assert.deepEqual(await run("put c:=3 | from (pass => put b:=1)", opts), [
    "{a:1,c:3,b:1}",
    "{a:2,c:3,b:1}",
  ]);
  assert.deepEqual(await run("put c:=3 | from (pass)", opts), ["{a:1,c:3}", "{a:2,c:3}"]);
  assert.deepEqual(
    await run("head 1 | from (pass => put b:=1) | from (pass => put d:=2)", opts),
    ["{a:1,b:1,d:2}"],
  );
  // In a fork or switch leg, and in a lateral scope, the upstream is that of the leg.
  assert.deepEqual(
    await run("fork (=> from (pass => put l:=1) => put r:=2) | sort this", opts),
    ["{a:1,l:1}", "{a:2,l:1}", "{a:1,r:2}", "{a:2,r:2}"],
  );
  assert.deepEqual(
    await run("switch ( case a==1 => from (pass => put x:=1) default => pass) | sort this", opts),
    ["{a:1,x:1}", "{a:2}"],
  );
  assert.deepEqual(await run("over this => ( from (pass) )", opts), [
    '{key:["a"],value:1}',
    '{key:["a"],value:2}',
  ]);
  assert.deepEqual(await run("yield (over a | from (pass ))", opts), ["1", "2"]);
});

Deno.test("mid-pipeline from: source legs run beside the pass leg", async () => {
  await withFiles({ "in.zson": "{a:1}\n{a:2}\n" }, async (dir) => {
    const opts = { input: INPUT };
    const f = `${dir}/in.zson`;
    const text = `put c:=3 | from (pass => put b:=1 file ${f} => put f:=1 ) | sort this`;
    const q = compileQuery(text);
    assert.equal(q.inputs, 1, "the caller's input feeds the pass leg");
    assert.deepEqual(q.sources?.map((s) => s.source.kind), ["File"]);
    assert.deepEqual(await run(text, opts), [
      "{a:1,c:3,b:1}",
      "{a:2,c:3,b:1}",
      "{a:1,f:1}",
      "{a:2,f:1}",
    ]);
    assert.deepEqual(
      await run(`put c:=3 | from (pass => count() file ${f} => count())`, opts),
      ["{count:2(uint64)}", "{count:2(uint64)}"],
    );
    assert.deepEqual(
      await run(`pass | from (pass => head 1 file ${f} => tail 1 ) | sort this`, opts),
      ["{a:1}", "{a:2}"],
    );
    // Declarations scope over the legs.
    assert.deepEqual(
      await run(
        `const k=5 pass | from (pass => const j=2 put x:=k+j file ${f} => put y:=k ) | sort this`,
        opts,
      ),
      ["{a:1,x:7}", "{a:2,x:7}", "{a:1,y:5}", "{a:2,y:5}"],
    );
    // The legs feed a following join (left: the pass leg).
    assert.deepEqual(
      await run(`put c:=3 | from (pass => sort a file ${f} => sort a ) | join on a=a q:=a`, opts),
      ["{a:1,c:3,q:1}", "{a:2,c:3,q:2}"],
    );
    // A leading from, then one after it: two sources and no input of the caller's.
    const both = `from (file ${f} => put x:=1 ) | from (pass => put y:=2 file ${f} ) | sort this`;
    assert.equal(compileQuery(both).inputs, 0);
    assert.deepEqual(await run(both), ["{a:1,x:1,y:2}", "{a:2,x:1,y:2}", "{a:1}", "{a:2}"]);
    // A lone query that yields values runs over a null input (as `loch query` gives it).
    assert.deepEqual(
      await run(`yield 1 | from (pass => yield this+1 file ${f} ) | sort this`, { input: "null" }),
      ["2", "{a:1}", "{a:2}"],
    );
  });
});

Deno.test("mid-pipeline from: a query that stops early", async () => {
  await withFiles({ "in.zson": "{a:1}\n{a:2}\n" }, async (dir) => {
    assert.deepEqual(
      await run(`pass | from (pass file ${dir}/in.zson ) | head 1`, { input: INPUT }),
      ["{a:1}"],
    );
  });
});

Deno.test("parallel legs that each start with from have no upstream", async () => {
  await withFiles({ "a.zson": "{a:1}\n", "b.zson": "{b:2}\n" }, async (dir) => {
    const text = `fork (
      => from (file ${dir}/a.zson => put x:=1 file ${dir}/b.zson => put y:=1 ) | count()
      => from (file ${dir}/b.zson )
    ) | sort this`;
    const q = compileQuery(text);
    assert.equal(q.inputs, 0);
    assert.equal(q.sources?.length, 3);
    assert.deepEqual(await run(text), ["{b:2}", "{count:2(uint64)}"]);
    await fails(
      `fork ( => from (file ${dir}/a.zson pass ) => from (file ${dir}/b.zson ) )`,
      "no data source for 'from operator' pass-through branch",
    );
  });
});

Deno.test("from: the reference's errors for pass-through legs", async () => {
  const opts = { input: INPUT, kind: "invalid" as const };
  await fails(
    "put c:=3 | from (pass pass)",
    "cannot have multiple pass-through branches in 'from operator'",
    opts,
  );
  await fails("put c:=3 | file /dev/null", "upstream data source blocked by 'from operator'", opts);
  await fails(
    "put c:=3 | from (file /dev/null => pass get http://127.0.0.1:9/x )",
    "upstream data source blocked by 'from operator'",
    opts,
  );
  // compiler/ztests/fork-err.yaml
  await fails(
    "fork ( => pass => from (file /dev/null => pass ) )",
    "upstream data source blocked by 'from operator'",
    opts,
  );
  // At the head of a program there is no upstream.
  await fails("from (pass)", "no data source for 'from operator' pass-through branch", opts);
  await fails(
    "from (pass => count() file /dev/null )",
    "no data source for 'from operator' pass-through branch",
    opts,
  );
  // Several legs cannot flow into one from.
  await fails(
    "fork (=>pass =>pass) | from (pass => put b:=1)",
    "'from' operator can have at most one parent",
    opts,
  );
  await fails(
    "put c:=3 | from (pass file /dev/null ) | from (pass)",
    "'from' operator can have at most one parent",
    opts,
  );
  // A lateral scope runs once per value: only a pass leg is allowed in it.
  await fails(
    "over this => ( from (pass file /dev/null ) )",
    "'from' operator in a lateral scope can only have a pass-through branch",
    opts,
  );
});
