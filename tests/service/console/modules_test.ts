// The console's browser modules, run here on what loch's own writers emit:
// the ZJSON decoder behind the results table and its type hovers, and the
// histogram's query and bar helpers.

import assert from "node:assert/strict";
import { encodeAs } from "../../formats/encode_helpers.ts";
import {
  cells,
  fieldValue,
  typeText,
  valueText,
  ZJSONDecoder,
} from "../../../lib/service/console/assets/zjson.js";
import {
  bars,
  bucketFor,
  histogramQuery,
  spanOf,
  spanQuery,
} from "../../../lib/service/console/assets/histogram.js";

/** Every value of a ZSON text, through loch's ZJSON writer and the console's decoder. */
async function decoded(zson: string) {
  const text = new TextDecoder().decode(await encodeAs("zjson", zson));
  const dec = new ZJSONDecoder();
  return text.split("\n").filter((l) => l !== "").map((l) => dec.decode(l));
}

Deno.test("console ZJSON: values and types as the table shows them", async () => {
  const vals = await decoded(`
{s:"a\\"b",n:1,f:1.5,t:2024-03-24T17:15:20.5Z,d:1h,ip:10.0.0.1,net:10.0.0.0/8,b:true,by:0x01,nu:null(int32)}
{arr:[1,2],set:|["x","y"]|,m:|{"k":1}|,u:1((int64,string)),e:"b"(enum(a,b)),err:error("bad"),r:{x:{y:1}}}
{named:{a:1}(=foo),ty:<foo>,ty2:<[string]>}
"bare"
{"odd name":1,empty:{}}
`);
  const [prims, complex, named, bare, odd] = vals;
  assert.equal(
    typeText(prims.type),
    "{s:string,n:int64,f:float64,t:time,d:duration,ip:ip,net:net,b:bool,by:bytes,nu:int32}",
  );
  assert.deepEqual(cells(prims.type, prims.value).map((c) => c.text), [
    'a"b',
    "1",
    "1.5",
    "2024-03-24T17:15:20.5Z",
    "1h",
    "10.0.0.1",
    "10.0.0.0/8",
    "true",
    "0x01",
    "null",
  ]);
  assert.equal(
    valueText(complex.type, complex.value),
    '{arr:[1,2],set:|["x","y"]|,m:|{"k":1}|,u:1,e:b,err:error("bad"),r:{x:{y:1}}}',
  );
  const c = cells(complex.type, complex.value);
  // Nested records become dotted columns; each cell's hover is its type.
  assert.deepEqual(c.map((x) => x.column), ["arr", "set", "m", "u", "e", "err", "r.x.y"]);
  assert.deepEqual(c.map((x) => x.type), [
    "[int64]",
    "|[string]|",
    "|{string:int64}|",
    "(int64,string)",
    "enum(a,b)",
    "error(string)",
    "int64",
  ]);
  // A named type is shown by name; type values refer to types defined earlier.
  const n = cells(named.type, named.value);
  assert.deepEqual(n.map((x) => [x.column, x.text, x.type]), [
    ["named.a", "1", "int64"],
    ["ty", "<foo>", "type"],
    ["ty2", "<[string]>", "type"],
  ]);
  assert.deepEqual(cells(bare.type, bare.value), [{
    column: "this",
    text: "bare",
    type: "string",
  }]);
  assert.deepEqual(cells(odd.type, odd.value).map((x) => [x.column, x.text]), [
    ["odd name", "1"],
    ["empty", "{}"],
  ]);
  assert.equal(typeText(odd.type), '{"odd name":int64,empty:{}}');
  assert.deepEqual(fieldValue(complex.type, complex.value, ["r", "x", "y"]), {
    type: { kind: "primitive", name: "int64" },
    value: "1",
  });
  assert.equal(fieldValue(complex.type, complex.value, ["r", "nope"]), undefined);
});

Deno.test("console ZJSON: a ref to a type never defined is an error", () => {
  const dec = new ZJSONDecoder();
  assert.throws(
    () => dec.decode('{"type":{"kind":"ref","id":31},"value":[]}'),
    /unknown type reference: 31/,
  );
});

Deno.test("console histogram: bucket widths, queries, bars", () => {
  const s = 1e9;
  assert.equal(bucketFor(60 * s).text, "1s");
  assert.equal(bucketFor(3600 * s).text, "30s");
  assert.equal(bucketFor(86400 * s).text, "30m");
  assert.equal(bucketFor(6 * 365 * 86400 * s).text, "30d");
  assert.equal(bucketFor(1e6 * 365 * 86400 * s).text, "365d");
  assert.equal(
    histogramQuery("from p | x==1", "ts", bucketFor(60 * s)),
    "from p | x==1\n| count() by t:=bucket(time(ts), 1s) | sort t",
  );
  assert.equal(
    spanQuery("from p", "id.t"),
    "from p\n| summarize lo:=min(time(id.t)), hi:=max(time(id.t))",
  );
  assert.deepEqual(spanOf({ lo: "2024-01-01T00:00:00Z", hi: "2024-01-01T00:00:01Z" }), {
    ts: "2024-01-01T00:00:00Z",
    dur: 1e9,
  });
  assert.equal(spanOf({ lo: null, hi: null }), null);
  assert.equal(spanOf(undefined), null);
  assert.deepEqual(
    bars([
      { t: "1970-01-01T00:00:10Z", count: 3 },
      { t: { error: "missing" }, count: 9 },
      null,
      { t: "1970-01-01T00:00:20Z", count: 4 },
    ]),
    [[10, 20], [3, 4]],
  );
});
