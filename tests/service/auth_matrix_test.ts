// Authentication and access (lib/service/auth): every route against every
// kind of credential. JWTs are signed with Zed's own test key pair
// (tests/fixtures/auth) as its gentoken does; API tokens come from a tokens
// file. No request without valid credentials reads or changes anything, a
// read-only token changes nothing, a pool-limited token touches no other
// pool, and errors say no more than Zed's messages.

import assert from "node:assert/strict";
import { exportPKCS8, generateKeyPair, importPKCS8, type JWTPayload } from "jose";
import { addToken, AUDIENCE, Authenticator } from "../../lib/service/auth/mod.ts";
import { routes } from "../../routes/mod.ts";
import { type TestServer, withServer } from "./helpers.ts";
import { AUTH_FIXTURES, gentoken, type SigningKey, zedTestKey } from "./auth_helpers.ts";

const DOMAIN = "https://testdomain";

/** A token as Zed's gentoken makes it for tenant1/user1; claims and header overridable. */
function jwt(key: SigningKey, claims: JWTPayload = {}, alg = "RS256"): Promise<string> {
  return gentoken(key, DOMAIN, "tenant1", "user1", claims, alg);
}

interface Setup {
  auth: Authenticator;
  creds: Record<string, string>;
}

async function setup(dir: string): Promise<Setup> {
  const rs256 = await zedTestKey(), rs384 = await zedTestKey("RS384");
  const other = await generateKeyPair("RS256", { extractable: true });
  const otherKey = await importPKCS8(await exportPKCS8(other.privateKey), "RS256");
  const tokens = `${dir}/tokens.json`;
  const creds: Record<string, string> = {
    valid: await jwt(rs256),
    badSignature: await jwt(otherKey),
    expired: await jwt(rs256, { exp: Math.floor(Date.now() / 1000) - 60 }),
    noExpiry: await jwt(rs256, { exp: undefined }),
    wrongIssuer: await jwt(rs256, { iss: "https://elsewhere/" }),
    wrongAudience: await jwt(rs256, { aud: "https://other.example" }),
    rs384: await jwt(rs384, {}, "RS384"),
    anonymousUser: await jwt(rs256, {
      [`${AUDIENCE}/user_id`]: "user_000000000000000000000000001",
    }),
    noTenant: await jwt(rs256, { [`${AUDIENCE}/tenant_id`]: "" }),
    unknownToken: "loch_notatokenanyoneissued",
    readToken: await addToken(tokens, { name: "reader", access: "read" }),
    writeToken: await addToken(tokens, { name: "writer", access: "write" }),
    poolToken: await addToken(tokens, { name: "q only", access: "write", pools: ["q"] }),
  };
  const auth = await Authenticator.open({
    enabled: true,
    clientId: "testuser",
    domain: DOMAIN,
    jwksPath: new URL("auth-public-jwks.json", AUTH_FIXTURES).pathname,
    tokensPath: tokens,
  });
  return { auth, creds };
}

/** 401 reasons, as Zed words them. */
const REFUSED: Record<string, string> = {
  none: "missing authentication credentials",
  garbled: "missing authentication credentials",
  badSignature: "invalid token",
  expired: "invalid token",
  noExpiry: "invalid expiration",
  wrongIssuer: "invalid issuer",
  wrongAudience: "invalid audience",
  rs384: "invalid signing method",
  anonymousUser: "invalid user id",
  noTenant: "invalid tenant id",
  unknownToken: "invalid token",
};

const BODIES: Record<string, string> = {
  "POST /pool": '{"name":"made"}',
  "POST /pool/:pool": '{"name":"b2","commit":"0x0000000000000000000000000000000000000000"}',
  "PUT /pool/:pool": '{"name":"renamed"}',
  "POST /pool/:pool/branch/:branch": "{a:9}",
  "POST /pool/:pool/branch/:branch/delete": '{"where":"a==1"}',
  "POST /query": '{"query":"from p | count()"}',
  "OPTIONS /query": '{"query":"from p | count()"}',
  "POST /index": '{"rules":[]}',
};

interface Answer {
  status: number;
  text: string;
}

