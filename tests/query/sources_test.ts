// `file` and `get` sources (language.md §3.5) as `loch query` runs them over
// no lake, and what is refused when local files are not allowed (the service).

import assert from "node:assert/strict";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { NO_ACCESS, openSources, urlAllowed } from "../../lib/query/sources.ts";
import { closedPort, withFixtureServer } from "./fixture_server.ts";
import { fails, gzip, run, withFiles } from "./source_helpers.ts";

const FILES = {
  "in.zson": "{a:1}\n{a:2}\n",
  "in.json": '{"a":1,"s":"x"}\n',
  "in.csv": "a,b\n1,x\n",
  "with space.zson": "{s:1}\n",
  "bad.zson": "{a:",
};

Deno.test("file: reads a local file, its format detected", async () => {
  await withFiles(FILES, async (dir) => {
    assert.deepEqual(await run(`file ${dir}/in.zson`), ["{a:1}", "{a:2}"]);
    assert.deepEqual(await run(`file ${dir}/in.json | put t:=typeof(a)`), [
      '{a:1,s:"x",t:<int64>}',
    ]);
    assert.deepEqual(await run(`file "${dir}/with space.zson"`), ["{s:1}"]);
    assert.deepEqual(await run(`file ${dir}/in.zson | count()`), ["{count:2(uint64)}"]);
  });
});

Deno.test("file: the format clause names the reader; gzip is unwrapped", async () => {
  await withFiles({ ...FILES, "in.zson.gz": await gzip("{g:1}\n") }, async (dir) => {
    assert.deepEqual(await run(`file ${dir}/in.csv format csv`), ['{a:1.,b:"x"}']);
    assert.deepEqual(await run(`file ${dir}/in.zson format line`), ['"{a:1}"', '"{a:2}"']);
    assert.deepEqual(await run(`file ${dir}/in.zson.gz`), ["{g:1}"]);
    await fails(`file ${dir}/in.zson format nosuch`, `${dir}/in.zson: no such format: "nosuch"`);
    // A format that does not fit the data is an error of that reader.
    await fails(`file ${dir}/in.csv format zson`, new RegExp(`^${dir}/in.csv: `));
  });
});

Deno.test("file: the order clause is a hint and does not reorder", async () => {
  await withFiles(FILES, async (dir) => {
    assert.deepEqual(await run(`file ${dir}/in.zson order a:desc`), ["{a:1}", "{a:2}"]);
    assert.deepEqual(await run(`file ${dir}/in.zson format zson order a, b:asc`), [
      "{a:1}",
      "{a:2}",
    ]);
  });
});

Deno.test("file: errors name the path", async () => {
  await withFiles(FILES, async (dir) => {
    await fails(
      `file ${dir}/nope.zson`,
      `${dir}/nope.zson: file://${dir}/nope.zson: file does not exist`,
      { kind: "not found" },
    );
    await fails(`file ${dir}`, `${dir}: read ${dir}: is a directory`);
    await fails(`file ${dir}/bad.zson`, new RegExp(`^${dir}/bad.zson: format detection error`));
  });
  // A relative path is the working directory's.
  await fails(
    "file no-such-file-here.zson",
    `no-such-file-here.zson: file://${Deno.cwd()}/no-such-file-here.zson: file does not exist`,
  );
});

Deno.test("file: a filter after the source is applied to it", async () => {
  await withFiles(FILES, async (dir) => {
    const q = compileQuery(`from (file ${dir}/in.zson => a==2 file ${dir}/in.json => a==1)`);
    assert.equal(q.inputs, 0);
    assert.equal(q.sources?.length, 2);
    assert.notEqual(q.sources![0].filter, null, "the leading filter is the source's");
    assert.deepEqual(
      await run(`from (file ${dir}/in.zson => a==2 file ${dir}/in.json => a==1) | sort this`),
      ['{a:1,s:"x"}', "{a:2}"],
    );
    assert.deepEqual(await run(`file ${dir}/in.zson | a==1`), ["{a:1}"]);
  });
});

