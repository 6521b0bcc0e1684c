import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { openReader } from "../../lib/formats/detect.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { openWriter } from "../../lib/formats/registry.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { getBranch } from "../../lib/lake/branches.ts";
import { isNil, toBase62, toHex } from "../../lib/lake/ksuid.ts";
import { load, loadMessage } from "../../lib/lake/load.ts";
import { createPool } from "../../lib/lake/pools.ts";
import {
  dataFiles,
  keyedPool,
  lines,
  loadText,
  range,
  records,
  rejection,
  withLake,
} from "./helpers.ts";

Deno.test("load: a snapshot at every earlier commit shows what was loaded up to it", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const commits: string[] = [];
    const expected: string[][] = [];
    let seen: number[] = [];
    for (const batch of [[5, 1], [3], [9, 0, 4], [2]]) {
      const res = await loadText(lake, p, batch.map((x) => `{x:${x}}`).join("\n"));
      commits.push(toBase62(res.commit.id));
      seen = [...seen, ...batch].sort((a, b) => a - b);
      expected.push(seen.map((x) => `{x:${x}}`));
    }
    for (let i = 0; i < commits.length; i++) {
      assert.deepEqual(await lines(lake, `from p@${commits[i]}`), expected[i], `at ${i}`);
    }
    // Hex ids work too, and so do the commit-level meta-queries.
    const first = getBranch(lake.catalog, p.id, "main");
    assert.equal(toBase62(first.commit), commits[3]);
    const hex1 = toHex(
      lake.catalog.get<{ id: Uint8Array }>(
        "SELECT id FROM commits WHERE parent = ? AND pool_id = ?",
        new Uint8Array(20),
        p.id,
      )!.id,
    );
    assert.equal(hex1.length, 42);
    assert.deepEqual(await lines(lake, `from p@${hex1}`), ["{x:1}", "{x:5}"]);
    assert.deepEqual(await lines(lake, `from p@${commits[1]}:objects | count()`), [
      "{count:2(uint64)}",
    ]);
    assert.deepEqual(
      await lines(lake, `from p@${commits[2]}:log | nameof(this) == "Commit" | count()`),
      ["{count:3(uint64)}"],
    );
    // A commit id of no commit in the pool is an error, not an empty result.
    const bogus = "27aaaaaaaaaaaaaaaaaaaaaaaaa";
    assert.equal(
      await rejection(lines(lake, `from p@${bogus}`)),
      `${bogus}: commit object not found`,
    );
  });
});

Deno.test("load: the commit message and object size are the reference's", async () => {
  await withLake(async (lake) => {
    // log.yaml: {x:1} in a pool keyed on ts (the CLI's default layout).
    const logs = createPool(lake, { name: "logs", layout: { order: "desc", keys: [["ts"]] } });
    const r = await loadText(lake, logs, "{x:1}\n");
    assert.equal(r.objects.length, 1);
    const o = r.objects[0];
    assert.equal(o.size, 14);
    assert.equal(o.count, 1);
    assert.equal(
      r.commit.message,
      `loaded 1 data object\n\n  ${toBase62(o.id)} 1 record in 14 data bytes\n`,
    );
    assert.deepEqual(await lines(lake, "from logs@main:objects | yield meta"), [
      "{first:null,last:null,count:1(uint64),size:14}(=data.Meta)",
    ]);
    // meta.yaml: {a:1} {a:2} in a pool keyed on a, ascending.
    const poolA = keyedPool(lake, "poolA", "a");
    const ra = await loadText(lake, poolA, "{a:1}\n{a:2}\n");
    assert.equal(
      ra.commit.message,
      `loaded 1 data object\n\n  ${toBase62(ra.objects[0].id)} 2 records in 18 data bytes\n`,
    );
    assert.deepEqual(await lines(lake, "from poolA@main:objects | cut nameof(this),meta"), [
      '{nameof:"data.Object",meta:{first:1,last:2,count:2(uint64),size:18}(=data.Meta)}',
    ]);
    assert.deepEqual(
      await lines(lake, "from poolA@main:log | nameof(this) == 'Commit' | yield message"),
      [JSON.stringify(ra.commit.message)],
    );
  });
});

