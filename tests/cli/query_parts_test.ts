// `loch query` over large JSON files in shards on worker threads
// (lib/cli/parts.ts): the same output, errors and counts as one pass; a
// query or input that cannot be read in shards is read in one pass.

import assert from "node:assert/strict";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { queryInShards, shardsOf } from "../../lib/cli/parts.ts";
import { type Run, TempLake } from "./loch.ts";

/** NDJSON records from..from+n, and one pretty-printed (values over many lines). */
function ndjson(from: number, n: number): string {
  let s = "";
  for (let i = from; i < from + n; i++) {
    s += JSON.stringify({ ts: i, host: `h${i % 7}`, n: i % 5, id: { orig: `10.0.0.${i % 3}` } }) +
      "\n";
  }
  return s;
}

function pretty(from: number, n: number): string {
  let s = "";
  for (let i = from; i < from + n; i++) {
    s += JSON.stringify({ ts: i, host: `h${i % 4}`, nest: { a: { b: i } }, n: i % 5 }, null, 2) +
      "\n";
  }
  return s;
}

const QUERIES = [
  "count()",
  "count() by host | sort host",
  "n==3 | count() by id.orig",
  "collect(n) by host",
  "dcount(host)",
  "sum(n) by host | sort host",
];

async function both(lake: TempLake, args: string[]): Promise<[Run, Run]> {
  const shards = await lake.run(args, { env: { LOCH_QUERY_SPLIT_BYTES: "0", LOCH_WORKERS: "3" } });
  const once = await lake.run(args, { env: { LOCH_QUERY_SPLIT_BYTES: "1e15" } });
  return [shards, once];
}

Deno.test("query in shards: the same output and counts as one pass", async () => {
  const lake = await TempLake.make();
  try {
    const a = await lake.file("a.json", ndjson(0, 3000));
    const b = await lake.file("b.json", pretty(3000, 500));
    const c = await lake.file("c.json", ndjson(5000, 1000));
    for (const q of QUERIES) {
      const [shards, once] = await both(lake, ["query", "-z", "-s", q, a, b, c]);
      assert.equal(once.code, 0, once.stderr);
      assert.deepEqual(shards, once, q);
    }
  } finally {
    await lake.remove();
  }
});

Deno.test("query in shards: a bad value gives the error of one pass", async () => {
  const lake = await TempLake.make();
  try {
    const good = ndjson(0, 2000);
    const bad = await lake.file("bad.json", good + '{"ts":1,"host":}\n' + good);
    const [shards, once] = await both(lake, ["query", "-z", "count() by host", bad]);
    assert.notEqual(once.code, 0);
    assert.deepEqual(shards, once);
  } finally {
    await lake.remove();
  }
});

Deno.test("query in shards: read on workers when the input and query allow it", async () => {
  const lake = await TempLake.make();
  try {
    const a = await lake.file("a.json", ndjson(0, 3000));
    const b = await lake.file("b.json", pretty(3000, 300));
    const run = async (q: string, paths: string[], format = "auto") => {
      let out = "";
      const w = new ZsonWriter((c) => {
        out += new TextDecoder().decode(c);
        return Promise.resolve();
      });
      Deno.env.set("LOCH_QUERY_SPLIT_BYTES", "0");
      try {
        const read = await queryInShards(q, paths, format, 3, w);
        return { read, out };
      } finally {
        Deno.env.delete("LOCH_QUERY_SPLIT_BYTES");
      }
    };
    const ok = await run("count() by n | sort n", [a, b]);
    assert.deepEqual(ok.read, {
      records: 3300,
      bytes: (await Deno.stat(a)).size + (await Deno.stat(b)).size,
    });
    assert.equal(ok.out.split("\n")[0], "{n:0,count:660(uint64)}");
    // Not split: a query whose head does not merge, another format, stdin.
    assert.equal((await run("sum(n)", [a])).read, null);
    assert.equal((await run("count()", [a], "zson")).read, null);
    assert.equal((await run("count()", ["-"])).read, null);
    const zson = await lake.file("v.zson", "{a:1}\n".repeat(100));
    assert.equal((await run("count()", [zson])).read, null);
  } finally {
    await lake.remove();
  }
});

Deno.test("query in shards: shards cover the files once, cut between values", async () => {
  const lake = await TempLake.make();
  try {
    const texts = [ndjson(0, 1000), pretty(1000, 200), ndjson(1200, 10)];
    const paths = await Promise.all(texts.map((t, i) => lake.file(`${i}.json`, t)));
    const sizes = texts.map((t) => new TextEncoder().encode(t).length);
    for (const n of [2, 3, 5]) {
      const shards = await shardsOf(paths, sizes, n);
      assert.ok(shards.length >= 2 && shards.length <= n, `${n}: ${shards.length}`);
      const ranges = shards.flat();
      // In order, without gaps or overlaps, each file whole.
      for (let f = 0; f < paths.length; f++) {
        const mine = ranges.filter((r) => r.path === paths[f]);
        assert.equal(mine[0].start, 0);
        assert.equal(mine[mine.length - 1].end, sizes[f]);
        for (let k = 1; k < mine.length; k++) {
          assert.equal(mine[k].start, mine[k - 1].end);
          // A cut is after `}` and a line break, before `{"`.
          assert.equal(texts[f].slice(mine[k].start - 2, mine[k].start + 2), '}\n{"');
        }
      }
    }
  } finally {
    await lake.remove();
  }
});
