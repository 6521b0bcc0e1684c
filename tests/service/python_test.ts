// The Zed Python client (v1.3.0, tests/fixtures/zed-python) against loch:
// Zed's python-auth.yaml scenario with Zed's test key pair. With a stored
// token it creates a pool, loads and queries; without one it gets Zed's
// `missing authentication credentials`. Needs python3 with requests and
// python-dateutil (.ci/run installs them); without them the test says so and
// fails, rather than pass unseen.

import assert from "node:assert/strict";
import { Authenticator } from "../../lib/service/auth/mod.ts";
import { gentoken, zedTestKey } from "./auth_helpers.ts";
import { withServer } from "./helpers.ts";

const FIXTURES = new URL("../fixtures/", import.meta.url);

const SCRIPT = `
import sys, zed
lake, config = sys.argv[1], sys.argv[2]
c = zed.Client(lake, config_dir=config)
c.create_pool('test')
c.load('test', '{a:1}')
for v in c.query('from test'):
    print(v)

print('===')
c = zed.Client(lake, config_dir='')
try:
    c.query('from test')
except Exception as e:
    print(repr(e))
`;

/** A python3 on PATH that has the client's dependencies (the first may not: npx puts /usr/bin first). */
async function python(): Promise<string> {
  const dirs = (Deno.env.get("PATH") ?? "").split(":").filter((d) => d !== "");
  for (const exe of [...dirs.map((d) => `${d}/python3`), "/usr/bin/python3"]) {
    try {
      const o = await new Deno.Command(exe, {
        args: ["-c", "import requests, dateutil"],
        stdout: "null",
        stderr: "null",
      }).output();
      if (o.success) return exe;
    } catch {
      // Not there: the next.
    }
  }
  throw new Error(
    "no python3 with requests and python-dateutil (apt-get install python3-requests python3-dateutil)",
  );
}

Deno.test("python client: Zed's python-auth.yaml against loch", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const auth = await Authenticator.open({
      enabled: true,
      clientId: "c",
      domain: "d",
      jwksPath: new URL("auth/auth-public-jwks.json", FIXTURES).pathname,
    });
    await withServer(async (s) => {
      // As `zed auth store -access $token -lake $ZED_LAKE` leaves it.
      await Deno.writeTextFile(
        `${dir}/credentials.json`,
        JSON.stringify({
          // As `gentoken -domain d -keyid testkey -tenantid t -userid u` makes it.
          services: { [s.url]: { access: await gentoken(await zedTestKey(), "d", "t", "u") } },
        }),
      );
      const out = await new Deno.Command(await python(), {
        args: ["-c", SCRIPT, s.url, dir],
        env: {
          PYTHONPATH: new URL("zed-python/zed", FIXTURES).pathname + ":" +
            new URL("zed-python", FIXTURES).pathname,
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, stderr);
      assert.equal(
        new TextDecoder().decode(out.stdout),
        "{'a': 1}\n===\nRequestError('missing authentication credentials')\n",
      );
    }, { auth });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
