// `loch index create|drop|ls|apply|update`: outputs and errors as the
// reference's `zed index` commands (lake/ztests/index/*.yaml).

import assert from "node:assert/strict";
import { ID, TempLake } from "./loch.ts";

Deno.test("index create, ls and drop (ls.yaml, create-duplicate.yaml, drop.yaml)", async () => {
  const lake = await TempLake.make();
  try {
    let r = await lake.run(["create", "-q", "test"]);
    assert.equal(r.code, 0, r.stderr);
    r = await lake.run(["index", "create", "indexA", "type", "ip", "field", "a.b"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`^indexA\n    rule ${ID} type ip\n    rule ${ID} field a\\.b\n$`),
    );
    r = await lake.run(["index", "create", "-q", "indexB", "agg", "count() by bar"]);
    assert.equal(r.stdout, "");
    r = await lake.run(["index", "create", "-q", "indexB", "field", "c"]);
    r = await lake.run(["index", "ls"]);
    assert.match(
      r.stdout,
      new RegExp(
        `^indexA\n    rule ${ID} type ip\n    rule ${ID} field a\\.b\n` +
          `indexB\n    rule ${ID} agg "count\\(\\) by bar"\n    rule ${ID} field c\n$`,
      ),
    );
    r = await lake.run(["index", "ls", "-z"]);
    assert.equal(r.stdout.split("\n").filter((l) => l !== "").length, 4);

    r = await lake.run(["index", "create", "indexA", "type", "ip"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "index rule already exists\n");
    r = await lake.run(["index", "create", "x", "type", "foo"]);
    assert.equal(r.stderr, 'no such type name: "foo"\n');
    r = await lake.run(["index", "create", "x", "blah", "y"]);
    assert.equal(r.stderr, 'unknown index rule type: "blah"\n');
    r = await lake.run(["index", "create", "x", "field"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^field index rule requires field\(s\) argument\n/);
    r = await lake.run(["index", "create", "x"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^a rule name and at least one index pattern must be specified\n/);

    r = await lake.run([
      "query",
      "-f",
      "text",
      'from :index_rules | name == "indexB" and has(fields) | yield hex(id)',
    ]);
    const hex = r.stdout.trim();
    r = await lake.run(["index", "drop", `0x${hex}`]);
    assert.match(r.stdout, new RegExp(`^${ID} dropped from rule "indexB"\n$`));
    r = await lake.run(["index", "drop", `0x${hex}`]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`^index ${ID} not found\n$`));
    r = await lake.run(["index", "drop", "xyz"]);
    assert.equal(r.stderr, "invalid ID: xyz\n");
    r = await lake.run(["query", "-z", "from :index_rules | drop id, ts"]);
    assert.equal(
      r.stdout,
      '{name:"indexA",type:"ip"}\n' +
        '{name:"indexA",fields:[["a","b"](=field.Path)](=field.List)}\n' +
        '{name:"indexB",script:"count() by bar"}\n',
    );

    r = await lake.run(["index", "bogus"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^loch index: unknown command: bogus\n/);
  } finally {
    await lake.remove();
  }
});

Deno.test("index apply and update, and queries that use the indexes", async () => {
  const lake = await TempLake.make();
  try {
    await lake.run(["create", "-q", "test"]);
    await lake.run(["use", "-q", "test"]);
    const a = await lake.file("a.zson", '{_path:"conn",srcip:127.0.0.1}\n');
    const b = await lake.file("b.zson", '{_path:"dns",srcip:127.0.0.2}\n');
    let r = await lake.run(["load", a]);
    const commitA = r.stdout.split(" ")[0];
    await lake.run(["load", "-q", b]);
    await lake.run(["index", "create", "-q", "paths", "field", "_path"]);
    await lake.run(["index", "create", "-q", "srcip", "field", "srcip"]);

    // apply.yaml: -r rules and a tag (here the commit that added a.zson).
    r = await lake.run(["index", "apply", "-r", "srcip", "-r", "paths", commitA]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${ID} committed\n$`));
    r = await lake.run([
      "query",
      "-z",
      "from test@main:indexes | count() by n:=rule.name | sort n",
    ]);
    assert.equal(r.stdout, '{n:"paths",count:1(uint64)}\n{n:"srcip",count:1(uint64)}\n');
    // The short form: a rule then tags.
    r = await lake.run(["index", "apply", "-q", "paths", commitA]);
    assert.equal(r.code, 0, r.stderr);

    r = await lake.run(["index", "update", "-use", "test@main"]);
    assert.match(r.stdout, new RegExp(`^${ID} committed\n$`));
    r = await lake.run([
      "query",
      "-z",
      "from test@main:indexes | count() by n:=rule.name | sort n",
    ]);
    assert.equal(r.stdout, '{n:"paths",count:2(uint64)}\n{n:"srcip",count:2(uint64)}\n');
    r = await lake.run(["log"]);
    assert.match(r.stdout, /Author: indexer\n.*\n\n {4}index rules applied: paths,srcip\n/);

    r = await lake.run(["index", "update"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "empty transaction\n");
    r = await lake.run(["index", "update", "nope"]);
    assert.equal(r.stderr, 'rule "nope" not found\n');
    r = await lake.run(["index", "apply", "-r", "srcip"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^index apply: one or more object IDs must be provided as arguments\n/);
    r = await lake.run(["index", "apply", commitA]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^index apply: at least one index rule must be specified/);

    r = await lake.run(["query", "-s", "-z", 'from test | _path=="dns" | yield srcip']);
    assert.equal(r.stdout, "127.0.0.2\n");
    assert.match(r.stderr, /records_read:1,/);
  } finally {
    await lake.remove();
  }
});
