import assert from "node:assert/strict";
import { parseLayout } from "../../lib/cli/lake/create.ts";
import { parseCommitish } from "../../lib/cli/lake/lakeflags.ts";
import { LakeWriter } from "../../lib/cli/lake/lakewriter.ts";
import { chooseOutput } from "../../lib/cli/lake/output.ts";
import { fillWords, formatMessage } from "../../lib/cli/lake/paragraph.ts";
import { ProgressLine, progressText } from "../../lib/cli/lake/progress.ts";
import { abbrevBytes, formatBase2Bytes, parseBytes } from "../../lib/cli/lake/units.ts";
import { isLakeQuery, statsText } from "../../lib/cli/lake/querylake.ts";
import { parseFlags } from "../../lib/cli/flags.ts";
import { outputFlags } from "../../lib/cli/lake/output.ts";
import { NIL_ID, parseID } from "../../lib/lake/ksuid.ts";
import type { DataObject } from "../../lib/lake/objects.ts";
import type { PoolConfig } from "../../lib/lake/pools.ts";
import {
  branchMetaValue,
  branchTipValue,
  commitValue,
  objectValue,
  partitionValue,
  poolValue,
} from "../../lib/lake/records.ts";
import { TypeInt64, TypeNull } from "../../lib/zed/types.ts";
import { Value } from "../../lib/zed/value.ts";

Deno.test("sizes: units as the reference parses and prints them", () => {
  assert.equal(parseBytes("10KB"), 10000);
  assert.equal(parseBytes("10kB"), 10000);
  assert.equal(parseBytes("10KiB"), 10240);
  assert.equal(parseBytes("1MiB512KiB"), 1572864);
  assert.equal(parseBytes("1.5MB"), 1500000);
  assert.equal(parseBytes("4GiB"), 4 * 2 ** 30);
  assert.equal(parseBytes("0"), 0);
  assert.equal(parseBytes("1234"), 1234, "a bare integer is bytes (an extension)");
  assert.throws(() => parseBytes("10XB"), /^Error: units: unknown unit XB in 10XB$/);
  assert.throws(() => parseBytes("MB"), /units: invalid MB/);
  assert.throws(() => parseBytes("1.2.3MB"), /units: unknown unit {2}in 1\.2\.3MB/);
  assert.equal(formatBase2Bytes(524288000), "500MiB");
  assert.equal(formatBase2Bytes(65536), "64KiB");
  assert.equal(formatBase2Bytes(1500), "1KiB476B");
  assert.equal(formatBase2Bytes(0), "0B");
  assert.equal(abbrevBytes(14), "14B");
  assert.equal(abbrevBytes(9999), "9999B");
  assert.equal(abbrevBytes(32042), "32.04KB");
  assert.equal(abbrevBytes(2000000), "2MB");
  assert.equal(abbrevBytes(1234567890), "1.23GB");
});

Deno.test("create: -orderby layouts", () => {
  assert.deepEqual(parseLayout("ts:desc"), { order: "desc", keys: [["ts"]] });
  assert.deepEqual(parseLayout("a.b,c"), { order: "asc", keys: [["a", "b"], ["c"]] });
  assert.deepEqual(parseLayout("x:ASC"), { order: "asc", keys: [["x"]] });
  assert.deepEqual(parseLayout(""), { order: "asc", keys: null });
  assert.throws(() => parseLayout("x:up"), /^LochError: unknown order: up$/);
  assert.throws(() => parseLayout("x:asc:desc"), /only one order clause allowed/);
});

Deno.test("-use: pool, pool@branch, @branch", () => {
  assert.deepEqual(parseCommitish("p"), { pool: "p", branch: "" });
  assert.deepEqual(parseCommitish("p@dev"), { pool: "p", branch: "dev" });
  assert.deepEqual(parseCommitish("a@b@c"), { pool: "a@b", branch: "c" });
  assert.deepEqual(parseCommitish("@dev"), { pool: "", branch: "dev" });
  assert.throws(() => parseCommitish(""), /empty pool and branch/);
  assert.throws(() => parseCommitish("p'x"), /single quote/);
});

