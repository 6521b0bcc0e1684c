// S3Storage (lib/lake/s3/) against a real S3 server (tests/infra/s3.ts,
// Swift's s3api): whole and multipart writes, ranged reads, synchronous
// reads through the bridge worker (cached and not), stat, list, remove,
// removeTree, not-found and upstream errors, the read cache's budget, and
// that close() lets the test end with Deno's sanitizers on. Prints the
// latency of synchronous reads and the multipart upload's throughput.
// Skipped, with a note, when Swift is not installed.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { LochError } from "../../lib/errors.ts";
import { S3Storage, type S3StorageOptions } from "../../lib/lake/s3/storage.ts";
import { s3Binaries, s3Client, type S3Server, startS3 } from "../infra/s3.ts";

const installed = s3Binaries();
if (!installed) {
  console.warn(
    "tests/lake/s3_storage_test.ts skipped: no Swift (apt-get install swift-proxy swift-account swift-container swift-object)",
  );
}

const MiB = 1 << 20;
const BUCKET = "loch-lake";
const ROOT = `s3://${BUCKET}/lakes/one`;

function bytes(n: number, seed: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 9)) & 255;
  return b;
}

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function readAll(it: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of it) parts.push(c.slice());
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), at += p.length;
  return out;
}

async function failure(p: Promise<unknown> | (() => unknown)): Promise<LochError> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    assert.ok(e instanceof LochError, String(e));
    return e;
  }
  assert.fail("no error");
}

function ms(from: number): string {
  return `${(performance.now() - from).toFixed(2)} ms`;
}

