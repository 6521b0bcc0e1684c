// Merge conflicts as data over HTTP and on the command line: a merge both
// sides of which changed the same records is refused (409), the records are
// a query away (`from P:conflicts(child, parent)`), and ?strategy= (or
// `loch merge -strategy`) resolves them.

import assert from "node:assert/strict";
import { TempLake } from "../cli/loch.ts";
import { get, post, withServer } from "./helpers.ts";

const json = { Accept: "application/json" };

Deno.test("conflicts: 409, the records as a query, ?strategy=theirs", () =>
  withServer(async (s) => {
    await post(s, "/pool", '{"name":"p","layout":{"order":"asc","keys":[["k"]]}}');
    await post(s, "/pool/p/branch/main", "{k:1}\n{k:2}\n{k:3}");
    const tip = JSON.parse((await get(s, "/pool/p/branch/main", json)).text).commit;
    await post(s, "/pool/p", JSON.stringify({ name: "dev", commit: tip }));
    await post(s, "/pool/p/branch/dev/delete", '{where:"k==1"}');
    await post(s, "/pool/p/branch/main/delete", '{where:"k==3"}');
    const refused = await post(s, "/pool/p/branch/main/merge/dev", "", json);
    assert.equal(refused.status, 409);
    assert.match(refused.text, /both branches changed data object .*from p:conflicts\(dev, main\)/);
    const q = await post(
      s,
      "/query",
      JSON.stringify({ query: "from p:conflicts(dev, main) | sort side | cut side,change,k" }),
      json,
    );
    assert.equal(
      q.text,
      '[{"side":"destination","change":"removed","k":3},{"side":"source","change":"removed","k":1}]\n',
    );
    // A branch that is not there fails the query before any output.
    const missing = await post(s, "/query", '{"query":"from p:conflicts(dev, nope)"}', json);
    assert.equal(missing.status, 404);
    assert.match(missing.text, /\\"nope\\": branch not found/);
    const bad = await post(s, "/pool/p/branch/main/merge/dev?strategy=mine", "", json);
    assert.equal(bad.status, 400);
    const ok = await post(s, "/pool/p/branch/main/merge/dev?strategy=theirs", "", json);
    assert.equal(ok.status, 200, ok.text);
    const after = await post(s, "/query", '{"query":"from p | sort k | yield k"}', json);
    assert.equal(after.text, "[2,3]\n");
  }));

Deno.test("conflicts: loch merge -strategy ours", async () => {
  const lake = await TempLake.make();
  try {
    await lake.run(["create", "-q", "-orderby", "k:asc", "p"]);
    await lake.run(["load", "-use", "p", await lake.file("a.zson", "{k:1}\n{k:2}\n{k:3}\n")]);
    await lake.run(["branch", "-use", "p", "dev"]);
    await lake.run(["delete", "-use", "p@dev", "-where", "k==1"]);
    await lake.run(["load", "-use", "p@dev", await lake.file("b.zson", "{k:9}\n")]);
    await lake.run(["delete", "-use", "p", "-where", "k==3"]);
    let r = await lake.run(["merge", "-use", "p@dev", "main"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /both branches changed/);
    r = await lake.run(["merge", "-use", "p@dev", "-strategy", "ours", "main"]);
    assert.equal(r.code, 0, r.stderr);
    r = await lake.run(["query", "-z", "from p | sort k | yield k"]);
    assert.equal(r.stdout, "1\n2\n9\n");
  } finally {
    await lake.remove();
  }
});