Deno.test("load: messages list at most 11 objects, then `...`", async () => {
  await withLake(async (lake) => {
    // Threshold 1: every value becomes its own object.
    const p = keyedPool(lake, "p", "x", "asc", { threshold: 1 });
    const ten = await loadText(lake, p, records(range(10), (n) => `{x:${n}}`));
    assert.equal(ten.objects.length, 10);
    const tenLines = ten.commit.message.split("\n");
    assert.equal(tenLines[0], "loaded 10 data objects");
    assert.equal(tenLines.length, 2 + 10 + 1);
    assert.ok(!ten.commit.message.includes("..."));
    for (let i = 0; i < 10; i++) {
      const o = ten.objects[i];
      assert.equal(tenLines[2 + i], `  ${toBase62(o.id)} 1 record in ${o.size} data bytes`);
    }
    for (const n of [11, 12]) {
      const r = await loadText(lake, p, records(range(n), (k) => `{x:${k}}`));
      const ls = r.commit.message.split("\n");
      assert.equal(ls[0], `loaded ${n} data objects`);
      assert.equal(ls.length, 2 + 11 + 1 + 1, `${n} objects`);
      assert.equal(ls[13], "  ...");
      assert.equal(ls[14], "");
    }
    assert.equal(loadMessage([]), "loaded 0 data objects\n\n");
  });
});

Deno.test("load: author, message and meta are recorded in the commit", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const r = await loadText(lake, p, "{x:1}", "main", {
      commit: { author: "alice@example.com", body: "first load", meta: '{ source : "x.log" }' },
    });
    assert.equal(r.commit.author, "alice@example.com");
    assert.equal(r.commit.message, "first load");
    assert.equal(r.commit.meta, '{source:"x.log"}');
    assert.ok(isNil(r.commit.parent));
    assert.equal(r.commit.retries, 0);
    const now = BigInt(Date.now()) * 1000000n;
    assert.ok(r.commit.date <= now && r.commit.date > now - 60_000_000_000n);
    await loadText(lake, p, "{x:2}", "main", { commit: { meta: '"normalized-v1"' } });
    await loadText(lake, p, "{x:3}");
    const log = await lines(
      lake,
      "from p@main:log | nameof(this) == 'Commit' | yield {author,message,meta}",
    );
    assert.equal(log.length, 3);
    assert.equal(log[2], '{author:"alice@example.com",message:"first load",meta:{source:"x.log"}}');
    assert.match(
      log[1],
      /^\{author:"",message:"loaded 1 data object\\n\\n {2}\w{27} 1 record in \d+ data bytes\\n",meta:"normalized-v1"\}$/,
    );
    assert.match(log[0], /meta:null\}$/);
    // The full Commit record, with the reference's simple type names.
    const full = await lines(lake, "from p@main:log | tail 1");
    assert.match(
      full[0],
      /^\{id:0x[0-9a-f]{40}\(=KSUID\),parent:0x0{40}\(KSUID\),retries:0\(uint8\),author:"alice@example.com",date:\d{4}-[^,]+Z,message:"first load",meta:\{source:"x.log"\}\}\(=Commit\)$/,
    );
    // Invalid metadata refuses the load.
    const bad = await rejection(
      loadText(lake, p, "{x:4}", "main", { commit: { meta: "{not zson" } }),
    );
    assert.equal(bad, "invalid commit metadata in request");
    assert.equal((await lines(lake, "from p")).length, 3);
  });
});

Deno.test("load: commit metadata can be searched in the log (appmeta.yaml)", async () => {
  await withLake(async (lake) => {
    const logs = createPool(lake, { name: "logs", layout: { order: "desc", keys: [["ts"]] } });
    for (const meta of ['"original"', '"normalized-v1"', '"normalized-v2"']) {
      await loadText(lake, logs, "{ts:1970-01-01T00:00:01Z,v:1}", "main", { commit: { meta } });
      await new Promise((r) => setTimeout(r, 3)); // distinct commit dates (ms)
    }
    assert.deepEqual(
      await lines(lake, "from logs@main:log | grep(normalized*, meta) | sort date | cut meta"),
      ['{meta:"normalized-v1"}', '{meta:"normalized-v2"}'],
    );
  });
});

Deno.test("load: an empty input is `no records in request` and changes nothing", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    for (const text of ["", "\n", "  \n"]) {
      let err: unknown;
      try {
        await loadText(lake, p, text);
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof LochError, `${JSON.stringify(text)}: ${err}`);
      assert.equal(err.message, "no records in request");
      assert.equal(err.kind, "invalid");
    }
    assert.ok(isNil(getBranch(lake.catalog, p.id, "main").commit));
    assert.deepEqual(await dataFiles(lake, p), []);
    assert.equal(
      await rejection(loadText(lake, p, "{x:1}", "nobranch")),
      '"nobranch": branch not found',
    );
  });
});

