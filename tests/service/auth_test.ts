// GET /auth/method and /auth/identity with authentication off (TestAuthMethodGet,
// lake-api.md §5.1–5.2), in every format the clients ask for.

import assert from "node:assert/strict";
import { call, get, hex, withServer } from "./helpers.ts";

Deno.test("GET /auth/method: no authentication", () =>
  withServer(async (s) => {
    const zson = await get(s, "/auth/method");
    assert.equal(zson.status, 200);
    assert.equal(zson.headers.get("Content-Type"), "application/x-zson");
    assert.equal(
      zson.text,
      '{kind:""(=api.AuthMethod),auth0:null(api.AuthMethodAuth0Details={audience:string,' +
        "client_id:string,domain:string})}(=api.AuthMethodResponse)\n",
    );
    const json = await get(s, "/auth/method", { Accept: "application/json" });
    assert.equal(json.headers.get("Content-Type"), "application/json");
    assert.equal(json.text, '{"kind":"","auth0":null}\n');
    const zjson = await get(s, "/auth/method", { Accept: "application/x-zjson" });
    assert.equal(
      zjson.text,
      '{"type":{"kind":"named","id":34,"name":"api.AuthMethodResponse","type":{"kind":"record",' +
        '"id":33,"fields":[{"name":"kind","type":{"kind":"named","id":30,"name":"api.AuthMethod",' +
        '"type":{"kind":"primitive","name":"string"}}},{"name":"auth0","type":{"kind":"named",' +
        '"id":32,"name":"api.AuthMethodAuth0Details","type":{"kind":"record","id":31,"fields":' +
        '[{"name":"audience","type":{"kind":"primitive","name":"string"}},{"name":"client_id",' +
        '"type":{"kind":"primitive","name":"string"}},{"name":"domain","type":{"kind":' +
        '"primitive","name":"string"}}]}}}]}},"value":["",null]}\n',
    );
    // The Go client's ZNG, byte for byte as the reference writes it.
    const zng = await get(s, "/auth/method", { Accept: "application/x-zng" });
    assert.equal(zng.headers.get("Content-Type"), "application/x-zng");
    assert.equal(
      hex(zng.bytes),
      "4c060075fa23070e6170692e417574684d6574686f641900030861756469656e63651909636c69656e745f" +
        "69641906646f6d61696e19071a3000f00f417574683044657461696c731f0002046b696e641e05617574" +
        "68302007162c00005c00005c00b06f64526573706f6e736521140022030100ff",
    );
    const csv = await get(s, "/auth/method", { Accept: "text/csv" });
    assert.equal(csv.text, "kind,auth0.audience,auth0.client_id,auth0.domain\n,,,\n");
  }));

Deno.test("GET /auth/identity: the anonymous identity", () =>
  withServer(async (s) => {
    const zson = await get(s, "/auth/identity");
    assert.equal(
      zson.text,
      '{tenant_id:"tenant_000000000000000000000000001",user_id:"user_000000000000000000000000001"}' +
        "(=api.AuthIdentityResponse)\n",
    );
    const json = await get(s, "/auth/identity", { Accept: "application/json" });
    assert.equal(
      json.text,
      '{"tenant_id":"tenant_000000000000000000000000001","user_id":"user_000000000000000000000000001"}\n',
    );
    const zng = await get(s, "/auth/identity", { Accept: "application/x-zng" });
    assert.equal(
      hex(zng.bytes),
      "010300020974656e616e745f69641907757365725f69641907186170692e417574684964656e746974795265" +
        "73706f6e73651e5b020046cf1f452374656e616e745f3030020005683121757365722100000200c030303030" +
        "3030303030303031ff",
    );
    // Only GET.
    const post = await call(s, "POST", "/auth/identity");
    assert.equal(post.status, 405);
    assert.equal(post.text, "");
  }));
