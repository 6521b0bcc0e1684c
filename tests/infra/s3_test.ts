// The S3 test server (tests/infra/s3.ts, Swift's s3api) with the signing
// client loch uses (aws4fetch, path-style URLs): buckets, whole and ranged
// GETs, HEAD, multipart uploads, ListObjectsV2, DELETE, and what conditional
// writes do. Skipped, with a note, when Swift is not installed.

import assert from "node:assert/strict";
import { s3Binaries, s3Client, startS3 } from "./s3.ts";

const installed = s3Binaries();
if (!installed) {
  console.warn(
    "tests/infra/s3_test.ts skipped: no Swift (apt-get install swift-proxy swift-account swift-container swift-object)",
  );
}

const MiB = 1024 * 1024;

/** Deterministic bytes: `seed` tells parts apart. */
function bytes(n: number, seed: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 8)) & 255;
  return b;
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function sha256(b: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", b as Uint8Array<ArrayBuffer>));
  return Array.from(d, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** XML element texts, in order (S3's answers are simple enough for this). */
function tags(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((m) => m[1]);
}

Deno.test({
  name: "s3 test server: the S3 calls loch needs, signed by aws4fetch",
  ignore: !installed,
  async fn(t) {
    const s3 = await startS3();
    assert.ok(s3);
    try {
      const aws = s3Client(s3);
      const bucket = "loch-test";
      const url = (path = "") => `${s3.endpoint}/${bucket}${path}`;
      /** A signed request whose body is always read. */
      const call = async (u: string, init: RequestInit = {}) => {
        const res = await aws.fetch(u, init);
        return { res, body: new Uint8Array(await res.arrayBuffer()) };
      };
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      const data = bytes(1000, 1);

      await t.step("create a bucket", async () => {
        const { res, body } = await call(url(), { method: "PUT" });
        assert.equal(res.status, 200, text(body));
      });

      await t.step("PUT, GET, ranged GET, HEAD", async () => {
        const put = await call(url("/a/object"), { method: "PUT", body: data });
        assert.equal(put.res.status, 200, text(put.body));
        assert.ok(put.res.headers.get("etag"));

        const get = await call(url("/a/object"));
        assert.equal(get.res.status, 200);
        assert.deepEqual(get.body, data);

        const range = await call(url("/a/object"), { headers: { Range: "bytes=10-19" } });
        assert.equal(range.res.status, 206);
        assert.equal(range.res.headers.get("content-range"), "bytes 10-19/1000");
        assert.deepEqual(range.body, data.slice(10, 20));

        const head = await call(url("/a/object"), { method: "HEAD" });
        assert.equal(head.res.status, 200);
        assert.equal(head.res.headers.get("content-length"), "1000");

        const second = await call(url("/a/second"), { method: "PUT", body: bytes(10, 3) });
        assert.equal(second.res.status, 200, text(second.body));
      });

      await t.step("conditional writes: Swift's s3api refuses them (501)", async () => {
        // Swift 2.30's s3api answers any PUT with If-None-Match, If-Match,
        // If-(Un)Modified-Since with 501 NotImplemented, writing nothing.
        for (const key of ["/a/object", "/a/fresh"]) {
          const put = await call(url(key), {
            method: "PUT",
            body: bytes(10, 2),
            headers: { "If-None-Match": "*" },
          });
          assert.equal(put.res.status, 501, text(put.body));
          assert.match(text(put.body), /<Code>NotImplemented<\/Code>/);
        }
        const kept = await call(url("/a/object"));
        assert.deepEqual(kept.body, data);
        const fresh = await call(url("/a/fresh"), { method: "HEAD" });
        assert.equal(fresh.res.status, 404);
      });

      await t.step("multipart upload", async () => {
        const key = url("/b/multipart");
        const create = await call(`${key}?uploads`, { method: "POST" });
        assert.equal(create.res.status, 200, text(create.body));
        const [uploadId] = tags(text(create.body), "UploadId");
        assert.ok(uploadId);

        const parts = [bytes(5 * MiB, 4), bytes(5 * MiB, 5), bytes(1234, 6)];
        const etags: string[] = [];
        for (const [i, part] of parts.entries()) {
          const up = await call(
            `${key}?partNumber=${i + 1}&uploadId=${encodeURIComponent(uploadId)}`,
            { method: "PUT", body: part },
          );
          assert.equal(up.res.status, 200, text(up.body));
          etags.push(up.res.headers.get("etag")!);
        }
        const complete = await call(`${key}?uploadId=${encodeURIComponent(uploadId)}`, {
          method: "POST",
          body: "<CompleteMultipartUpload>" +
            etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`)
              .join("") +
            "</CompleteMultipartUpload>",
        });
        assert.equal(complete.res.status, 200, text(complete.body));
        assert.doesNotMatch(text(complete.body), /<Error>/);

        const whole = concat(parts);
        const get = await call(key);
        assert.equal(get.res.status, 200);
        assert.equal(get.body.length, whole.length);
        assert.equal(await sha256(get.body), await sha256(whole));

        // A range across the first part boundary.
        const from = 5 * MiB - 5;
        const range = await call(key, { headers: { Range: `bytes=${from}-${from + 9}` } });
        assert.equal(range.res.status, 206);
        assert.deepEqual(range.body, whole.slice(from, from + 10));
      });

      await t.step("ListObjectsV2 with a prefix", async () => {
        const list = await call(url("?list-type=2&prefix=a%2F"));
        assert.equal(list.res.status, 200, text(list.body));
        assert.deepEqual(tags(text(list.body), "Key"), ["a/object", "a/second"]);
        assert.deepEqual(tags(text(list.body), "Size"), ["1000", "10"]);
      });

      await t.step("DELETE", async () => {
        const del = await call(url("/a/object"), { method: "DELETE" });
        assert.equal(del.res.status, 204);
        const gone = await call(url("/a/object"));
        assert.equal(gone.res.status, 404);
        assert.match(text(gone.body), /NoSuchKey/);
      });
    } finally {
      await s3.stop();
    }
  },
});
