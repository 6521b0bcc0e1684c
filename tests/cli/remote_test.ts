// The lake commands against a running service (-lake http://…): a real
// server on 127.0.0.1 (port 0) in this process, the CLI as subprocesses.
// Outputs are checked as the local tests check them, and errors are
// compared with the same commands run against a lake directory.

import assert from "node:assert/strict";
import { Lake } from "../../lib/lake/lake.ts";
import { type LakeServer, serve } from "../../lib/service/server.ts";
import { rawAcceptRoutes, routes } from "../../routes/mod.ts";
import { ID, loch, type Run, type RunOptions, TempLake } from "./loch.ts";

/** A service over a temporary lake, and a way to run loch against it. */
class RemoteLake {
  private constructor(
    readonly root: string,
    readonly server: LakeServer,
    readonly url: string,
  ) {}

  static async start(): Promise<RemoteLake> {
    const root = await Deno.makeTempDir({ prefix: "loch-remote-" });
    const lake = await Lake.open(`${root}/lake`);
    const server = await serve({
      lake,
      hostname: "127.0.0.1",
      port: 0,
      logLevel: "error",
      version: "test",
      routes,
      rawAccept: rawAcceptRoutes,
    });
    return new RemoteLake(root, server, `http://127.0.0.1:${server.addr.port}`);
  }

  /** Runs `loch -lake <url> args...`, with `loch use` state in this test's own directory. */
  run(args: string[], opts: RunOptions = {}): Promise<Run> {
    return loch(["-lake", this.url, ...args], {
      ...opts,
      env: { LOCH_CONFIG_DIR: `${this.root}/config`, LOCH_USER: "tester", ...opts.env },
    });
  }

  /** Runs a command that must succeed; returns its stdout. */
  async ok(...args: string[]): Promise<string> {
    const r = await this.run(args);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  }

  /** The same with stdin. */
  async okIn(stdin: string, ...args: string[]): Promise<string> {
    const r = await this.run(args, { stdin });
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  }

  async file(name: string, text: string): Promise<string> {
    const path = `${this.root}/${name}`;
    await Deno.writeTextFile(path, text);
    return path;
  }

  async stop(): Promise<void> {
    await this.server.shutdown();
    await Deno.remove(this.root, { recursive: true });
  }
}

async function withRemote(fn: (lake: RemoteLake) => Promise<void>): Promise<void> {
  const remote = await RemoteLake.start();
  try {
    await fn(remote);
  } finally {
    await remote.stop();
  }
}

