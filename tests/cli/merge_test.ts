import assert from "node:assert/strict";
import { TempLake } from "./loch.ts";

Deno.test("loch merge: the reference's merge-branch scenario", async () => {
  const lake = await TempLake.make();
  try {
    const a = await lake.file("a.zson", "{k:0,a:1}\n");
    const b = await lake.file("b.zson", "{k:1,b:1}\n");
    const c = await lake.file("c.zson", "{k:2,c:1}\n");
    const ok = async (...args: string[]) => {
      const r = await lake.run(args);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    };
    await ok("create", "-q", "-orderby", "k", "POOL");
    await ok("use", "-q", "POOL");
    await ok("load", "-q", "-message", "initial load of a.zson into main", a);
    await ok("branch", "-q", "child");
    await ok("use", "-q", "@child");
    await ok("load", "-q", b);
    assert.equal(await ok("query", "-z", "from POOL"), "{k:0,a:1}\n");
    assert.equal(await ok("query", "-z", "from POOL@child"), "{k:0,a:1}\n{k:1,b:1}\n");

    assert.equal(await ok("merge", "main"), '"child": merged into branch "main"\n');
    assert.equal(await ok("query", "-z", "from POOL@child"), "{k:0,a:1}\n{k:1,b:1}\n");
    assert.equal(await ok("query", "-z", "from POOL"), "{k:0,a:1}\n{k:1,b:1}\n");
    assert.equal(
      await ok(
        "query",
        "-z",
        "from POOL@main:log | has(message) | head 1 | yield [author,message]",
      ),
      '["tester","merged \\"child\\" into \\"main\\""]\n',
    );

    await ok("load", "-q", "-use", "POOL", c);
    assert.equal(await ok("query", "-z", "from POOL"), "{k:0,a:1}\n{k:1,b:1}\n{k:2,c:1}\n");
    assert.equal(await ok("query", "-z", "from POOL@child"), "{k:0,a:1}\n{k:1,b:1}\n");

    await ok("load", "-q", a);
    assert.equal(await ok("merge", "-q", "-message", "second", "main"), "");
    assert.equal(
      await ok("query", "-z", "from POOL"),
      "{k:0,a:1}\n{k:0,a:1}\n{k:1,b:1}\n{k:2,c:1}\n",
    );
    assert.equal(
      await ok("query", "-z", "from POOL@main:log | has(message) | head 1 | yield message"),
      '"second"\n',
    );

    // Nothing more to merge.
    let r = await lake.run(["merge", "main"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'error merging "child" into "main": difference is empty\n');

    // main into another branch needs -f; then the child catches up with main's c.
    r = await lake.run(["merge", "-use", "POOL@main", "child"]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      "merging the main branch into another branch is unusual; use -f to force\n",
    );
    assert.equal(
      await ok("merge", "-f", "-use", "POOL@main", "child"),
      '"main": merged into branch "child"\n',
    );
    assert.equal(
      await ok("query", "-z", "from POOL@child"),
      "{k:0,a:1}\n{k:0,a:1}\n{k:1,b:1}\n{k:2,c:1}\n",
    );
  } finally {
    await lake.remove();
  }
});

Deno.test("loch merge: usage and lookup errors", async () => {
  const lake = await TempLake.make();
  try {
    await lake.run(["create", "-q", "p"]);
    const cases: [string[], string][] = [
      [["merge", "-use", "p@dev"], "merge target branch must be given\n"],
      [["merge", "-use", "p@dev", "a", "b"], "too many arguments\n"],
      [["merge", "-use", "p@dev", "main"], '"dev": branch not found\n'],
      [["merge", "-use", "p@dev", ""], "both a child and a parent branch name must be specified\n"],
      [["merge", "-use", "nopool@dev", "main"], "nopool: pool not found\n"],
      [["merge", "main"], 'HEAD not specified: indicate with -use or run the "use" command\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await lake.run(args);
      assert.equal(r.code, 1, args.join(" "));
      assert.equal(r.stderr, stderr, args.join(" "));
    }
  } finally {
    await lake.remove();
  }
});
