// Arrow IPC streams over HTTP: a load with Content-Type
// application/vnd.apache.arrow.stream, and query output when Accept asks
// for it.

import assert from "node:assert/strict";
import { tableFromIPC } from "apache-arrow";
import { post, withServer } from "./helpers.ts";

const ARROW = "application/vnd.apache.arrow.stream";

Deno.test("arrows: load a stream, query one back", () =>
  withServer(async (s) => {
    await post(s, "/pool", '{"name":"p","layout":{"order":"asc","keys":[["ts"]]}}');
    // A stream to load, from the service itself.
    await post(s, "/pool", '{"name":"src","layout":{"order":"asc","keys":[["ts"]]}}');
    await post(
      s,
      "/pool/src/branch/main",
      "{ts:2024-01-01T00:00:00.000000001Z,n:1}\n{ts:2024-01-01T00:00:02Z,n:2}",
    );
    const out = await post(s, "/query", '{"query":"from src"}', { Accept: ARROW });
    assert.equal(out.status, 200);
    assert.equal(out.headers.get("Content-Type"), ARROW);
    const t = tableFromIPC(out.bytes);
    assert.deepEqual(t.schema.fields.map((f) => `${f.name}:${f.type}`), [
      "ts:Timestamp<NANOSECOND>",
      "n:Int64",
    ]);
    assert.equal(t.numRows, 2);
    const load = await post(s, "/pool/p/branch/main", out.bytes, { "Content-Type": ARROW });
    assert.equal(load.status, 200, load.text);
    const back = await post(s, "/query", '{"query":"from p | yield {ts, n}"}', {
      Accept: "application/x-zson",
    });
    assert.equal(
      back.text,
      "{ts:2024-01-01T00:00:00.000000001Z,n:1}\n{ts:2024-01-01T00:00:02Z,n:2}\n",
    );
  }));