Deno.test("remote: create, ls, rename, drop", () =>
  withRemote(async (lake) => {
    let r = await lake.run(["create", "p1"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^pool created: p1 ${ID}\n$`));
    const p1 = r.stdout.trim().split(" ")[3];

    const [dup, p2] = await Promise.all([
      lake.run(["create", "p1"]),
      lake.run(["create", "-q", "-orderby", "k.a,j:asc", "-S", "1MiB", "-seekstride", "4KB", "p2"]),
    ]);
    assert.equal(dup.code, 1);
    assert.equal(dup.stderr, "p1: pool already exists\n");
    assert.equal(p2.code, 0, p2.stderr);
    assert.equal(p2.stdout, "");

    const [ls, lsZ, lsPool, lsJson, missing] = await Promise.all([
      lake.run(["ls"]),
      lake.run(["ls", "-z"]),
      lake.run(["ls", "p1"]),
      lake.run(["ls", "-f", "json", p1]),
      lake.run(["ls", "nosuch"]),
    ]);
    const p2Id = ls.stdout.split("\n")[1].split(" ")[1];
    assert.equal(ls.stdout, `p1 ${p1} key ts order desc\np2 ${p2Id} key k.a,j order asc\n`);
    const p2Line = lsZ.stdout.split("\n")[1];
    assert.match(p2Line, /order:"asc"\(=order\.Which\),keys:\[\["k","a"\]\(=field\.Path\),\["j"\]/);
    assert.match(p2Line, /seek_stride:4000,threshold:1048576\}\(=pools\.Config\)$/);
    assert.equal(lsPool.stdout, "p1@main commit 000000000000000000000000000\n");
    assert.equal(JSON.parse(lsJson.stdout).branch.name, "main", "a pool named by its id");
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, "nosuch: pool not found\n");

    r = await lake.run(["rename", "p1", "p3"]);
    assert.equal(r.stdout, `pool ${p1} renamed from p1 to p3\n`);
    const [again, taken, noStdin] = await Promise.all([
      lake.run(["rename", "p1", "p4"]),
      lake.run(["rename", "p3", "p2"]),
      lake.run(["drop", "p3"], { stdin: "y\n" }),
    ]);
    assert.equal(again.stderr, "p1: pool not found\n");
    assert.equal(taken.stderr, "p2: pool already exists\n");
    assert.match(noStdin.stderr, /stdin is not a terminal/);
    r = await lake.run(["drop", "-f", "p3"]);
    assert.equal(r.stdout, "pool deleted: p3\n");
    r = await lake.run(["ls"]);
    assert.equal(r.stdout, `p2 ${p2Id} key k.a,j order asc\n`);
  }));

Deno.test("remote: load (file, stdin, several files), query, log, errors as local", () =>
  withRemote(async (lake) => {
    await lake.ok("create", "-q", "-orderby", "x:asc", "p");
    const a = await lake.file("a.zson", "{x:3}\n{x:1}\n");
    let r = await lake.run(["load", a]);
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
        "second load ✓",
        "-meta",
        '"m1"',
        "-",
      ],
      { stdin: '{"x":2}\n' },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");

    const [all, json, atFirst, stats, head, log, logZ, logAt, objects] = await Promise.all([
      lake.run(["query", "-z", "from p"]),
      lake.run(["query", "-j", "from p | yield {x, s: 'é'}"]),
      lake.run(["query", "-z", `from p@${first}`]),
      lake.run(["query", "-s", "-z", "from p | x >= 2"]),
      lake.run(["query", "-use", "p", "-z", "count()"]),
      lake.run(["log", "-use", "p"]),
      lake.run(["log", "-use", "p", "-z"]),
      lake.run(["log", "-use", `p@${first}`]),
      lake.run(["query", "-f", "lake", "from p@main:objects"]),
    ]);
    assert.equal(all.stdout, "{x:1}\n{x:2}\n{x:3}\n");
    assert.equal(json.stdout, '{"x":1,"s":"é"}\n{"x":2,"s":"é"}\n{"x":3,"s":"é"}\n');
    assert.equal(atFirst.stdout, "{x:1}\n{x:3}\n");
    assert.equal(stats.stdout, "{x:2}\n{x:3}\n");
    assert.match(stats.stderr, /^\{bytes_read:\d+,records_read:3,records_matched:2\}\n$/);
    assert.equal(head.stdout, "{count:3(uint64)}\n");
    const date = "Date:   \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ";
    assert.match(
      log.stdout,
      new RegExp(
        `^commit ${ID} \\(HEAD -> main\\)\nAuthor: someone\n${date}\n\n    second load ✓\n\n` +
          `commit ${first}\nAuthor: tester\n${date}\n\n    loaded 1 data object\n\n` +
          `    ${ID} 2 records in \\d+ data bytes\n\n$`,
      ),
    );
    assert.match(logZ.stdout, /message:"second load ✓",meta:"m1"\}\(=Commit\)/);
    assert.match(logAt.stdout, new RegExp(`^commit ${first} \\(HEAD\\)\n`));
    assert.equal(objects.stdout.split("\n").length, 5);
    assert.match(objects.stdout, new RegExp(`^${ID} \\d+B bytes [12] records\n`));

    // Several inputs of different formats, and gzip sent as it is.
    const b = await lake.file("b.json", '{"x":4}\n');
    const gz = `${lake.root}/c.zson.gz`;
    const zipped = new Blob([new TextEncoder().encode("{x:5}\n")]).stream()
      .pipeThrough(new CompressionStream("gzip"));
    await Deno.writeFile(gz, zipped);
    const [several, gzipped] = await Promise.all([
      lake.run(["load", "-use", "p", b, a]),
      lake.run(["load", "-use", "p", "-i", "zson", gz]),
    ]);
    assert.equal(several.code, 0, several.stderr);
    assert.equal(gzipped.code, 0, gzipped.stderr);
    r = await lake.run(["query", "-z", "from p | count()"]);
    assert.equal(r.stdout, "{count:7(uint64)}\n");

    // Errors read as they do against a lake directory.
    const local = await TempLake.make();
    try {
      await local.run(["create", "-q", "-orderby", "x:asc", "p"]);
      const bad = await lake.file("bad.txt", "This file contains no records.\n");
      const cases: string[][] = [
        ["query", "-z", "from nosuch"],
        ["query", "-use", "p", "-z", "x=="],
        ["query", "-use", "p", "-z", "x > 1 |\n yield x +"],
        ["query", "-z", "from p@nob"],
        ["log", "-use", "p@nob"],
        ["load", "-use", "nosuch", a],
        ["load", "-use", "p", bad],
        ["load", "-use", "p", `${lake.root}/nosuch.json`],
        ["load", "-use", "p", "-"],
        ["load", "-use", "p", "-meta", "{", a],
        ["load", "-use", "p", "-i", "nope", a],
        ["load", "-use", "p", bad, a],
      ];
      const runs = await Promise.all(cases.map((args) =>
        Promise.all([
          lake.run(args, { stdin: "" }),
          local.run(args, { stdin: "" }),
        ])
      ));
      runs.forEach(([remote, here], i) => {
        const what = cases[i].join(" ");
        assert.equal(remote.code, 1, what);
        assert.notEqual(remote.stderr, "", what);
        assert.equal(remote.stderr, here.stderr, what);
      });
    } finally {
      await local.remove();
    }
    r = await lake.run(["query", "-z", "from p | count()"]);
    assert.equal(r.stdout, "{count:7(uint64)}\n", "no failed load committed");
  }));

Deno.test("remote: use, branch, merge", () =>
  withRemote(async (lake) => {
    await lake.ok("create", "-q", "-orderby", "k", "POOL");
    const a = await lake.file("a.zson", "{k:0,a:1}\n");
    const b = await lake.file("b.zson", "{k:1,b:1}\n");
    const [unset, noBranch] = await Promise.all([
      lake.run(["use"]),
      lake.run(["use", "POOL@nob"]),
    ]);
    assert.equal(unset.stderr, "default pool and branch unset\n");
    assert.equal(noBranch.stderr, '"nob": branch not found\n');

    assert.equal(await lake.ok("use", "POOL"), 'Switched to branch "main" on pool "POOL"\n');
    // Kept per service URL in the configuration directory.
    const table = JSON.parse(await Deno.readTextFile(`${lake.root}/config/use.json`));
    assert.deepEqual(table, { [lake.url]: "POOL@main" });
    assert.equal(await lake.ok("use"), "HEAD at POOL@main\n");
    // The same service with a trailing slash, and named by $LOCH_LAKE.
    let r = await loch(["use"], {
      env: { LOCH_LAKE: `${lake.url}/`, LOCH_CONFIG_DIR: `${lake.root}/config` },
    });
    assert.equal(r.stdout, "HEAD at POOL@main\n");

    await lake.ok("load", "-q", "-message", "initial load of a.zson into main", a);
    assert.equal(await lake.ok("branch", "child"), '"child": branch created\n');
    r = await lake.run(["branch", "child"]);
    assert.equal(r.stderr, "POOL/child: branch already exists\n");
    await lake.ok("use", "-q", "@child");
    await lake.ok("load", "-q", b);
    const [list, child, main] = await Promise.all([
      lake.run(["branch"]),
      lake.run(["query", "-z", "from POOL@child"]),
      lake.run(["query", "-z", "from HEAD | count()"]),
    ]);
    const tips = list.stdout.split("\n");
    assert.match(tips[0], new RegExp(`^POOL@child commit ${ID} \\(HEAD\\)$`));
    assert.match(tips[1], new RegExp(`^POOL@main commit ${ID}$`));
    assert.equal(child.stdout, "{k:0,a:1}\n{k:1,b:1}\n");
    assert.equal(main.stdout, "{count:2(uint64)}\n");

    assert.equal(await lake.ok("merge", "main"), '"child": merged into branch "main"\n');
    const [merged, message, again, mainFirst] = await Promise.all([
      lake.run(["query", "-z", "from POOL"]),
      lake.run(["query", "-z", "from POOL@main:log | has(message) | head 1 | yield message"]),
      lake.run(["merge", "main"]),
      lake.run(["merge", "-use", "POOL@main", "child"]),
    ]);
    assert.equal(merged.stdout, "{k:0,a:1}\n{k:1,b:1}\n");
    assert.equal(message.stdout, '"merged \\"child\\" into \\"main\\""\n');
    assert.equal(again.stderr, 'error merging "child" into "main": difference is empty\n');
    assert.equal(
      mainFirst.stderr,
      "merging the main branch into another branch is unusual; use -f to force\n",
    );

    assert.equal(await lake.ok("branch", "-use", "POOL", "-d", "child"), "branch deleted: child\n");
    r = await lake.run(["ls", "POOL"]);
    assert.match(r.stdout, new RegExp(`^POOL@main commit ${ID}\n$`));
    r = await lake.run(["log", "-use", "POOL@child"]);
    assert.equal(r.stderr, '"child": branch not found\n');
  }));

Deno.test("remote: revert, delete, compact, and vacuum refused", () =>
  withRemote(async (lake) => {
    await lake.ok("create", "-q", "-orderby", "x:asc", "p");
    await lake.ok("use", "-q", "p");
    const [a] = (await lake.okIn("{x:1}", "load", "-")).split(" ");
    await lake.okIn("{x:2}", "load", "-q", "-");

    let r = await lake.run(["revert", "-user", "rev", a]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^"main": ${a} reverted in ${ID}\n$`));
    const revert = r.stdout.trim().split(" ").pop()!;
    r = await lake.run(["log"]);
    assert.match(r.stdout, new RegExp(`^commit ${revert} \\(HEAD -> main\\)\nAuthor: rev\n`));
    assert.equal(await lake.ok("query", "-z", "from p"), "{x:2}\n");
    assert.equal(await lake.ok("revert", "-q", revert), "");

    const [unknown, named, objects] = await Promise.all([
      lake.run(["revert", "27aaaaaaaaaaaaaaaaaaaaaaaaa"]),
      lake.run(["revert", "-use", `p@${a}`, a]),
      lake.run(["query", "-f", "text", "from p@main:objects | yield ksuid(id)"]),
    ]);
    assert.equal(unknown.stderr, "commit not found: 27aaaaaaaaaaaaaaaaaaaaaaaaa\n");
    assert.equal(named.stderr, "branch must be named\n");
    const ids = objects.stdout.trim().split("\n");
    assert.equal(ids.length, 2);

    r = await lake.run(["delete", ids[0]]);
    assert.match(r.stdout, new RegExp(`^${ID} delete committed\n$`));
    const [left, missing, badWhere, notFilter] = await Promise.all([
      lake.run(["query", "-z", "from p | count()"]),
      lake.run(["delete", "27aaaaaaaaaaaaaaaaaaaaaaaaa"]),
      lake.run(["delete", "-where", "x =="]),
      lake.run(["delete", "-where", 'me == "hi" | cut me']),
    ]);
    assert.equal(left.stdout, "{count:1(uint64)}\n");
    assert.equal(missing.stderr, "27aaaaaaaaaaaaaaaaaaaaaaaaa: commit object not found\n");
    assert.match(badWhere.stderr, /^error parsing Zed at column 5:\nx ==\n/);
    assert.equal(
      notFilter.stderr,
      "invalid delete where query: must be a single filter operation\n",
    );

    await lake.okIn("{x:3}{x:4}{x:5}", "load", "-q", "-");
    r = await lake.run(["delete", "-where", "x <= 3", "-message", "trim"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await lake.ok("query", "-z", "from p"), "{x:4}\n{x:5}\n");
    r = await lake.run(["delete", "-where", "x > 100"]);
    assert.equal(r.stderr, "empty transaction\n");

    // Compact: named objects, then automatic.
    await lake.okIn("{x:1}{x:6}", "load", "-q", "-");
    r = await lake.run(["compact", "27aaaaaaaaaaaaaaaaaaaaaaaaa"]);
    assert.equal(r.stderr, "compact: two or more source objects required\n");
    r = await lake.run(["compact"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${ID} compaction committed\n$`));
    const [after, count, nothing] = await Promise.all([
      lake.run(["query", "-z", "from p"]),
      lake.run(["query", "-z", "from p@main:objects | count()"]),
      lake.run(["compact"]),
    ]);
    assert.equal(after.stdout, "{x:1}\n{x:4}\n{x:5}\n{x:6}\n");
    assert.equal(count.stdout, "{count:1(uint64)}\n");
    assert.equal(nothing.stdout, "nothing to compact\n");

    r = await lake.run(["vacuum", "-f"]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `vacuum is not available on a lake service (${lake.url}): ` +
        "run it with -lake set to the lake's directory\n",
    );
  }));

Deno.test("remote: index create, ls, apply, update, drop", () =>
  withRemote(async (lake) => {
    await lake.ok("create", "-q", "test");
    await lake.ok("use", "-q", "test");
    let r = await lake.run(["index", "create", "indexA", "type", "ip", "field", "a.b"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`^indexA\n    rule ${ID} type ip\n    rule ${ID} field a\\.b\n$`),
    );
    assert.equal(await lake.ok("index", "create", "-q", "indexB", "agg", "count() by bar"), "");
    const [ls, dup, badType] = await Promise.all([
      lake.run(["index", "ls"]),
      lake.run(["index", "create", "indexA", "type", "ip"]),
      lake.run(["index", "create", "x", "type", "foo"]),
    ]);
    assert.match(
      ls.stdout,
      new RegExp(
        `^indexA\n    rule ${ID} type ip\n    rule ${ID} field a\\.b\n` +
          `indexB\n    rule ${ID} agg "count\\(\\) by bar"\n$`,
      ),
    );
    assert.equal(dup.stderr, "index rule already exists\n");
    assert.equal(badType.stderr, 'no such type name: "foo"\n');

    const hex = (await lake.ok(
      "query",
      "-f",
      "text",
      'from :index_rules | name == "indexB" | yield hex(id)',
    )).trim();
    r = await lake.run(["index", "drop", `0x${hex}`]);
    assert.match(r.stdout, new RegExp(`^${ID} dropped from rule "indexB"\n$`));
    r = await lake.run(["index", "drop", `0x${hex}`]);
    assert.match(r.stderr, new RegExp(`^index ${ID} not found\n$`));

    const a = await lake.file("a.zson", '{_path:"conn",srcip:127.0.0.1}\n');
    const b = await lake.file("b.zson", '{_path:"dns",srcip:127.0.0.2}\n');
    const commitA = (await lake.ok("load", a)).split(" ")[0];
    await lake.ok("load", "-q", b);
    await lake.ok("index", "create", "-q", "paths", "field", "_path");
    r = await lake.run(["index", "apply", "-r", "paths", commitA]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${ID} committed\n$`));
    r = await lake.run(["index", "update", "-use", "test@main"]);
    assert.match(r.stdout, new RegExp(`^${ID} committed\n$`));
    const [indexes, again, nope, pruned] = await Promise.all([
      lake.run(["query", "-z", "from test@main:indexes | count() by n:=rule.name | sort n"]),
      lake.run(["index", "update"]),
      lake.run(["index", "update", "nope"]),
      lake.run(["query", "-s", "-z", 'from test | _path=="dns" | yield srcip']),
    ]);
    assert.equal(
      indexes.stdout,
      '{n:"indexA",count:4(uint64)}\n{n:"paths",count:2(uint64)}\n',
    );
    assert.equal(again.stderr, "empty transaction\n");
    assert.equal(nope.stderr, 'rule "nope" not found\n');
    assert.equal(pruned.stdout, "127.0.0.2\n");
    assert.match(pruned.stderr, /records_read:1,/);
  }));
