// The order of a pool's data (poolkey.ts, sortbuffer.ts): by the pool key in
// the pool's direction, nulls and missing keys last both ways, mixed types by
// Zed's cross-type order, ties by the values' encoded bytes.

import assert from "node:assert/strict";
import { createPool } from "../../lib/lake/pools.ts";
import { keyedPool, lines, loadText, withLake } from "./helpers.ts";

/** Loads the lines (shuffled per seed) into a new pool and reads them back. */
async function roundTrip(
  key: string,
  order: "asc" | "desc",
  input: string[],
  threshold?: number,
): Promise<string[]> {
  let out: string[] = [];
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", key, order, { threshold });
    await loadText(lake, p, input.join("\n"));
    out = await lines(lake, "from p");
  });
  return out;
}

/** A deterministic shuffle. */
function shuffled<T>(xs: T[], seed = 7): T[] {
  const out = xs.slice();
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

Deno.test("order: ascending and descending integer keys", async () => {
  const sorted = Array.from({ length: 50 }, (_, i) => `{x:${i * 3 - 20}}`);
  assert.deepEqual(await roundTrip("x", "asc", shuffled(sorted)), sorted);
  assert.deepEqual(await roundTrip("x", "desc", shuffled(sorted)), sorted.slice().reverse());
});

Deno.test("order: time keys far beyond 2^53 ns are ordered exactly", async () => {
  const sorted = [1, 2, 3, 4, 5].map((n) => `{ts:2020-04-21T23:59:26.06326664${n}Z}`);
  assert.deepEqual(await roundTrip("ts", "asc", shuffled(sorted, 3)), sorted);
  assert.deepEqual(await roundTrip("ts", "desc", shuffled(sorted, 5)), sorted.slice().reverse());
});

Deno.test("order: a nested key path", async () => {
  const input = [
    "{id:{orig_h:10.0.0.2,p:1}}",
    "{id:{orig_h:10.0.0.10,p:2}}",
    "{id:{orig_h:9.255.0.1,p:3}}",
    "{id:{orig_h:10.0.0.1,p:4}}",
  ];
  assert.deepEqual(await roundTrip("id.orig_h", "asc", input), [
    "{id:{orig_h:9.255.0.1,p:3}}",
    "{id:{orig_h:10.0.0.1,p:4}}",
    "{id:{orig_h:10.0.0.2,p:1}}",
    "{id:{orig_h:10.0.0.10,p:2}}",
  ]);
  assert.deepEqual(await roundTrip("id.orig_h", "desc", input), [
    "{id:{orig_h:10.0.0.10,p:2}}",
    "{id:{orig_h:10.0.0.2,p:1}}",
    "{id:{orig_h:10.0.0.1,p:4}}",
    "{id:{orig_h:9.255.0.1,p:3}}",
  ]);
});

Deno.test("order: missing keys and nulls come last in both directions", async () => {
  const input = [
    "{k:2,v:1}",
    "{v:2}",
    "{k:null(int64),v:3}",
    "{k:1,v:4}",
    "{id:{},v:5}",
    "{k:3,v:6}",
  ];
  const asc = await roundTrip("k", "asc", input);
  assert.deepEqual(asc.slice(0, 3), ["{k:1,v:4}", "{k:2,v:1}", "{k:3,v:6}"]);
  const desc = await roundTrip("k", "desc", input);
  assert.deepEqual(desc.slice(0, 3), ["{k:3,v:6}", "{k:2,v:1}", "{k:1,v:4}"]);
  const nulls = ["{v:2}", "{k:null(int64),v:3}", "{id:{},v:5}"].sort();
  assert.deepEqual(asc.slice(3).sort(), nulls);
  assert.deepEqual(desc.slice(3).sort(), nulls);
  // Among null keys the order is by encoded bytes, reversed in a desc pool.
  assert.deepEqual(desc.slice(3), asc.slice(3).reverse());
  // null-pool-key.yaml: a key-range filter never matches null keys.
  await withLake(async (lake) => {
    for (const o of ["asc", "desc"] as const) {
      const p = keyedPool(lake, o, "k", o);
      await loadText(
        lake,
        p,
        '{k:null(int64),v:"null"}\n{k:0,v:"zero"}\n{k:1,v:"one"}\n{k:2,v:"two"}\n{k:3,v:"three"}\n{k:4,v:"four"}\n',
      );
      const want = ['{k:1,v:"one"}', '{k:2,v:"two"}', '{k:3,v:"three"}'];
      assert.deepEqual(
        await lines(lake, `from ${o} | k >= 1 k <= 3`),
        o === "asc" ? want : want.reverse(),
      );
    }
    // match-missing-pool-key.yaml: values without the key can still be found.
    const tmp = keyedPool(lake, "tmp", "k");
    await loadText(lake, tmp, '{k:0,v:"zero"}\n{v:"this one missing"}\n{k:1,v:"one"}\n');
    assert.deepEqual(await lines(lake, "from tmp | !has(k)"), ['{v:"this one missing"}']);
  });
});

Deno.test("order: mixed key types: numbers by value, others by type name", async () => {
  const input = ['{k:"b"}', "{k:2}", "{k:true}", "{k:1.5}", '{k:"a"}', "{k:1}", "{k:null}"];
  const asc = ["{k:true}", "{k:1}", "{k:1.5}", "{k:2}", '{k:"a"}', '{k:"b"}', "{k:null}"];
  assert.deepEqual(await roundTrip("k", "asc", input), asc);
  const desc = asc.slice(0, 6).reverse().concat(["{k:null}"]);
  assert.deepEqual(await roundTrip("k", "desc", input), desc);
  // The same order when every value is its own object and the scan merges them.
  assert.deepEqual(await roundTrip("k", "asc", input, 1), asc);
  assert.deepEqual(await roundTrip("k", "desc", input, 1), desc);
});

Deno.test("order: equal keys are ordered by encoded bytes, reversed in a desc pool", async () => {
  // Values with one key: the string's encoding is its length then its bytes.
  const input = ['{k:1,s:"bb"}', '{k:1,s:"a"}', '{k:1,s:"ab"}', '{k:1,s:"c"}', '{k:0,s:"z"}'];
  assert.deepEqual(await roundTrip("k", "asc", input), [
    '{k:0,s:"z"}',
    '{k:1,s:"a"}',
    '{k:1,s:"c"}',
    '{k:1,s:"ab"}',
    '{k:1,s:"bb"}',
  ]);
  assert.deepEqual(await roundTrip("k", "desc", input), [
    '{k:1,s:"bb"}',
    '{k:1,s:"ab"}',
    '{k:1,s:"c"}',
    '{k:1,s:"a"}',
    '{k:0,s:"z"}',
  ]);
});

// lake/ztests/deterministic-merge.yaml: `zed create -S 32B` (the CLI's
// default layout ts:desc) then one load; every value is its own object.
const mergeInput = [
  '{ts:1970-01-01T00:00:01Z,s:"Potamogalidae-precommissure",v:51}',
  '{ts:1970-01-01T00:00:01Z,s:"Galchic-unwheeled",v:51}',
  '{ts:1970-01-01T00:00:01Z,s:"protohydrogen-plesiomorphism",v:320}',
  '{ts:1970-01-01T00:00:01Z,s:"unethicalness-vallis",v:148}',
  '{ts:1970-01-01T00:00:01Z,s:"proceeding-noncausality",v:449}',
  '{ts:1970-01-01T00:00:01Z,s:"investitor-dortiship",v:287}',
  '{ts:1970-01-01T00:00:01Z,s:"gatelike-nucleolocentrosome",v:336}',
  '{ts:1970-01-01T00:00:01Z,s:"subarea-preoffense",v:373}',
  '{ts:1970-01-01T00:00:01Z,s:"lacklusterness-Magyarization",v:91}',
  '{ts:1970-01-01T00:00:01Z,s:"unendeared-Petasites",v:331}',
  '{ts:1970-01-01T00:00:01Z,s:"psalis-Guarnieri",v:456}',
  '{ts:1970-01-01T00:00:01Z,s:"harefoot-raucous",v:137}',
  '{ts:1970-01-01T00:00:01Z,s:"crosshaul-capersome",v:109}',
];
const mergeOutput = [
  '{ts:1970-01-01T00:00:01Z,s:"protohydrogen-plesiomorphism",v:320}',
  '{ts:1970-01-01T00:00:01Z,s:"lacklusterness-Magyarization",v:91}',
  '{ts:1970-01-01T00:00:01Z,s:"gatelike-nucleolocentrosome",v:336}',
  '{ts:1970-01-01T00:00:01Z,s:"Potamogalidae-precommissure",v:51}',
  '{ts:1970-01-01T00:00:01Z,s:"proceeding-noncausality",v:449}',
  '{ts:1970-01-01T00:00:01Z,s:"unethicalness-vallis",v:148}',
  '{ts:1970-01-01T00:00:01Z,s:"unendeared-Petasites",v:331}',
  '{ts:1970-01-01T00:00:01Z,s:"investitor-dortiship",v:287}',
  '{ts:1970-01-01T00:00:01Z,s:"crosshaul-capersome",v:109}',
  '{ts:1970-01-01T00:00:01Z,s:"subarea-preoffense",v:373}',
  '{ts:1970-01-01T00:00:01Z,s:"Galchic-unwheeled",v:51}',
  '{ts:1970-01-01T00:00:01Z,s:"psalis-Guarnieri",v:456}',
  '{ts:1970-01-01T00:00:01Z,s:"harefoot-raucous",v:137}',
];

Deno.test("order: deterministic merge of equal keys (deterministic-merge.yaml)", async () => {
  await withLake(async (lake) => {
    const logs = createPool(lake, {
      name: "logs",
      layout: { order: "desc", keys: [["ts"]] },
      threshold: 32,
    });
    const r = await loadText(lake, logs, mergeInput.join("\n") + "\n");
    assert.equal(r.objects.length, 13);
    assert.deepEqual(await lines(lake, "from logs | *"), mergeOutput);
    assert.deepEqual(await lines(lake, "from logs | *"), mergeOutput);
    // One object, or the input in another order, gives the same output.
    const one = createPool(lake, { name: "one", layout: { order: "desc", keys: [["ts"]] } });
    await loadText(lake, one, shuffled(mergeInput, 11).join("\n"));
    assert.deepEqual(await lines(lake, "from one"), mergeOutput);
  });
});

Deno.test("order: values with no key come out by encoded bytes (delete.yaml, ls-segments.yaml)", async () => {
  await withLake(async (lake) => {
    // The CLI's default layout ts:desc; {x:1} and {x:2} have no ts.
    const test = createPool(lake, { name: "test", layout: { order: "desc", keys: [["ts"]] } });
    await loadText(lake, test, "{x:1}");
    await loadText(lake, test, "{x:2}");
    assert.deepEqual(await lines(lake, "from test"), ["{x:2}", "{x:1}"]);
    assert.deepEqual(
      await lines(lake, "from test@main:objects | yield {first:meta.first,last:meta.last} | uniq"),
      [
        "{first:null,last:null}",
      ],
    );
  });
});
