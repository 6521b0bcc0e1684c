// `loch token` makes API tokens for `loch serve -auth.tokens`, and the lake
// commands against a service send LOCH_TOKEN as their credentials.

import assert from "node:assert/strict";
import { Lake } from "../../lib/lake/lake.ts";
import { Authenticator, readGrants } from "../../lib/service/auth/mod.ts";
import { serve } from "../../lib/service/server.ts";
import { rawAcceptRoutes, routes } from "../../routes/mod.ts";
import { loch } from "./loch.ts";

Deno.test("loch token: prints a new token once, keeps only its hash, refuses a name twice", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/tokens.json`;
    const made = await loch([
      "token",
      "-file",
      file,
      "-name",
      "ci",
      "-access",
      "write",
      "-pool",
      "p",
    ]);
    assert.equal(made.code, 0, made.stderr);
    const token = made.stdout.trim();
    assert.match(token, /^loch_[A-Za-z0-9_-]{43}$/);
    const text = await Deno.readTextFile(file);
    assert.ok(!text.includes(token), "the token itself is not stored");
    const [grant] = await readGrants(file);
    assert.deepEqual({ ...grant, sha256: "" }, {
      name: "ci",
      access: "write",
      pools: ["p"],
      sha256: "",
    });
    const again = await loch(["token", "-file", file, "-name", "ci"]);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /a token named "ci" exists/);
    const bad = await loch(["token", "-file", file, "-name", "x", "-access", "admin"]);
    assert.notEqual(bad.code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lake commands against a service send LOCH_TOKEN", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/tokens.json`;
  const token = (await loch(["token", "-file", file, "-name", "cli", "-access", "write"])).stdout
    .trim();
  const lake = await Lake.open(`${dir}/lake`);
  const server = await serve({
    lake,
    hostname: "127.0.0.1",
    port: 0,
    logLevel: "error",
    version: "test",
    routes,
    rawAccept: rawAcceptRoutes,
    auth: await Authenticator.open({ tokensPath: file }),
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    const env = { LOCH_CONFIG_DIR: `${dir}/config` };
    const refused = await loch(["-lake", url, "create", "-q", "p"], { env });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /missing authentication credentials/);
    const made = await loch(["-lake", url, "create", "-q", "p"], {
      env: { ...env, LOCH_TOKEN: token },
    });
    assert.equal(made.code, 0, made.stderr);
    const ls = await loch(["-lake", url, "ls"], { env: { ...env, LOCH_TOKEN: token } });
    assert.match(ls.stdout, /^p /m);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