/** A request to a route (its parameters filled in), the body read unless it is /events. */
async function send(s: TestServer, method: string, path: string, auth?: string): Promise<Answer> {
  const url = path.replace(":pool", "p").replace(":branch", "main").replace(":child", "dev")
    .replace(":commit", "0x0000000000000000000000000000000000000000");
  const headers: Record<string, string> = {
    Accept: "application/json",
    "Content-Type": "application/x-zson",
  };
  if (auth !== undefined) headers.Authorization = auth;
  const body = BODIES[`${method} ${path}`];
  const res = await fetch(s.url + url, { method, headers, body });
  if (path === "/events" && res.status === 200) {
    await res.body!.cancel();
    return { status: 200, text: "" };
  }
  return { status: res.status, text: await res.text() };
}

const WRITES = (method: string, path: string) =>
  !["GET", "HEAD", "OPTIONS"].includes(method) && path !== "/query";

Deno.test("auth: every route refuses every bad credential with Zed's 401, and changes nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { auth, creds } = await setup(dir);
    await withServer(async (s) => {
      const write = `Bearer ${creds.writeToken}`;
      assert.equal(
        await fetch(`${s.url}/pool`, {
          method: "POST",
          body: '{"name":"p"}',
          headers: { Authorization: write, "Content-Type": "application/x-zson" },
        }).then((r) => r.status),
        200,
      );
      for (const r of routes) {
        for (const [cred, reason] of Object.entries(REFUSED)) {
          const header = cred === "none"
            ? undefined
            : cred === "garbled"
            ? `Bearer ${creds.valid} extra`
            : `Bearer ${creds[cred]}`;
          const a = await send(s, r.method, r.path, header);
          if (r.path === "/auth/method") {
            assert.equal(a.status, 200, `${r.method} ${r.path} is open`);
            continue;
          }
          assert.equal(a.status, 401, `${r.method} ${r.path} with ${cred}: ${a.text}`);
          assert.deepEqual(JSON.parse(a.text), {
            type: "Error",
            kind: "missing authentication credentials",
            error: reason,
          });
        }
      }
      // Nothing was made, renamed, loaded or deleted.
      const q = await send(s, "POST", "/query", write);
      assert.equal(q.text, "[]\n");
      const pools = await fetch(`${s.url}/query`, {
        method: "POST",
        headers: {
          Authorization: write,
          Accept: "application/json",
          "Content-Type": "application/json",
        },
        body: '{"query":"from :pools | yield name"}',
      }).then((r) => r.text());
      assert.equal(pools, '["p"]\n');
    }, { auth });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("auth: valid JWTs and tokens pass; read-only and pool-limited tokens get 403 beyond their grant", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { auth, creds } = await setup(dir);
    await withServer(async (s) => {
      const admin = `Bearer ${creds.valid}`;
      for (const name of ["p", "q"]) {
        await fetch(`${s.url}/pool`, {
          method: "POST",
          headers: { Authorization: admin, "Content-Type": "application/x-zson" },
          body: JSON.stringify({ name }),
        }).then((r) => r.text());
        await fetch(`${s.url}/pool/${name}/branch/main`, {
          method: "POST",
          headers: { Authorization: admin, "Content-Type": "application/x-zson" },
          body: "{a:1}",
        }).then((r) => r.text());
      }
      for (const r of routes) {
        const ro = await send(s, r.method, r.path, `Bearer ${creds.readToken}`);
        if (WRITES(r.method, r.path)) {
          assert.equal(ro.status, 403, `read-only ${r.method} ${r.path}`);
          assert.equal(JSON.parse(ro.text).error, "this token may only read");
        } else assert.ok(ro.status !== 401 && ro.status !== 403, `read-only ${r.method} ${r.path}`);
        const limited = await send(s, r.method, r.path, `Bearer ${creds.poolToken}`);
        // /events is theirs too, filtered to their pools (tested below).
        if (r.path.startsWith("/auth/") || r.path === "/events") continue;
        assert.equal(limited.status, 403, `pool-limited ${r.method} ${r.path}: ${limited.text}`);
      }
      // The pool-limited token works on its pool, in paths and in queries.
      const own = `Bearer ${creds.poolToken}`;
      const stats = await fetch(`${s.url}/pool/q/stats`, { headers: { Authorization: own } });
      assert.equal(stats.status, 200);
      await stats.body?.cancel();
      const query = (text: string, auth: string) =>
        fetch(`${s.url}/query`, {
          method: "POST",
          headers: {
            Authorization: auth,
            Accept: "application/json",
            "Content-Type": "application/json",
          },
          body: JSON.stringify({ query: text }),
        }).then(async (r) => ({ status: r.status, text: await r.text() }));
      assert.deepEqual(await query("from q | count()", own), {
        status: 200,
        text: '[{"count":1}]\n',
      });
      for (
        const text of [
          "from p | count()",
          "from :pools",
          "from * | count()",
          "from (pool q pool p) | count()",
        ]
      ) {
        assert.equal((await query(text, own)).status, 403, text);
      }
      const load = await fetch(`${s.url}/pool/q/branch/main`, {
        method: "POST",
        headers: { Authorization: own, "Content-Type": "application/x-zson" },
        body: "{a:2}",
      });
      assert.equal(load.status, 200, await load.text());
      // Identities: the JWT's claims, a token's name.
      const id = await fetch(`${s.url}/auth/identity`, {
        headers: { Authorization: admin, Accept: "application/json" },
      }).then((r) => r.json());
      assert.deepEqual(id, { tenant_id: "tenant1", user_id: "user1" });
      const tokenId = await fetch(`${s.url}/auth/identity`, {
        headers: { Authorization: own, Accept: "application/json" },
      }).then((r) => r.json());
      assert.deepEqual(tokenId, { tenant_id: "tokens", user_id: "q only" });
      // /auth/method reports Auth0 as Zed does; the auxiliary routes stay open.
      const method = await fetch(`${s.url}/auth/method`, {
        headers: { Accept: "application/json" },
      }).then((r) => r.json());
      assert.deepEqual(method, {
        kind: "auth0",
        auth0: { audience: AUDIENCE, client_id: "testuser", domain: DOMAIN },
      });
      assert.equal(await fetch(`${s.url}/status`).then((r) => r.text()), "ok");
      // The refused write changed nothing; the allowed ones landed.
      assert.deepEqual(await query("from p | count()", admin), {
        status: 200,
        text: '[{"count":1}]\n',
      });
      assert.deepEqual(await query("from q | count()", admin), {
        status: 200,
        text: '[{"count":2}]\n',
      });
      // Last (it renames and drops): a valid JWT is never refused on any route.
      for (const r of routes) {
        // A valid JWT is never refused (the route may still fail on its own terms).
        const v = await send(s, r.method, r.path, admin);
        assert.ok(
          v.status !== 401 && v.status !== 403,
          `${r.method} ${r.path}: ${v.status} ${v.text}`,
        );
      }
    }, { auth });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("auth: a pool-limited token's event stream carries its pools' events only", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { auth, creds } = await setup(dir);
    await withServer(async (s) => {
      const admin = {
        Authorization: `Bearer ${creds.valid}`,
        "Content-Type": "application/x-zson",
      };
      const events = await fetch(`${s.url}/events`, {
        headers: { Authorization: `Bearer ${creds.poolToken}`, Accept: "application/json" },
      });
      assert.equal(events.status, 200);
      const ids: Record<string, string> = {};
      for (const name of ["z", "q"]) {
        const r = await fetch(`${s.url}/pool`, {
          method: "POST",
          headers: { ...admin, Accept: "application/json" },
          body: JSON.stringify({ name }),
        });
        ids[name] = (await r.json()).pool.id;
        await fetch(`${s.url}/pool/${name}/branch/main`, {
          method: "POST",
          headers: admin,
          body: "{a:1}",
        }).then((r) => r.text());
      }
      await fetch(`${s.url}/pool/q`, { method: "DELETE", headers: admin }).then((r) => r.text());
      // Read what arrived, then stop.
      const reader = events.body!.getReader();
      let text = "";
      const deadline = Date.now() + 3000;
      while (!text.includes("pool-delete") && Date.now() < deadline) {
        const r = await Promise.race([
          reader.read(),
          new Promise<{ done: true; value: undefined }>((res) =>
            setTimeout(() => res({ done: true, value: undefined }), 500)
          ),
        ]);
        if (r.value !== undefined) text += new TextDecoder().decode(r.value);
      }
      await reader.cancel();
      const names = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
      assert.deepEqual(names.filter((n) => n !== "pool-commit"), [
        "pool-new",
        "branch-commit",
        "pool-delete",
      ]);
      assert.ok(!text.includes(ids.z), "nothing of the other pool");
    }, { auth });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
