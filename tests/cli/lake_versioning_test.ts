import assert from "node:assert/strict";
import { ID, TempLake } from "./loch.ts";

/** The first word of each line of loch output. */
function firstWords(text: string): string[] {
  return text.trim().split("\n").map((l) => l.split(" ")[0]);
}

Deno.test("revert and delete (revert.yaml, delete.yaml, delete-where*.yaml)", async () => {
  const lake = await TempLake.make();
  try {
    await lake.run(["create", "-q", "-orderby", "x:asc", "p"]);
    await lake.run(["use", "-q", "p"]);
    let r = await lake.run(["load", "-"], { stdin: "{x:1}" });
    const [a] = firstWords(r.stdout);
    r = await lake.run(["load", "-"], { stdin: "{x:2}" });
    assert.equal(r.code, 0, r.stderr);

    r = await lake.run(["revert", "-user", "rev", a]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^"main": ${a} reverted in ${ID}\n$`));
    const revert = r.stdout.trim().split(" ").pop()!;
    assert.equal((await lake.run(["query", "-z", "from p"])).stdout, "{x:2}\n");
    r = await lake.run(["log"]);
    assert.match(r.stdout, new RegExp(`^commit ${revert} \\(HEAD -> main\\)\nAuthor: rev\n`));
    assert.match(r.stdout, new RegExp(`\n    reverted commit ${a}\n`));
    r = await lake.run(["revert", "-q", revert]);
    assert.equal(r.stdout, "");
    assert.equal((await lake.run(["query", "-z", "from p"])).stdout, "{x:1}\n{x:2}\n");

    const [unknown, noArgs, named] = await Promise.all([
      lake.run(["revert", "27aaaaaaaaaaaaaaaaaaaaaaaaa"]),
      lake.run(["revert"]),
      lake.run(["revert", "-use", `p@${a}`, a]),
    ]);
    assert.equal(unknown.stderr, "commit not found: 27aaaaaaaaaaaaaaaaaaaaaaaaa\n");
    assert.equal(noArgs.stderr, "commit ID must be specified\n");
    assert.equal(named.stderr, "branch must be named\n");

    // Delete by object id.
    r = await lake.run(["query", "-f", "text", "from p@main:objects | x := ksuid(id) | yield x"]);
    const objects = r.stdout.trim().split("\n");
    assert.equal(objects.length, 2);
    r = await lake.run(["delete", objects[0]]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${ID} delete committed\n$`));
    assert.equal((await lake.run(["query", "-z", "from p"])).stdout.split("\n").length, 2);

    const [missing, none, both, badWhere, notFilter] = await Promise.all([
      lake.run(["delete", "27aaaaaaaaaaaaaaaaaaaaaaaaa"]),
      lake.run(["delete"]),
      lake.run(["delete", "-where", "x==1", objects[1]]),
      lake.run(["delete", "-where", "x =="]),
      lake.run(["delete", "-where", 'me == "hi" | cut me']),
    ]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, "27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found\n");
    assert.equal(none.stderr, "no data object IDs specified\n");
    assert.equal(both.stderr, "too many arguments\n");
    assert.match(badWhere.stderr, /^error parsing Zed at column/);
    assert.equal(
      notFilter.stderr,
      "invalid delete where query: must be a single filter operation\n",
    );

    // Delete where, then nothing left to match.
    await lake.run(["load", "-"], { stdin: "{x:3}{x:4}{x:5}" });
    r = await lake.run(["delete", "-where", "x <= 3", "-message", "trim"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await lake.run(["query", "-z", "from p"])).stdout, "{x:4}\n{x:5}\n");
    r = await lake.run(["delete", "-where", "x > 100"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "empty transaction\n");
  } finally {
    await lake.remove();
  }
});

Deno.test("compact and vacuum", async () => {
  const lake = await TempLake.make();
  try {
    await lake.run(["create", "-q", "-orderby", "ts", "p"]);
    await lake.run(["use", "-q", "p"]);
    await lake.run(["load", "-"], { stdin: "{ts:1}{ts:3}" });
    await lake.run(["load", "-"], { stdin: "{ts:2}{ts:4}" });
    const before = (await lake.run(["query", "-z", "from p"])).stdout;

    let r = await lake.run(["compact", "27aaaaaaaaaaaaaaaaaaaaaaaaa"]);
    assert.equal(r.stderr, "compact: two or more source objects required\n");
    r = await lake.run(["compact"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${ID} compaction committed\n$`));
    assert.equal((await lake.run(["query", "-z", "from p"])).stdout, before);
    r = await lake.run(["query", "-z", "from p@main:objects | count()"]);
    assert.equal(r.stdout, "{count:1(uint64)}\n");
    r = await lake.run(["compact"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "nothing to compact\n");

    // Load on a branch, drop the branch: its object is what vacuum removes.
    await lake.run(["branch", "-q", "dev"]);
    await lake.run(["load", "-use", "p@dev", "-"], { stdin: "{ts:9}" });
    await lake.run(["branch", "-q", "-d", "dev"]);
    r = await lake.run(["vacuum", "-dryrun"]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines[0], "would vacuum 1 object");
    assert.match(lines[1], new RegExp(`^  pools/${ID}/data/${ID}\\.zng$`));
    r = await lake.run(["vacuum"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /stdin is not a terminal \(use -f\)/);
    r = await lake.run(["vacuum", "-f"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "vacuumed 1 object\n");
    r = await lake.run(["vacuum", "-f", "-dryrun"]);
    assert.equal(r.stdout, "would vacuum 0 objects\n");
    // Everything main ever had is still there.
    assert.equal((await lake.run(["query", "-z", "from p"])).stdout, before);
  } finally {
    await lake.remove();
  }
});
