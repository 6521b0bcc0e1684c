// The parts of S3Storage (lib/lake/s3/) that need no real S3 server:
// s3:// URLs and configuration, and, against a small fake server on
// loopback, what a real one rarely does on cue: 5xx answers and refused
// connections (sent again a few times, then an "upstream" error), a body
// that breaks off mid-read (resumed at the next byte), and the bare cost
// of a synchronous read through the bridge worker.

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { isS3, parseS3URL, s3Config } from "../../lib/lake/s3/config.ts";
import { S3Storage } from "../../lib/lake/s3/storage.ts";

const creds = { accessKeyId: "id", secretAccessKey: "secret" };

Deno.test("s3 config: s3:// URLs", () => {
  assert.ok(isS3("s3://b/x") && isS3("S3://b") && !isS3("/tmp/s3://x") && !isS3("file:///x"));
  assert.deepEqual(parseS3URL("s3://bucket"), { bucket: "bucket", key: "" });
  assert.deepEqual(parseS3URL("s3://bucket/"), { bucket: "bucket", key: "" });
  assert.deepEqual(parseS3URL("s3://my.bucket-1/a/b/pools/x.zng"), {
    bucket: "my.bucket-1",
    key: "a/b/pools/x.zng",
  });
  assert.deepEqual(parseS3URL("s3://bucket/lake/"), { bucket: "bucket", key: "lake" });
  for (
    const bad of [
      "s3://",
      "s3:///x",
      "s3://ab/x",
      "s3://-bad/x",
      "s3://b..c/x",
      "s3://bkt/a//b",
      "s3://bkt/a/../b",
      "s3://bkt/x?y",
      "http://bkt/x",
      "/local/dir",
    ]
  ) {
    assert.throws(
      () => parseS3URL(bad),
      (e) => e instanceof LochError && e.kind === "invalid",
      bad,
    );
  }
});

Deno.test("s3 config: options over the environment, AWS's endpoint by default", () => {
  const names = [
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
  ];
  const saved = names.map((n) => [n, Deno.env.get(n)] as const);
  try {
    for (const n of names) Deno.env.delete(n);
    assert.throws(() => s3Config(), /needs credentials/);
    assert.deepEqual(s3Config(creds), {
      endpoint: "https://s3.us-east-1.amazonaws.com",
      region: "us-east-1",
      ...creds,
      sessionToken: undefined,
      retries: 3,
    });
    Deno.env.set("AWS_REGION", "eu-west-3");
    Deno.env.set("AWS_ACCESS_KEY_ID", "env-id");
    Deno.env.set("AWS_SECRET_ACCESS_KEY", "env-secret");
    Deno.env.set("AWS_SESSION_TOKEN", "token");
    Deno.env.set("AWS_ENDPOINT_URL", "http://general:1/");
    assert.equal(s3Config().endpoint, "http://general:1");
    Deno.env.set("AWS_ENDPOINT_URL_S3", "http://s3-only:2");
    const c = s3Config({ accessKeyId: "opt-id", retries: 0 });
    assert.deepEqual(c, {
      endpoint: "http://s3-only:2",
      region: "eu-west-3",
      accessKeyId: "opt-id",
      secretAccessKey: "env-secret",
      sessionToken: "token",
      retries: 0,
    });
    assert.throws(() => s3Config({ endpoint: "ftp://x" }), /invalid S3 endpoint/);
    assert.throws(() => s3Config({ retries: -1 }), /invalid S3 retries/);
  } finally {
    for (const [n, v] of saved) v === undefined ? Deno.env.delete(n) : Deno.env.set(n, v);
  }
});

/** A fake S3 answering from a map of keys (by URL path); plan() can intervene in a request first. */
function fakeS3(plan: (req: Request, n: number) => Response | undefined) {
  const objects = new Map<string, Uint8Array<ArrayBuffer>>();
  let n = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const planned = plan(req, n++);
    if (planned !== undefined) return planned;
    const path = new URL(req.url).pathname;
    if (req.method === "PUT") {
      objects.set(path, await req.bytes());
      return new Response(null, { headers: { etag: '"x"' } });
    }
    const obj = objects.get(path);
    if (obj === undefined) {
      return new Response("<Error><Code>NoSuchKey</Code></Error>", { status: 404 });
    }
    const m = /bytes=(\d+)-(\d*)/.exec(req.headers.get("range") ?? "");
    const from = m ? Number(m[1]) : 0;
    const to = Math.min(obj.length - 1, m && m[2] ? Number(m[2]) : obj.length - 1);
    const headers = { "content-range": `bytes ${from}-${to}/${obj.length}` };
    if (req.method === "HEAD") {
      return new Response(null, { headers: { "content-length": `${obj.length}` } });
    }
    return new Response(obj.slice(from, to + 1), { status: m ? 206 : 200, headers });
  });
  return {
    objects,
    requests: () => n,
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    stop: () => server.shutdown(),
  };
}

