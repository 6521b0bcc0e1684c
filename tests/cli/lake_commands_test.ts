import assert from "node:assert/strict";
import { ID, loch, TempLake } from "./loch.ts";

Deno.test("pools: create, ls, rename, drop", async () => {
  const lake = await TempLake.make();
  try {
    let r = await lake.run(["ls"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `${lake.dir}: no such lake\n`);

    r = await lake.run(["create", "p1"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^pool created: p1 ${ID}\n$`));
    const p1 = r.stdout.trim().split(" ")[3];

    r = await lake.run(["create", "p1"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "p1: pool already exists\n");

    r = await lake.run([
      "create",
      "-q",
      "-orderby",
      "k.a,j:asc",
      "-S",
      "1MiB",
      "-seekstride",
      "4KB",
      "p2",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");

    const [ls, lsZ, lsPool, lsJson] = await Promise.all([
      lake.run(["ls"]),
      lake.run(["ls", "-z"]),
      lake.run(["ls", "p1"]),
      lake.run(["ls", "-f", "json", p1]),
    ]);
    const p2Id = ls.stdout.split("\n")[1].split(" ")[1];
    assert.equal(ls.stdout, `p1 ${p1} key ts order desc\np2 ${p2Id} key k.a,j order asc\n`);
    const p2 = lsZ.stdout.split("\n")[1];
    assert.match(p2, /name:"p2"/);
    assert.match(p2, /order:"asc"\(=order\.Which\),keys:\[\["k","a"\]\(=field\.Path\),\["j"\]/);
    assert.match(p2, /seek_stride:4000,threshold:1048576\}\(=pools\.Config\)$/);
    assert.equal(lsPool.stdout, "p1@main commit 000000000000000000000000000\n");
    assert.equal(JSON.parse(lsJson.stdout).branch.name, "main", "a pool named by its id");

    r = await lake.run(["rename", "p1", "p3"]);
    assert.equal(r.stdout, `pool ${p1} renamed from p1 to p3\n`);
    r = await lake.run(["rename", "p1", "p4"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "p1: pool not found\n");

    // Without -f, drop refuses when stdin is not a terminal.
    r = await lake.run(["drop", "p3"], { stdin: "y\n" });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /stdin is not a terminal/);
    r = await lake.run(["drop", "-f", "p3"]);
    assert.equal(r.stdout, "pool deleted: p3\n");
    r = await lake.run(["ls"]);
    assert.match(r.stdout, /^p2 /);
    assert.equal(r.stdout.split("\n").length, 2);
    assert.deepEqual(
      [...Deno.readDirSync(`${lake.dir}/pools`)].map((e) => e.name).includes(p1),
      false,
    );
  } finally {
    await lake.remove();
  }
});

Deno.test("load, query, log and time travel", async () => {
  const lake = await TempLake.make();
  try {
    await lake.run(["create", "-q", "-orderby", "x:asc", "p"]);
    const a = await lake.file("a.zson", "{x:3}\n{x:1}\n");

    let r = await lake.run(["load", a]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'HEAD not specified: indicate with -use or run the "use" command\n');

    r = await lake.run(["load", "-use", "p", a]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${ID} committed\n$`));
    const first = r.stdout.split(" ")[0];

    r = await lake.run(
      [
        "load",
        "-use",
        "p@main",
        "-user",
        "someone",
        "-message",
        "second load",
        "-meta",
        '"m1"',
        "-",
      ],
      { stdin: '{"x":2}\n' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "", "no progress line when stderr is not a terminal");

    const [all, atFirst, stats, head, nosuch, yieldOne, log, logZ, logAt, objects] = await Promise
      .all([
        lake.run(["query", "-z", "from p"]),
        lake.run(["query", "-z", `from p@${first}`]),
        lake.run(["query", "-s", "-z", "from p | x >= 2"]),
        lake.run(["query", "-use", "p", "-z", "count()"]),
        lake.run(["query", "-z", "from nosuch"]),
        // Without files or `from`, zq's rules still apply.
        lake.run(["query", "-z", "yield 1"]),
        lake.run(["log", "-use", "p"]),
        lake.run(["log", "-use", "p", "-z"]),
        lake.run(["log", "-use", `p@${first}`]),
        lake.run(["query", "-f", "lake", "from p@main:objects"]),
      ]);
    assert.equal(all.stdout, "{x:1}\n{x:2}\n{x:3}\n");
    assert.equal(atFirst.stdout, "{x:1}\n{x:3}\n");
    assert.equal(stats.stdout, "{x:2}\n{x:3}\n");
    assert.match(stats.stderr, /^\{bytes_read:\d+,records_read:3,records_matched:2\}\n$/);
    assert.equal(head.stdout, "{count:3(uint64)}\n");
    assert.equal(nosuch.code, 1);
    assert.equal(nosuch.stderr, "nosuch: pool not found\n");
    assert.equal(yieldOne.stdout, "1\n");

    assert.equal(log.code, 0, log.stderr);
    const date = "Date:   \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ";
    assert.match(
      log.stdout,
      new RegExp(
        `^commit ${ID} \\(HEAD -> main\\)\nAuthor: someone\n${date}\n\n    second load\n\n` +
          `commit ${first}\nAuthor: tester\n${date}\n\n    loaded 1 data object\n\n` +
          `    ${ID} 2 records in \\d+ data bytes\n\n$`,
      ),
    );
    assert.match(
      logZ.stdout,
      /^\{Name:"main",Commit:0x[0-9a-f]{40}\(=ksuid\.KSUID\)\}\(=lake\.BranchTip\)\n/,
    );
    assert.match(logZ.stdout, /message:"second load",meta:"m1"\}\(=Commit\)/);
    assert.match(logAt.stdout, new RegExp(`^commit ${first} \\(HEAD\\)\n`));
    const objectLines = objects.stdout.split("\n");
    assert.equal(objectLines.length, 5);
    assert.match(objectLines[0], new RegExp(`^${ID} \\d+B bytes [12] records$`));
    assert.deepEqual(
      [objectLines[1], objectLines[3]].sort(),
      ["   from 1 to 3", "   from 2 to 2"],
    );
  } finally {
    await lake.remove();
  }
});

Deno.test("load errors", async () => {
  const lake = await TempLake.make();
  try {
    await lake.run(["create", "-q", "p"]);
    const bad = await lake.file("bad.txt", "This file contains no records.\n");
    const zson = await lake.file("a.zson", "{x:1}\n");
    const [garbage, missing, named, empty, meta] = await Promise.all([
      lake.run(["load", "-use", "p", bad]),
      lake.run(["load", "-use", "p", `${lake.root}/nosuch.json`]),
      lake.run(["load", "-use", "p", "-i", "json", zson]),
      lake.run(["load", "-use", "p", "-"], { stdin: "" }),
      lake.run(["load", "-use", "p", "-meta", "{", zson]),
    ]);
    assert.equal(garbage.code, 1);
    assert.match(garbage.stderr, new RegExp(`^${bad}: format detection error\n\tzeek: `));
    assert.equal(missing.stderr, `${lake.root}/nosuch.json: no such file or directory\n`);
    assert.equal(named.code, 1);
    assert.match(named.stderr, new RegExp(`^${zson}: `));
    assert.equal(empty.stderr, "no records in request\n");
    assert.equal(meta.stderr, "invalid commit metadata in request\n");
    const log = await lake.run(["log", "-use", "p"]);
    assert.equal(log.stdout, "", "no failed load committed");
  } finally {
    await lake.remove();
  }
});

Deno.test("branch and use", async () => {
  const lake = await TempLake.make();
  try {
    await lake.run(["create", "-q", "-orderby", "x", "p"]);
    const a = await lake.file("a.zson", "{x:1}\n");
    const b = await lake.file("b.zson", "{x:2}\n");

    const [unset, noPool, noBranch] = await Promise.all([
      lake.run(["use"]),
      lake.run(["use", "@dev"]),
      lake.run(["use", "p@nob"]),
    ]);
    assert.equal(unset.code, 1);
    assert.equal(unset.stderr, "default pool and branch unset\n");
    assert.equal(noPool.stderr, "default pool unset\n");
    assert.equal(noBranch.stderr, '"nob": branch not found\n');
    let r = await lake.run(["use", "p"]);
    assert.equal(r.stdout, 'Switched to branch "main" on pool "p"\n');
    assert.equal(await Deno.readTextFile(`${lake.dir}/.loch-use`), "p@main\n");
    r = await lake.run(["use"]);
    assert.equal(r.stdout, "HEAD at p@main\n");

    await lake.run(["load", "-q", a]);
    r = await lake.run(["branch", "dev"]);
    assert.equal(r.stdout, '"dev": branch created\n');
    r = await lake.run(["branch", "dev"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, "p/dev: branch already exists\n");
    r = await lake.run(["use", "-q", "@dev"]);
    assert.equal(r.stdout, "");
    await lake.run(["load", "-q", b]);

    const [list, dev, main, fromHead] = await Promise.all([
      lake.run(["branch"]),
      lake.run(["query", "-z", "from p@dev"]),
      lake.run(["query", "-z", "from p"]),
      // `from HEAD` reads what `loch use` set.
      lake.run(["query", "-z", "from HEAD | count()"]),
    ]);
    const tips = list.stdout.split("\n");
    assert.match(tips[0], new RegExp(`^p@dev commit ${ID} \\(HEAD\\)$`));
    assert.match(tips[1], new RegExp(`^p@main commit ${ID}$`));
    assert.equal(dev.stdout, "{x:1}\n{x:2}\n");
    assert.equal(main.stdout, "{x:1}\n");
    assert.equal(fromHead.stdout, "{count:2(uint64)}\n");

    r = await lake.run(["branch", "-use", "p", "-d", "dev"]);
    assert.equal(r.stdout, "branch deleted: dev\n");
    r = await lake.run(["ls", "p"]);
    assert.match(r.stdout, new RegExp(`^p@main commit ${ID}\n$`));
    r = await lake.run(["log", "-use", "p@dev"]);
    assert.equal(r.stderr, '"dev": branch not found\n');
  } finally {
    await lake.remove();
  }
});

Deno.test("usage: -h, bad usage exits 2, -lake", async () => {
  const lake = await TempLake.make();
  try {
    const names = ["create", "load", "drop", "query"];
    const helps = await Promise.all(names.map((n) => lake.run([n, "-h"])));
    helps.forEach((r, i) => {
      assert.equal(r.code, 0, names[i]);
      assert.match(r.stdout, new RegExp(`^usage: loch ${names[i]} `), names[i]);
      assert.match(r.stdout, /-lake dir/, names[i]);
    });
    const bad: [string[], string][] = [
      [["create"], "create requires one argument"],
      [
        ["create", "-S", "10XB", "x"],
        'invalid value "10XB" for flag -S: units: unknown unit XB in 10XB',
      ],
      [["ls", "a", "b"], "too many arguments"],
      [["load"], "at least one input file must be specified (- for stdin)"],
      [["log", "x"], "no arguments allowed"],
      [["rename", "a"], "two pool names must be provided"],
      [["drop"], "a single pool name must be specified"],
      [["query", "-nope", "x"], "flag provided but not defined: -nope"],
    ];
    const runs = await Promise.all(bad.map(([args]) => lake.run(args)));
    runs.forEach((r, i) => {
      assert.equal(r.code, 2, bad[i][0].join(" "));
      assert.equal(r.stderr.split("\n")[0], bad[i][1]);
      assert.equal(r.stdout, "");
    });

    // -lake before or after the command name; '' is refused.
    const other = `${lake.root}/other`;
    let r = await loch(["-lake", other, "create", "-q", "x"]);
    assert.equal(r.code, 0, r.stderr);
    r = await loch(["ls", "-lake", other]);
    assert.match(r.stdout, /^x /);
    r = await loch(["ls", "-lake="]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      "lake location must be set (either with the -lake flag or LOCH_LAKE environment variable)\n",
    );
    r = await loch(["ls"], { env: { LOCH_LAKE: "" } });
    assert.equal(r.code, 1, "an empty $LOCH_LAKE is refused too");
    // Without -lake or $LOCH_LAKE, the lake is ./lake.
    r = await loch(["create", "-q", "y"], { cwd: lake.root, noLakeEnv: true });
    assert.equal(r.code, 0, r.stderr);
    r = await lake.run(["ls"]);
    assert.match(r.stdout, /^y /);
  } finally {
    await lake.remove();
  }
});