Deno.test({
  name: "S3Storage against a real S3 server",
  ignore: !installed,
  async fn(t) {
    const s3: S3Server = (await startS3())!;
    const conn = {
      endpoint: s3.endpoint,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
    };
    const aws = s3Client(s3);
    const made = await aws.fetch(`${s3.endpoint}/${BUCKET}`, { method: "PUT" });
    assert.equal(made.status, 200, await made.text());
    const opened: S3Storage[] = [];
    const storage = (opts: S3StorageOptions = {}) => {
      const s = new S3Storage({ ...conn, ...opts });
      opened.push(s);
      return s;
    };
    const st = storage();
    const p = (rest: string) => `${ROOT}/pools/p1/${rest}`;
    try {
      const small = bytes(100_000, 1);
      await t.step("createAtomic: a small file in one PUT, kept in the cache", async () => {
        assert.equal(await st.createAtomic(p("data/small.zng"), (s) => s.write(small)), 100_000);
        assert.equal(st.cache.lookup(p("data/small.zng")), 100_000);
        const empty = await st.createAtomic(p("data/empty.zng"), async () => {});
        assert.equal(empty, 0);
        assert.equal((await st.stat(p("data/empty.zng")))?.size, 0);
      });

      const other = storage();
      await t.step("readRange: whole, partial, past the end (cached and not)", async () => {
        for (const s of [st, other]) {
          assert.equal(
            sha(await readAll(s.readRange(p("data/small.zng"), 0, 100_000))),
            sha(small),
          );
          assert.deepEqual(
            await readAll(s.readRange(p("data/small.zng"), 500, 10)),
            small.slice(500, 510),
          );
          assert.deepEqual(
            await readAll(s.readRange(p("data/small.zng"), 99_995, 50)),
            small.slice(99_995),
          );
          assert.equal((await readAll(s.readRange(p("data/small.zng"), 200_000, 10))).length, 0);
          assert.equal((await readAll(s.readRange(p("data/empty.zng"), 0, 10))).length, 0);
        }
        // other's whole read filled its cache; its partial reads did not need to.
        assert.equal(other.cache.lookup(p("data/small.zng")), 100_000);
      });

      const big = bytes(20 * MiB + 12345, 2);
      await t.step("createAtomic: 20 MiB in a multipart upload, read back equal", async () => {
        const start = performance.now();
        const size = await st.createAtomic(p("data/big.zng"), async (s) => {
          for (let i = 0; i < big.length; i += MiB) await s.write(big.subarray(i, i + MiB));
        });
        const secs = (performance.now() - start) / 1000;
        console.log(
          `  multipart upload: ${(size / MiB / secs).toFixed(1)} MiB/s (${secs.toFixed(2)} s)`,
        );
        assert.equal(size, big.length);
        const head = await aws.fetch(`${s3.endpoint}/${BUCKET}/lakes/one/pools/p1/data/big.zng`, {
          method: "HEAD",
        });
        assert.match(head.headers.get("etag") ?? "", /-3"$/); // three parts
        await head.body?.cancel();
        const fresh = storage({ cacheBytes: 16 * MiB }); // too small to keep it
        assert.equal(
          sha(await readAll(fresh.readRange(p("data/big.zng"), 0, big.length))),
          sha(big),
        );
        assert.equal(fresh.cache.bytes, 0);
        const at = 8 * MiB - 7; // across the first part boundary
        assert.deepEqual(
          await readAll(fresh.readRange(p("data/big.zng"), at, 20)),
          big.slice(at, at + 20),
        );
        assert.equal(sha(await readAll(st.readRange(p("data/big.zng"), 0, big.length))), sha(big));
      });

      await t.step("readSync and sizeSync: from the cache, and through the bridge", async () => {
        const cols = bytes(300_000, 3);
        await st.createAtomic(p("columns/a.arrow"), (s) => s.write(cols));
        await st.createAtomic(p("columns/b.arrow"), (s) => s.write(cols.subarray(0, 1000)));
        const out = new Uint8Array(100);
        let start = performance.now();
        const reps = 1000;
        for (let i = 0; i < reps; i++) st.readSync(p("columns/a.arrow"), 1000 + i, out);
        console.log(
          `  cached readSync (100 B): ${((performance.now() - start) / reps * 1000).toFixed(1)} µs`,
        );
        assert.deepEqual(out, cols.slice(1999, 2099));
        assert.equal(st.sizeSync(p("columns/a.arrow")), 300_000);

        const cold = storage(); // an empty cache: the bridge worker fetches
        start = performance.now();
        assert.equal(cold.sizeSync(p("data/small.zng")), 100_000);
        console.log(`  uncached sizeSync (HEAD), the worker starting: ${ms(start)}`);
        start = performance.now();
        assert.equal((await cold.stat(p("data/small.zng")))?.size, 100_000);
        console.log(`  stat (HEAD, asynchronous, for comparison): ${ms(start)}`);
        start = performance.now();
        assert.equal(cold.sizeSync(p("data/big.zng")), big.length);
        console.log(`  uncached sizeSync (HEAD): ${ms(start)}`);
        start = performance.now();
        assert.equal(cold.readSync(p("columns/a.arrow"), 10, out), 100);
        console.log(`  uncached readSync (300 kB file fetched whole): ${ms(start)}`);
        assert.deepEqual(out, cols.slice(10, 110));
        start = performance.now();
        assert.equal(cold.readSync(p("columns/b.arrow"), 990, out), 10); // short at the end
        console.log(`  uncached readSync (1000 B file fetched whole): ${ms(start)}`);
        assert.deepEqual(out.subarray(0, 10), cols.slice(990, 1000));
        assert.equal(cold.cache.lookup(p("columns/b.arrow")), 1000); // now cached
        start = performance.now();
        assert.equal((await readAll(cold.readRange(p("columns/b.arrow"), 0, 1000))).length, 1000);
        assert.equal((await readAll(other.readRange(p("columns/b.arrow"), 0, 1000))).length, 1000);
        console.log(`  cached + uncached readRange (1000 B): ${ms(start)}`);
        assert.equal(cold.sizeSync(p("columns/none.arrow")), undefined);
        const e = await failure(() => cold.readSync(p("columns/none.arrow"), 0, out));
        assert.equal(e.kind, "not found");
        const tmps = [...Deno.readDirSync(cold.cache.dir)].filter((f) => f.name.includes(".tmp-"));
        assert.deepEqual(tmps, []);

        // Larger than syncWholeBytes: ranged reads, nothing cached.
        const ranged = storage({ syncWholeBytes: 1000 });
        start = performance.now();
        assert.equal(ranged.readSync(p("data/big.zng"), 9 * MiB, out), 100);
        assert.deepEqual(out, big.slice(9 * MiB, 9 * MiB + 100));
        assert.equal(ranged.readSync(p("data/big.zng"), big.length - 5, out), 5);
        assert.equal(ranged.readSync(p("data/big.zng"), big.length + 5, out), 0);
        console.log(`  uncached ranged readSync x3, worker starting: ${ms(start)}`);
        assert.equal(ranged.cache.bytes, 0);
      });

      await t.step("stat", async () => {
        const info = await st.stat(p("data/small.zng"));
        assert.equal(info?.size, 100_000);
        assert.ok(Math.abs(info!.mtimeMs - Date.now()) < 120_000, String(info?.mtimeMs));
        assert.equal(await st.stat(p("data/none.zng")), undefined);
        assert.equal(await st.stat(`${ROOT}/pools/p1/data`), undefined); // a "directory"
      });

      await t.step("list: files and directories, names relative to the directory", async () => {
        for (const f of ["index/r1/x.zng", "index/r1/y.zng", "index/r2/z.zng", "index/top.zng"]) {
          await st.createAtomic(p(f), (s) => s.write(bytes(10, 4)));
        }
        assert.deepEqual(await st.list(p("index")), [
          { name: "r1", isDir: true },
          { name: "r2", isDir: true },
          { name: "top.zng", isDir: false },
        ]);
        assert.deepEqual((await st.list(p("index/r1"))).map((e) => e.name), ["x.zng", "y.zng"]);
        assert.deepEqual(await st.list(`${ROOT}/pools`), [{ name: "p1", isDir: true }]);
        assert.deepEqual(await st.list(p("nothing")), []);
        assert.deepEqual(await st.list(`s3://${BUCKET}`), [{ name: "lakes", isDir: true }]);
      });

      await t.step("remove, and a missing file's error", async () => {
        await st.remove(p("index/top.zng"));
        await st.remove(p("index/top.zng")); // absent: no error
        assert.equal(await st.stat(p("index/top.zng")), undefined);
        assert.equal(st.cache.lookup(p("index/top.zng")), undefined);
        const e = await failure(readAll(st.readRange(p("index/top.zng"), 0, 10)));
        assert.equal(e.kind, "not found");
        assert.equal(e.message, `${p("index/top.zng")}: file does not exist`);
      });

      await t.step("removeTree: every key under the directory, not its namesakes", async () => {
        await st.createAtomic(p("index/r1x.zng"), (s) => s.write(bytes(10, 5)));
        await st.removeTree(p("index/r1"));
        await st.removeTree(p("index/r9")); // absent: no error
        assert.deepEqual((await st.list(p("index"))).map((e) => e.name), ["r1x.zng", "r2"]);
        assert.equal(st.cache.lookup(p("index/r1/x.zng")), undefined);
        await st.removeTree(`${ROOT}/pools/p1`);
        assert.deepEqual(await st.list(`${ROOT}/pools`), []);
      });

      await t.step("a failed createAtomic leaves no object and no upload", async () => {
        for (const n of [1000, 10 * MiB]) {
          const e = await failure(st.createAtomic(p("data/failed.zng"), async (s) => {
            await s.write(bytes(n, 6));
            throw new LochError("invalid", "interrupted");
          }));
          assert.equal(e.message, "interrupted");
          assert.equal(await st.stat(p("data/failed.zng")), undefined);
        }
        const uploads = await aws.fetch(`${s3.endpoint}/${BUCKET}?uploads`);
        assert.doesNotMatch(await uploads.text(), /<Upload>/);
      });

      await t.step("upstream errors carry S3's code", async () => {
        const wrong = storage({ secretAccessKey: "wrong" });
        const e = await failure(wrong.list(ROOT));
        assert.equal(e.kind, "upstream");
        assert.match(e.message, /403 (SignatureDoesNotMatch|AccessDenied)/);
        const head = await failure(wrong.stat(p("x"))); // no body: the status's name
        assert.equal(head.message, `S3 HEAD ${p("x")}: 403 Forbidden`);
        const none = await failure(st.list("s3://no-such-bucket/x"));
        assert.equal(none.kind, "upstream");
        assert.match(none.message, /NoSuchBucket/);
        const bad = await failure(() => st.readSync("s3://x", 0, new Uint8Array(1)));
        assert.equal(bad.kind, "invalid");
      });

      await t.step("the cache keeps to its budget, least recently used out first", async () => {
        const dir = await Deno.makeTempDir({ prefix: "loch-s3-cache-test-" });
        try {
          const c = storage({ cacheBytes: 40_000, cacheDir: dir }); // files ≤ 10 000 bytes
          const f = (i: number) => p(`budget/${i}.zng`);
          for (let i = 0; i < 4; i++) await c.createAtomic(f(i), (s) => s.write(bytes(9000, i)));
          assert.equal(c.cache.bytes, 36_000);
          c.readSync(f(0), 0, new Uint8Array(10)); // 0 is now the most recently used
          for (let i = 4; i < 6; i++) await c.createAtomic(f(i), (s) => s.write(bytes(9000, i)));
          assert.equal(c.cache.bytes, 36_000);
          const kept = [0, 1, 2, 3, 4, 5].filter((i) => c.cache.lookup(f(i)) !== undefined);
          assert.deepEqual(kept, [0, 3, 4, 5]);
          await c.createAtomic(f(9), (s) => s.write(bytes(20_000, 9))); // too big to keep
          assert.equal(c.cache.lookup(f(9)), undefined);
          c.close();
          // An operator's directory stays, and the next storage adopts what is in it.
          const again = storage({ cacheBytes: 40_000, cacheDir: dir });
          assert.equal(again.cache.bytes, 36_000);
          const out = new Uint8Array(9000);
          assert.equal(again.readSync(f(5), 0, out), 9000);
          assert.deepEqual(out, bytes(9000, 5));
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      });

      await t.step("close: the bridge worker ends, a temp cache dir goes", () => {
        const dir = st.cache.dir;
        st.close();
        st.close();
        assert.throws(() => Deno.statSync(dir), Deno.errors.NotFound);
        assert.throws(() => st.sizeSync(p("x")), /closed/);
      });
    } finally {
      for (const s of opened) s.close();
      await s3.stop();
    }
  },
});
