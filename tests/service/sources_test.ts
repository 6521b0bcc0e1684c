// `file` and `get` in queries to the service (POST /query): the service never
// reads its own filesystem for a client, so local files are refused with the
// reference's error; URLs are fetched only under the prefixes the operator
// allows (-allow-get), within a time limit, and no longer than the query.

import assert from "node:assert/strict";
import { Lake } from "../../lib/lake/lake.ts";
import { createPool } from "../../lib/lake/pools.ts";
import { serve } from "../../lib/service/server.ts";
import { rawAcceptRoutes, routes } from "../../routes/mod.ts";
import { loadText } from "../lake/helpers.ts";
import { withFixtureServer } from "../query/fixture_server.ts";

interface Service {
  url: string;
  dir: string;
  lake: Lake;
}

async function withService(
  fn: (s: Service) => Promise<void>,
  opts: { allowGet?: string[] } = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "loch-sources-service-test-" });
  const lake = await Lake.open(`${dir}/lake`);
  const server = await serve({
    lake,
    hostname: "127.0.0.1",
    port: 0,
    logLevel: "error",
    version: "v1.3.0+loch.test",
    routes,
    rawAccept: rawAcceptRoutes,
    allowGet: opts.allowGet,
  });
  try {
    await fn({ url: `http://127.0.0.1:${server.addr.port}`, dir, lake });
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

async function postQuery(
  s: Service,
  query: string,
  opts: { accept?: string; ctrl?: boolean } = {},
): Promise<{ status: number; text: string }> {
  const resp = await fetch(`${s.url}/query${opts.ctrl ? "?ctrl=true" : ""}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: opts.accept ?? "application/x-zson" },
    body: JSON.stringify({ query, head: { pool: "p" } }),
  });
  return { status: resp.status, text: await resp.text() };
}

function errorBody(message: string): string {
  return JSON.stringify({ type: "Error", kind: "invalid operation", error: message }) + "\n";
}

Deno.test("service: file sources are refused", async () => {
  await withService(async (s) => {
    createPool(s.lake, { name: "p" });
    const secret = `${s.dir}/secret.zson`;
    await Deno.writeTextFile(secret, '{secret:"do not serve"}\n');
    for (
      const q of [
        `file ${secret}`,
        `from (pool p file ${secret} )`,
        `from p | from (pass file ${secret} )`,
        `put x:=1 | from (pass => put y:=1 file ${secret} )`,
        `file file://${secret}`,
      ]
    ) {
      const r = await postQuery(s, q);
      assert.equal(r.status, 400, q);
      const shown = q.includes("file://") ? `file://${secret}` : secret;
      assert.equal(r.text, errorBody(`${shown}: scheme "file" not allowed`), q);
      assert.ok(!r.text.includes("do not serve"));
    }
    const stdin = await postQuery(s, "file -");
    assert.equal(stdin.status, 400);
    assert.equal(stdin.text, errorBody('stdio:stdin: scheme "stdio" not allowed'));
  });
});

Deno.test("service: get sources are refused unless the operator allows their URLs", async () => {
  await withFixtureServer({ "/secret": { body: "{secret:1}\n" } }, async (fx) => {
    for (const allowGet of [undefined, [`${fx.url}/public/`]]) {
      await withService(async (s) => {
        createPool(s.lake, { name: "p" });
        for (const q of [`get ${fx.url}/secret`, `from (pool p get ${fx.url}/secret )`]) {
          const r = await postQuery(s, q);
          assert.equal(r.status, 400, q);
          assert.equal(
            r.text,
            errorBody(
              `${fx.url}/secret: fetching this URL is not allowed here (the server's operator allows URL prefixes with -allow-get)`,
            ),
          );
        }
      }, { allowGet });
    }
    assert.deepEqual(fx.requests, [], "nothing was fetched");
  });
});

Deno.test("service: get sources under an allowed prefix are fetched", async () => {
  await withFixtureServer({ "/in.zson": { body: "{a:1}\n{a:2}\n" } }, async (fx) => {
    await withService(async (s) => {
      const pool = createPool(s.lake, { name: "p" });
      await loadText(s.lake, pool, "{a:9}\n");
      const r = await postQuery(s, `get ${fx.url}/in.zson | put b:=a+1`);
      assert.deepEqual(r, { status: 200, text: "{a:1,b:2}\n{a:2,b:3}\n" });
      const mixed = await postQuery(
        s,
        `from p | from (pass => put x:=1 get ${fx.url}/in.zson ) | sort a`,
      );
      assert.deepEqual(mixed, { status: 200, text: "{a:1}\n{a:2}\n{a:9,x:1}\n" });
      // `file` with an http URL is a URL, not a local file.
      assert.equal(
        (await postQuery(s, `file ${fx.url}/in.zson | count()`)).text,
        "{count:2(uint64)}\n",
      );
      assert.ok(fx.requests.length >= 3);
    }, { allowGet: [`${fx.url}/`] });
  });
});

Deno.test("service: a get that fails is the request's error: 404 for a missing URL, 502 for a failing server", async () => {
  await withFixtureServer({ "/boom": { body: "no", status: 500 } }, async (fx) => {
    await withService(async (s) => {
      createPool(s.lake, { name: "p" });
      const missing = await postQuery(s, `get ${fx.url}/missing`, {
        accept: "application/x-zjson",
        ctrl: true,
      });
      assert.equal(missing.status, 404);
      assert.deepEqual(JSON.parse(missing.text), {
        type: "Error",
        kind: "item does not exist",
        error: `${fx.url}/missing: file does not exist`,
      });
      const boom = await postQuery(s, `get ${fx.url}/boom`);
      assert.equal(boom.status, 502);
      assert.equal(JSON.parse(boom.text).error, `${fx.url}/boom: 500 Internal Server Error`);
    }, { allowGet: [`${fx.url}/`] });
  });
});

Deno.test("service: a client that goes away while a get waits closes the upstream request", async () => {
  const closed: string[] = [];
  let waiting = 0;
  const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    waiting++;
    // Answers only when its client (the server under test) lets go.
    return new Promise<Response>((resolve) => {
      req.signal.addEventListener("abort", () => {
        closed.push(new URL(req.url).pathname);
        resolve(new Response(null));
      });
    });
  });
  const up = `http://127.0.0.1:${upstream.addr.port}`;
  try {
    await withService(async (s) => {
      createPool(s.lake, { name: "p" });
      for (let i = 0; i < 3; i++) {
        const client = new AbortController();
        const resp = fetch(`${s.url}/query`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ query: `get ${up}/hang${i}` }),
          signal: client.signal,
        }).catch(() => null);
        for (let k = 0; k < 200 && waiting <= i; k++) await new Promise((r) => setTimeout(r, 10));
        assert.equal(waiting, i + 1, "the upstream request was made");
        client.abort();
        await resp;
        for (let k = 0; k < 300 && closed.length <= i; k++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        assert.deepEqual(closed, Array.from({ length: i + 1 }, (_, j) => `/hang${j}`));
      }
    }, { allowGet: [`${up}/`] });
  } finally {
    await upstream.shutdown();
  }
});