Deno.test("file: refused where local files are not allowed (the service)", async () => {
  await withFiles(FILES, async (dir) => {
    const refused = { access: { files: false, urls: "any" as const }, kind: "invalid" as const };
    await fails(`file ${dir}/in.zson`, `${dir}/in.zson: scheme "file" not allowed`, refused);
    await fails(
      `file file://${dir}/in.zson`,
      `file://${dir}/in.zson: scheme "file" not allowed`,
      refused,
    );
    await fails("file -", 'stdio:stdin: scheme "stdio" not allowed', refused);
    await fails("file stdio:stdin", 'stdio:stdin: scheme "stdio" not allowed', refused);
    // One refused leg refuses the query, before anything is read.
    await fails(
      `from (get http://127.0.0.1:9/x file ${dir}/in.zson )`,
      `${dir}/in.zson: scheme "file" not allowed`,
      refused,
    );
    // The refusal happens when the sources are opened, not on first read.
    assert.throws(
      () => openSources(compileQuery(`file ${dir}/in.zson`).sources, NO_ACCESS),
      /scheme "file" not allowed/,
    );
    // Allowed, a file: URL is a local path.
    assert.deepEqual(await run(`file file://${dir}/in.zson`), ["{a:1}", "{a:2}"]);
  });
});

Deno.test("file and get without a lake: pool sources need one", async () => {
  await fails(
    "from (pool p get http://127.0.0.1:9/x )",
    "semantic analyzer: from pool cannot be used without a lake",
  );
});

Deno.test("get: fetches a URL and reads it like a file", async () => {
  const files = {
    "/in.zson": { body: "{a:1}\n{a:2}\n" },
    "/in.json": { body: '{"a":1}\n', headers: { "content-type": "application/json" } },
    "/in.csv": { body: "a,b\n1,x\n" },
    "/in.gz": { body: await gzip("{g:1}\n") },
    "/moved": { body: null, status: 302, headers: { location: "/in.zson" } },
  };
  await withFixtureServer(files, async ({ url, requests }) => {
    assert.deepEqual(await run(`get ${url}/in.zson`), ["{a:1}", "{a:2}"]);
    assert.deepEqual(await run(`get ${url}/in.json`), ["{a:1}"]);
    assert.deepEqual(await run(`get ${url}/in.csv format csv`), ['{a:1.,b:"x"}']);
    assert.deepEqual(await run(`get ${url}/in.gz`), ["{g:1}"]);
    assert.deepEqual(await run(`get ${url}/moved | count()`), ["{count:2(uint64)}"]);
    assert.deepEqual(await run(`get ${url}/in.zson order a:desc | a==2`), ["{a:2}"]);
    // `file` with an http URL fetches it too (as the reference's storage does).
    assert.deepEqual(await run(`file ${url}/in.json`), ["{a:1}"]);
    assert.deepEqual(
      await run(`from ( get ${url}/in.zson => put x:=1 get ${url}/in.json ) | sort this`),
      ["{a:1,x:1}", "{a:2,x:1}", "{a:1}"],
    );
    assert.ok(requests.includes("/moved") && requests.includes("/in.gz"));
  });
});