Deno.test("query: lake mode only for queries from pools", () => {
  assert.equal(isLakeQuery("from p | count()"), true);
  assert.equal(isLakeQuery("from :pools"), true);
  assert.equal(isLakeQuery("from (pool a => pass pool b => pass)"), true);
  assert.equal(isLakeQuery("file x.json"), false);
  assert.equal(isLakeQuery("count()"), false);
  assert.equal(isLakeQuery("from ("), false);
  assert.equal(statsText(1, 2, 3), "{bytes_read:1,records_read:2,records_matched:3}");
});

Deno.test("output: ZNG never goes to a terminal unless -B", () => {
  const specs = outputFlags("lake");
  const choose = (args: string[], tty: boolean) =>
    chooseOutput(parseFlags(specs, args)[0], "lake", tty);
  assert.equal(choose([], true).format, "lake");
  assert.equal(choose(["-f", "zng"], true).format, "zson");
  assert.equal(choose(["-f", "zng"], true).opts.pretty, 0);
  assert.equal(choose(["-f", "zng"], false).format, "zng");
  assert.equal(choose(["-f", "zng", "-B"], true).format, "zng");
  assert.equal(choose(["-Z"], false).opts.pretty, 4);
  assert.equal(choose(["-z"], false).opts.pretty, 0);
  assert.equal(choose(["-j"], false).format, "json");
  assert.throws(() => choose(["-j", "-f", "zson"], false), /cannot use -j with -f, -z, or -Z/);
  assert.throws(() => choose(["-z", "-f", "zson"], false), /cannot use -z or -Z with -f/);
  assert.equal(chooseOutput(parseFlags(outputFlags("zng"), [])[0], "zng", true).format, "zson");
});

Deno.test("log: messages filled to 80 columns, indented, minimal raggedness", () => {
  assert.equal(
    formatMessage("loaded 1 data object\n\n  ID 1 record in 14 data bytes\n", "    ", 80),
    "    loaded 1 data object\n\n    ID 1 record in 14 data bytes\n\n",
  );
  const words = "aaa bb cc ddddd".split(" ");
  // Greedy would give [aaa bb] [cc] [ddddd]; the balanced fill is better.
  assert.deepEqual(fillWords(words, 6), [["aaa"], ["bb", "cc"], ["ddddd"]]);
  const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
  const lines = formatMessage(long, "    ", 80).trimEnd().split("\n");
  assert.ok(lines.length > 1);
  for (const l of lines) assert.ok(l.length <= 84 && l.startsWith("    "), l);
});

Deno.test("load: the progress line is redrawn in place, throttled, and cleared", () => {
  assert.equal(
    progressText({
      records: 1200,
      bytes: 1_200_000,
      totalBytes: 4_800_000,
      completed: 0,
      inputs: 2,
      elapsedMs: 500,
    }),
    "(0/2) 1200 records 1.20MB/4.80MB 2.40MB/s 25.00%",
  );
  assert.equal(
    progressText({ records: 5, bytes: 100, totalBytes: 0, completed: 1, inputs: 1, elapsedMs: 0 }),
    "(1/1) 5 records 100B 0B/s",
  );
  let now = 0;
  let out = "";
  const line = new ProgressLine((b) => out += new TextDecoder().decode(b), 12, 250, () => now);
  line.update("first");
  now = 100;
  line.update("skipped");
  now = 300;
  line.update("a line too long for 12 columns");
  line.clear();
  assert.equal(out, "\r\x1b[Kfirst\r\x1b[Ka line too \r\x1b[K");
  out = "";
  new ProgressLine((b) => out += new TextDecoder().decode(b), 80).clear();
  assert.equal(out, "", "nothing to clear when nothing was drawn");
});

