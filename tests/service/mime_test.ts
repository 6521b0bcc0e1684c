import assert from "node:assert/strict";
import { loadFormat, negotiate, paramsFormat } from "../../lib/service/mime.ts";

Deno.test("Accept: the first acceptable type, by q-value then order", () => {
  assert.equal(negotiate(null), "zson");
  assert.equal(negotiate(""), "zson");
  assert.equal(negotiate("*/*"), "zson");
  assert.equal(negotiate("text/plain, application/json"), "json");
  assert.equal(
    negotiate("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
    "zson",
  );
  assert.equal(negotiate("application/x-zng"), "zng");
  assert.equal(negotiate("APPLICATION/X-ZJSON; charset=utf-8"), "zjson");
  assert.equal(negotiate("application/json;q=0.5, application/x-zng"), "zng");
  assert.equal(negotiate("application/x-zng;q=0, application/json"), "json");
  assert.equal(negotiate("text/*"), "csv");
  assert.equal(negotiate("application/x-ndjson"), "ndjson");
  assert.throws(
    () => negotiate("application/xml, text/css"),
    /could not find supported MIME type in Accept header/,
  );
});

Deno.test("parameter bodies default to ZSON; loads detect", () => {
  assert.equal(paramsFormat(null), "zson");
  assert.equal(paramsFormat("application/x-www-form-urlencoded"), "zson");
  assert.equal(paramsFormat("application/json"), "json");
  assert.equal(paramsFormat("application/x-zng"), "zng");
  assert.throws(() => paramsFormat("unsupported"), /unsupported MIME type: unsupported/);
  assert.equal(loadFormat(null), "auto");
  assert.equal(loadFormat(""), "auto");
  assert.equal(loadFormat("*/*"), "auto");
  assert.equal(loadFormat("application/x-ndjson"), "json");
  assert.equal(loadFormat("application/x-parquet"), "parquet");
  assert.equal(loadFormat("application/x-zeek"), "zeek");
  assert.throws(() => loadFormat("application/x-vng"), /unsupported MIME type: application\/x-vng/);
});
