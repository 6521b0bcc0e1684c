// `loch serve` as a process: its flags reach the server (-portfile,
// -rootcontentfile), and SIGTERM stops it cleanly.

import assert from "node:assert/strict";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

Deno.test("loch serve: -portfile, -rootcontentfile, and a clean stop on SIGTERM", async () => {
  const dir = await Deno.makeTempDir({ prefix: "loch-serve-cli-" });
  try {
    await Deno.writeTextFile(`${dir}/root.html`, "<p>our own root</p>\n");
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "serve",
        "-lake",
        `${dir}/lake`,
        "-l",
        "127.0.0.1:0",
        "-portfile",
        `${dir}/port`,
        "-rootcontentfile",
        `${dir}/root.html`,
        "-workers",
        "0",
        "-warmup=false",
        "-log-level",
        "error",
      ],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let port = "";
    for (let i = 0; i < 300 && port === ""; i++) {
      await new Promise((r) => setTimeout(r, 100));
      port = await Deno.readTextFile(`${dir}/port`).catch(() => "");
    }
    assert.match(port, /^\d+/);
    const root = await fetch(`http://127.0.0.1:${port.trim()}/`);
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