Deno.test("load: any input format, auto-detected or named; values need not be records", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    await loadText(lake, p, '{"x":3,"s":"json"}\n{"x":1,"s":"json"}\n');
    await loadText(lake, p, "x,s\n2,csv\n");
    const named = await openReader(
      ByteInput.fromBytes(new TextEncoder().encode('{"x":0,"s":"named"}')),
      "json",
    );
    await load(lake, p, "main", named);
    await loadText(lake, p, '"scalar"\n[1,2]\n');
    // ZNG, detected from its bytes.
    let zng = new Uint8Array(0);
    const w = openWriter("zng", (c) => {
      zng = new Uint8Array([...zng, ...c]);
      return Promise.resolve();
    });
    await w.write([parseZsonValue('{x:4,s:"zng"}')]);
    await w.end();
    await load(lake, p, "main", await openReader(ByteInput.fromBytes(zng)));
    assert.deepEqual(await lines(lake, "from p"), [
      '{x:0,s:"named"}',
      '{x:1,s:"json"}',
      '{x:2.,s:"csv"}',
      '{x:3,s:"json"}',
      '{x:4,s:"zng"}',
      "[1,2]",
      '"scalar"',
    ]);
  });
});

Deno.test("load: a read error fails the load, or ends the input with a warning", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const text = "{x:1}\n{x:2}\n{x:}\n{x:3}\n";
    await assert.rejects(loadText(lake, p, text));
    assert.ok(isNil(getBranch(lake.catalog, p.id, "main").commit));
    assert.deepEqual(await dataFiles(lake, p), []);
    const r = await loadText(lake, p, text, "main", { warnOnReadError: true });
    assert.equal(r.warnings.length, 1);
    assert.ok(r.warnings[0].length > 0);
    assert.deepEqual(await lines(lake, "from p"), ["{x:1}", "{x:2}"]);
  });
});

Deno.test("load: object files are complete, named by id, with no temporaries left", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x", "asc", { threshold: 40 });
    const progress: number[] = [];
    const r = await loadText(
      lake,
      p,
      records(range(30), (n) => `{x:${n},pad:"........"}`),
      "main",
      {
        onProgress: (pr) => progress.push(pr.records),
      },
    );
    assert.ok(r.objects.length > 1);
    assert.deepEqual(progress.at(-1), 30);
    const files = await dataFiles(lake, p);
    assert.deepEqual(files, r.objects.map((o) => `${toBase62(o.id)}.zng`).sort());
    for (const o of r.objects) {
      const st = await lake.storage.stat(lake.objectPath(p.id, o.id));
      assert.equal(st?.size, o.size);
    }
  });
});

Deno.test("load: values bigger than the sort buffer's chunks, first or not, come back whole and in order", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "x");
    const rows: string[] = [];
    // 300 KB strings: the first overflows the first chunk alone, later ones
    // arrive when a chunk is partly full and start the next.
    for (let i = 0; i < 40; i++) {
      const big = i % 3 === 0 ? String.fromCharCode(97 + (i % 26)).repeat(300_000) : "s";
      rows.push(`{x:${40 - i},s:"${big}"}`);
    }
    await loadText(lake, p, rows.join("\n"));
    const out = await lines(lake, "from p | yield {x, n: len(s), c: s[0:1]}");
    const want = rows.map((_, i) => ({ x: 40 - i, i })).sort((a, b) => a.x - b.x).map(({ x, i }) =>
      `{x:${x},n:${i % 3 === 0 ? 300000 : 1},c:"${
        i % 3 === 0 ? String.fromCharCode(97 + (i % 26)) : "s"
      }"}`
    );
    assert.deepEqual(out, want);
  });
});

Deno.test("load: string pool keys sort the same as parsed (each key held as its own copy)", async () => {
  await withLake(async (lake) => {
    const p = createPool(lake, { name: "s", layout: { order: "desc", keys: [["k"]] } });
    const keys = [
      "2018-03-24T17:15:20.865716Z",
      "a",
      "2018-03-24T17:15:20.865715Z",
      "zz",
      "b".repeat(40),
    ];
    await loadText(lake, p, keys.map((k) => JSON.stringify({ k })).join("\n"));
    const out = await lines(lake, "from s | yield k");
    assert.deepEqual(out, [...keys].sort().reverse().map((k) => JSON.stringify(k)));
  });
});
