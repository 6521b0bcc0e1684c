// Concurrent loads into one branch (lake-api.md §9.4): every load lands,
// nothing is lost, whether the writers share a process or not.

import assert from "node:assert/strict";
import { getBranch } from "../../lib/lake/branches.ts";
import { commitChain } from "../../lib/lake/commits.ts";
import { isNil, toBase62 } from "../../lib/lake/ksuid.ts";
import { Lake } from "../../lib/lake/lake.ts";
import { listPools, type PoolConfig } from "../../lib/lake/pools.ts";
import { SCHEMA_VERSION } from "../../lib/lake/catalog/schema.ts";
import { keyedPool, lines, loadText, range, records, ROOT, withDir, withLake } from "./helpers.ts";

const WRITERS = 8;
const PER_WRITER = 300;

/** Writer w's values: x = w*1000 + i. */
function input(w: number): string {
  return records(range(PER_WRITER), (i) => `{x:${w * 1000 + i},w:${w}}`);
}

/** Checks the pool holds every writer's values once and a chain of one commit per writer. */
async function checkAllLanded(lake: Lake, pool: PoolConfig, commitIds: string[]) {
  const tip = getBranch(lake.catalog, pool.id, "main").commit;
  const chain = commitChain(lake.catalog, pool.id, tip);
  assert.equal(chain.length, WRITERS);
  assert.ok(isNil(chain[WRITERS - 1].parent));
  for (let i = 0; i + 1 < chain.length; i++) {
    assert.equal(toBase62(chain[i].parent), toBase62(chain[i + 1].id));
  }
  assert.deepEqual(chain.map((c) => toBase62(c.id)).sort(), commitIds.slice().sort());
  assert.deepEqual(
    await lines(lake, "from p@main:log | nameof(this) == 'Commit' | count()"),
    [`{count:${WRITERS}(uint64)}`],
  );
  const xs = (await lines(lake, "from p | yield x")).map(Number);
  const want = range(WRITERS).flatMap((w) => range(PER_WRITER).map((i) => w * 1000 + i));
  assert.deepEqual(xs, want);
  assert.deepEqual(
    await lines(lake, "from p | count() by w | sort w | yield count"),
    range(WRITERS).map(() => `${PER_WRITER}(uint64)`),
  );
}

Deno.test("concurrency: 8 loads at once in one process all land", async () => {
  await withLake(async (lake) => {
    const pool = keyedPool(lake, "p", "x", "asc", { threshold: 2000 });
    const results = await Promise.all(range(WRITERS).map((w) => loadText(lake, pool, input(w))));
    await checkAllLanded(lake, pool, results.map((r) => toBase62(r.commit.id)));
  });
});

/** Collects a child's output, resolving `ready` once a line equal to it appears. */
class Output {
  text = "";
  ready: Promise<void>;
  done: Promise<void>;
  constructor(stream: ReadableStream<Uint8Array>, marker: string) {
    let signal!: () => void;
    this.ready = new Promise((r) => (signal = r));
    this.done = (async () => {
      const dec = new TextDecoder();
      for await (const chunk of stream) {
        this.text += dec.decode(chunk, { stream: true });
        if (this.text.split("\n").includes(marker)) signal();
      }
      signal();
    })();
  }
}

/** Runs a fixture in WRITERS processes, released together by a go file once all are ready. */
async function runTogether(script: string, argsOf: (w: number) => string[], go: string) {
  const children = range(WRITERS).map((w) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--config",
        `${ROOT}deno.json`,
        `${ROOT}tests/lake/fixtures/${script}`,
        ...argsOf(w),
      ],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return { child, out: new Output(child.stdout, "ready"), err: new Output(child.stderr, "") };
  });
  await Promise.all(children.map((c) => c.out.ready));
  await Deno.writeFile(go, new Uint8Array(0));
  const statuses = await Promise.all(children.map((c) => c.child.status));
  await Promise.all(children.flatMap((c) => [c.out.done, c.err.done]));
  statuses.forEach((s, w) => assert.equal(s.code, 0, `process ${w}: ${children[w].err.text}`));
  return children.map((c) => c.out.text.trim().split("\n").at(-1)!);
}

Deno.test("concurrency: 8 processes loading into one lake at once all land", async () => {
  await withDir(async (dir) => {
    const lake = await Lake.open(dir);
    const pool = keyedPool(lake, "p", "x", "asc", { threshold: 2000 });
    lake.close();
    const go = `${dir}/go`;
    const ids = await runTogether("load.ts", (w) => [dir, "p", input(w), go], go);
    for (const id of ids) assert.match(id, /^[0-9A-Za-z]{27}$/);
    const reopened = await Lake.open(dir);
    try {
      await checkAllLanded(reopened, pool, ids);
    } finally {
      reopened.close();
    }
  });
});

Deno.test("concurrency: 8 processes creating a new lake and a pool each at once", async () => {
  await withDir(async (dir) => {
    const root = `${dir}/lake`;
    const go = `${dir}/go`;
    const out = await runTogether("create.ts", (w) => [root, `pool${w}`, go], go);
    assert.deepEqual(out, range(WRITERS).map(() => "created"));
    const lake = await Lake.open(root);
    try {
      assert.deepEqual(
        listPools(lake.catalog).map((p) => p.name),
        range(WRITERS).map((w) => `pool${w}`),
      );
      assert.equal(lake.catalog.version(), SCHEMA_VERSION);
    } finally {
      lake.close();
    }
  });
});