Deno.test("get: errors for statuses other than 200 and unreachable hosts", async () => {
  const files = {
    "/boom": { body: "no", status: 500 },
    "/tea": { body: "no", status: 418 },
    "/empty": { body: null, status: 204 },
    "/bad": { body: "{a:" },
  };
  await withFixtureServer(files, async ({ url }) => {
    await fails(`get ${url}/missing`, `${url}/missing: file does not exist`, {
      kind: "not found",
    });
    await fails(`get ${url}/boom`, `${url}/boom: 500 Internal Server Error`, { kind: "upstream" });
    await fails(`get ${url}/tea`, `${url}/tea: 418 I'm a teapot`);
    await fails(`get ${url}/empty`, `${url}/empty: 204 No Content`);
    await fails(`get ${url}/bad`, new RegExp(`^${url}/bad: format detection error`));
    await fails(`get ${url}/bad format zson`, new RegExp(`^${url}/bad: `));
  });
  const port = closedPort();
  const u = `http://127.0.0.1:${port}/x`;
  await fails(
    `get ${u}`,
    `${u}: Get "${u}": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    { kind: "upstream" },
  );
});

Deno.test("get: a prefix allows a URL with its origin and a path under the prefix's", () => {
  const allow = ["http://127.0.0.1:8000/data/", "https://example.com"];
  assert.ok(urlAllowed("http://127.0.0.1:8000/data/x.json", allow));
  assert.ok(urlAllowed("https://example.com/anything", allow));
  assert.ok(urlAllowed("https://user@example.com/x", allow), "userinfo is not the origin");
  for (
    const refused of [
      "http://127.0.0.1:8000/database",
      "http://127.0.0.1:8001/data/x",
      "https://127.0.0.1:8000/data/x",
      "https://example.com.evil.org/x",
      "https://example.com@evil.org/x",
      "not a url",
    ]
  ) assert.ok(!urlAllowed(refused, allow), refused);
  assert.ok(!urlAllowed("http://127.0.0.1:8000/data/x", []), "no prefixes, nothing");
  assert.ok(urlAllowed("http://anything/", "any"));
});

Deno.test("get: only URLs under the allowed prefixes are fetched, redirects included", async () => {
  const files = {
    "/open/in.zson": { body: "{a:1}\n" },
    "/open/hop": { body: null, status: 302, headers: { location: "/open/in.zson" } },
    "/open/out": { body: null, status: 302, headers: { location: "/secret" } },
    "/secret": { body: "{secret:1}\n" },
  };
  await withFixtureServer(files, async ({ url, requests }) => {
    const access = { files: false, urls: [`${url}/open/`] };
    assert.deepEqual(await run(`get ${url}/open/in.zson`, { access }), ["{a:1}"]);
    assert.deepEqual(await run(`get ${url}/open/hop`, { access }), ["{a:1}"]);
    await fails(
      `get ${url}/secret`,
      `${url}/secret: fetching this URL is not allowed here (the server's operator allows URL prefixes with -allow-get)`,
      { access, kind: "invalid" },
    );
    await fails(
      `get ${url}/open/out`,
      `${url}/open/out: Get "${url}/open/out": redirect to a URL not allowed here`,
      { access, kind: "invalid" },
    );
    await fails(`get ${url}/open/in.zson`, /not allowed here/, { access: NO_ACCESS });
    assert.ok(!requests.includes("/secret"), "the refused URL was never requested");
  });
});

Deno.test("get: a URL that does not answer, or stops sending, fails within the time limit", async () => {
  const hung: Promise<void>[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    if (new URL(req.url).pathname === "/slow-body") {
      // Headers and one value, then nothing.
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode("{a:1}\n"));
        },
      });
      return new Response(body);
    }
    // Never answers until the client goes away.
    return new Promise<Response>((resolve) => {
      hung.push(
        new Promise<void>((done) =>
          req.signal.addEventListener("abort", () => {
            resolve(new Response(null));
            done();
          })
        ),
      );
    });
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    const access = { files: false, urls: [url], timeoutMs: 200 };
    await fails(
      `get ${url}/never`,
      `${url}/never: Get "${url}/never": no response within 0.2 s`,
      { access, kind: "upstream" },
    );
    await Promise.all(hung);
    await fails(`get ${url}/slow-body format zson`, `${url}/slow-body: no data within 0.2 s`, {
      access,
      kind: "upstream",
    });
  } finally {
    await server.shutdown();
  }
});

Deno.test("get: a query that stops early stops the download", async () => {
  let cancelled = false;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    // A body that never ends unless the client goes away.
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode("{a:1}\n".repeat(5000)));
      },
      cancel() {
        cancelled = true;
      },
    });
    return new Response(body);
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/endless`;
    assert.deepEqual(await run(`get ${url} format zson | head 1`), ["{a:1}"]);
    for (let i = 0; i < 100 && !cancelled; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(cancelled, "the response body was cancelled");
  } finally {
    await server.shutdown();
  }
});

Deno.test("loch query: file and get sources, and inputs besides them", async () => {
  await withFiles(FILES, async (dir) => {
    const main = new URL("../../main.ts", import.meta.url).pathname;
    const loch = async (...args: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", main, "query", "-z", ...args],
        cwd: dir,
        stdin: "null",
      }).output();
      const dec = new TextDecoder();
      return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
    };
    assert.deepEqual(await loch("file in.zson | put b:=a+1"), {
      code: 0,
      stdout: "{a:1,b:2}\n{a:2,b:3}\n",
      stderr: "",
    });
    const both = await loch("file in.zson", "in.zson");
    assert.equal(both.code, 1);
    assert.equal(
      both.stderr.trim(),
      "redundant inputs specified: use either command-line files or a Zed source operator",
    );
    const missing = await loch("file nope.zson");
    assert.equal(missing.stderr.trim(), `nope.zson: file://${dir}/nope.zson: file does not exist`);
  });
});