const slowDown = () =>
  new Response("<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>", {
    status: 503,
  });

Deno.test("S3Storage: 5xx answers and refused connections are sent again, then fail", async () => {
  let failing = 2;
  const fake = fakeS3(() => failing-- > 0 ? slowDown() : undefined);
  const s = new S3Storage({ ...creds, endpoint: fake.endpoint });
  try {
    assert.equal(await s.createAtomic("s3://bkt/a/f", (w) => w.write(new Uint8Array(5))), 5);
    assert.equal(fake.requests(), 3);
    failing = 100;
    await assert.rejects(s.stat("s3://bkt/a/f"), (e) => {
      assert.ok(e instanceof LochError && e.kind === "upstream", String(e));
      assert.equal(e.message, "S3 HEAD s3://bkt/a/f: 503 ServiceUnavailable");
      return true;
    });
    await assert.rejects(s.list("s3://bkt/a"), /: 503 SlowDown: Reduce your rate$/);
    assert.equal(fake.requests(), 3 + 4 + 4); // retries: 3
  } finally {
    s.close();
    await fake.stop();
  }
  const gone = new S3Storage({ ...creds, endpoint: fake.endpoint, retries: 1 });
  try {
    await assert.rejects(gone.stat("s3://bkt/a/f"), (e) => {
      assert.ok(e instanceof LochError && e.kind === "upstream", String(e));
      assert.match(e.message, /^S3 HEAD s3:\/\/bkt\/a\/f: cannot reach http:\/\/127\.0\.0\.1/);
      return true;
    });
  } finally {
    gone.close();
  }
});

Deno.test("S3Storage: a body that breaks off is resumed at the next byte", async () => {
  const data = Uint8Array.from({ length: 100_000 }, (_, i) => i * 7 & 255);
  let broken = 0;
  const fake = fakeS3((req) => {
    if (req.method !== "GET" || broken++ > 0) return undefined;
    const body = new ReadableStream({
      start(c) {
        c.enqueue(data.slice(0, 1000));
        c.close(); // short of its content-length: the connection ends early
      },
    });
    const headers = { "content-range": `bytes 0-99999/100000`, "content-length": "100000" };
    return new Response(body, { status: 206, headers });
  });
  fake.objects.set("/bkt/x", data);
  const s = new S3Storage({ ...creds, endpoint: fake.endpoint, cacheBytes: 0 });
  try {
    const parts: Uint8Array<ArrayBuffer>[] = [];
    for await (const c of s.readRange("s3://bkt/x", 0, 100_000)) parts.push(c.slice());
    const got = new Uint8Array(await new Blob(parts).arrayBuffer());
    assert.deepEqual(got, data);
    assert.equal(fake.requests(), 2);
  } finally {
    s.close();
    await fake.stop();
  }
});

/**
 * A fast fake S3 on its own thread (the synchronous bridge blocks this one):
 * every key holds 4096 bytes of its last path segment's number.
 */
async function threadedFake(): Promise<{ endpoint: string; stop(): void }> {
  const code = `
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const body = new Uint8Array(4096).fill(Number(new URL(req.url).pathname.split("/").pop()));
      if (req.method === "HEAD") return new Response(null, { headers: { "content-length": "4096" } });
      return new Response(body, { status: 206, headers: { "content-range": "bytes 0-4095/4096" } });
    });
    postMessage(server.addr.port);`;
  const worker = new Worker(`data:application/javascript,${encodeURIComponent(code)}`, {
    type: "module",
  });
  const port = await new Promise<number>((resolve) => worker.onmessage = (e) => resolve(e.data));
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => worker.terminate() };
}

Deno.test("S3Storage: the bridge's own cost (a fast server)", async () => {
  const fake = await threadedFake();
  const s = new S3Storage({ ...creds, endpoint: fake.endpoint });
  try {
    let start = performance.now();
    assert.equal(s.sizeSync("s3://bkt/c/0"), 4096);
    const started = performance.now() - start;
    const out = new Uint8Array(10);
    start = performance.now();
    for (let i = 1; i < 50; i++) assert.equal(s.readSync(`s3://bkt/c/${i}`, 5, out), 10);
    const each = (performance.now() - start) / 49;
    assert.deepEqual(out, new Uint8Array(10).fill(49));
    start = performance.now();
    for (let i = 1; i < 50; i++) assert.equal(s.readSync(`s3://bkt/c/${i}`, 5, out), 10);
    const cached = (performance.now() - start) / 49;
    console.log(
      `  worker start + HEAD: ${started.toFixed(1)} ms; readSync uncached: ${
        each.toFixed(2)
      } ms, ` +
        `cached: ${(cached * 1000).toFixed(1)} µs`,
    );
  } finally {
    s.close();
    fake.stop();
  }
});
