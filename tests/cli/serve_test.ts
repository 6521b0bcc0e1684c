// `loch serve` as a process: its flags reach the server (-portfile,
// -rootcontentfile, the connection limits), and SIGTERM stops it cleanly.

import assert from "node:assert/strict";
import { startServeProcess } from "../infra/serve_process.ts";

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