async function lakeText(values: Value[], head?: string): Promise<string> {
  let text = "";
  const w = new LakeWriter((c) => {
    text += new TextDecoder().decode(c);
    return Promise.resolve();
  }, { head });
  await w.write(values);
  await w.end();
  return text;
}

const ID1 = parseID("2HbOQkVeXzm3eMWEvyzf3xSkpZf");
const ID2 = parseID("2HbOQjKJxu3mivYM2lJ3z4wp5cF");

const pool: PoolConfig = {
  id: ID1,
  name: "logs",
  ts: 0n,
  layout: { order: "desc", keys: [["ts"], ["a", "b"]] },
  seekStride: 65536,
  threshold: 524288000,
};

function object(id: Uint8Array, first: number, last: number): DataObject {
  return {
    id,
    first: new Value(TypeInt64, first),
    last: new Value(TypeInt64, last),
    span: { lo: null, hi: null, mixed: false },
    count: 3,
    size: 32042,
    bytes: 32042,
    columns: null,
  };
}

Deno.test("lake format: pools, branches, objects, partitions", async () => {
  assert.equal(
    await lakeText([poolValue(pool)]),
    "logs 2HbOQkVeXzm3eMWEvyzf3xSkpZf key ts,a.b order desc\n",
  );
  const main = { ts: 0n, name: "main", commit: ID2 };
  const dev = { ts: 0n, name: "dev", commit: NIL_ID };
  assert.equal(
    await lakeText([branchMetaValue(pool, main), branchMetaValue(pool, dev)], "main"),
    "logs@main commit 2HbOQjKJxu3mivYM2lJ3z4wp5cF (HEAD)\n" +
      "logs@dev commit 000000000000000000000000000\n",
  );
  assert.equal(
    await lakeText([objectValue(object(ID1, 1, 2))]),
    "2HbOQkVeXzm3eMWEvyzf3xSkpZf 32.04KB bytes 3 records\n   from 1 to 2\n",
  );
  assert.equal(
    await lakeText([partitionValue(new Value(TypeInt64, 1), new Value(TypeInt64, 5), [
      object(ID1, 1, 2),
      object(ID2, 2, 5),
    ])]),
    "from 1 to 5\n" +
      "  2HbOQkVeXzm3eMWEvyzf3xSkpZf 32.04KB bytes 3 records\n     from 1 to 2\n" +
      "  2HbOQjKJxu3mivYM2lJ3z4wp5cF 32.04KB bytes 3 records\n     from 2 to 5\n",
  );
  assert.equal(
    await lakeText([new Value(TypeInt64, 7), new Value(TypeNull, null)]),
    "7\nnull\n",
    "other values as one-line ZSON",
  );
});

Deno.test("lake format: the commit log", async () => {
  const commit = (id: Uint8Array, parent: Uint8Array, message: string) =>
    commitValue({
      id,
      parent,
      retries: 0,
      author: "tester",
      date: 1672628645_123456789n,
      message,
      meta: null,
    }, "simple");
  const values = [
    branchTipValue("dev", ID2),
    branchTipValue("main", ID2),
    commit(ID2, ID1, "second\n\nmore text"),
    commit(ID1, NIL_ID, ""),
  ];
  assert.equal(
    await lakeText(values, "main"),
    "commit 2HbOQjKJxu3mivYM2lJ3z4wp5cF (dev, HEAD -> main)\n" +
      "Author: tester\nDate:   2023-01-02T03:04:05Z\n\n    second\n\n    more text\n\n" +
      "commit 2HbOQkVeXzm3eMWEvyzf3xSkpZf\nAuthor: tester\nDate:   2023-01-02T03:04:05Z\n\n",
  );
  // A detached HEAD (a commit id) is marked on its commit.
  const detached = await lakeText([commit(ID1, NIL_ID, "x")], "2HbOQkVeXzm3eMWEvyzf3xSkpZf");
  assert.match(detached, /^commit 2HbOQkVeXzm3eMWEvyzf3xSkpZf \(HEAD\)\n/);
});
