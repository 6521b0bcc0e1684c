// `loch serve` as a process: its flags reach the server (-portfile,
// -rootcontentfile, the connection limits), and SIGTERM stops it cleanly.

import assert from "node:assert/strict";
import { startServeProcess } from "../infra/serve_process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Starts `loch serve` over dir/lake with more args, on no workers. */
function startServe(dir: string, more: string[]) {
  return startServeProcess(["-lake", `${dir}/lake`, ...more, "-workers", "0"], `${dir}/port`, {
    stderr: "piped",
  });
}

Deno.test("loch serve: -portfile, -rootcontentfile, and a clean stop on SIGTERM", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loch-serve-cli-" });
  try {
    await Deno.writeTextFile(`${dir}/root.html`, "<p>our own root</p>\n");
    const { child, port } = await startServe(dir, ["-rootcontentfile", `${dir}/root.html`]);
    const root = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await root.text(), "<p>our own root</p>\n");
    assert.equal(root.headers.get("Content-Type"), "text/html; charset=utf-8");
    child.kill("SIGTERM");
    const { code } = await child.status;
    const stderr = new TextDecoder().decode((await child.output()).stderr);
    assert.equal(code, 0, stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loch serve: -max-connections and -header-timeout reach the connection gate", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loch-serve-cli-" });
  try {
    const { child, port } = await startServe(dir, [
      "-max-connections",
      "1",
      "-header-timeout",
      "2s",
    ]);
    const read = async (c: Deno.Conn) => {
      let text = "";
      const buf = new Uint8Array(1024);
      for (let n; (n = await c.read(buf).catch(() => null)) !== null;) {
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
      c.close();
      return text;
    };
    const slow = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
    await slow.write(new TextEncoder().encode("GET /status HTTP/1.1\r\n"));
    const second = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
    assert.match(await read(second), /^HTTP\/1\.1 503 /);
    assert.match(await read(slow), /^HTTP\/1\.1 408 /);
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
    await child.stderr.cancel();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loch serve: -memory-limit bounds what the workers' queries hold", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loch-serve-cli-" });
  try {
    // 8 MiB for two query threads: 4 MiB each, and so for each query.
    const { child, url } = await startServeProcess(
      ["-lake", `${dir}/lake`, "-workers", "2", "-memory-limit", "8MiB"],
      `${dir}/port`,
    );
    const post = (path: string, body: string, accept = "application/json") =>
      fetch(url + path, {
        method: "POST",
        body: new TextEncoder().encode(body),
        headers: { Accept: accept },
      });
    await (await post("/pool", '{"name":"p"}')).text();
    const lines: string[] = [];
    for (let i = 0; i < 40_000; i++) lines.push(`{ts:${i},s:"${"x".repeat(80)}"}`);
    await (await post("/pool/p/branch/main", lines.join("\n"))).text();
    const r = await post(
      "/query?ctrl=true",
      '{"query":"from p | tail 1000000"}',
      "application/x-zjson",
    );
    assert.match(
      await r.text(),
      /"QueryError".*query memory limit exceeded: tail would hold more than the query's 4 MiB \(-memory-limit\)/,
    );
    // What fits, runs.
    const quick = await post("/query", '{"query":"from p | tail 2 | count()"}');
    assert.equal(await quick.text(), '[{"count":2}]\n');
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loch serve: a -memory-limit that is no size is a usage error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loch-serve-cli-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "serve", "-lake", `${dir}/lake`, "-memory-limit", "lots"],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.notEqual(out.code, 0);
    assert.match(new TextDecoder().decode(out.stderr), /invalid -memory-limit: lots/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
