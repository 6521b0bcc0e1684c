import assert from "node:assert/strict";
import { call, each, field, fn, THIS, value } from "./functions_util.ts";

Deno.test("network_of", () => {
  assert.equal(fn("network_of", "10.1.2.129", "255.255.255.128/25")(), "10.1.2.128/25");
  assert.equal(fn("network_of", "10.1.2.129", "25")(), "10.1.2.128/25");
  assert.equal(fn("network_of", "10.1.2.129")(), "10.0.0.0/8");
  assert.equal(fn("network_of", "10.1.2.129", "24")(), "10.1.2.0/24");
  assert.equal(fn("network_of", "172.16.1.1")(), "172.16.0.0/16");
  assert.equal(fn("network_of", "192.168.1.1")(), "192.168.1.0/24");
  // ztest cut-mixed-types
  assert.deepEqual(
    each(fn("network_of", field("addr")), [
      "{addr:fe80::215:17ff:fe84:c13f}",
      "{addr:10.0.0.1}",
    ]),
    ['error("network_of: not an IPv4 address")', "10.0.0.0/8"],
  );
  assert.equal(fn("network_of", "fe80::1", "64")(), "fe80::/64");
  assert.equal(
    fn("network_of", "10.1.2.129", "10.0.0.0/8")(),
    'error("network_of: network arg not a cidr mask")',
  );
  assert.equal(
    fn("network_of", "10.1.2.129", "65")(),
    'error("network_of: cidr bit count out of range")',
  );
  assert.equal(
    fn("network_of", "10.1.2.129", '"x"')(),
    'error("network_of: bad arg for cidr mask")',
  );
  assert.equal(fn("network_of", '"10.1.2.3"')(), 'error("network_of: not an IP")');
});

Deno.test("cidr_match", () => {
  const m = fn("cidr_match", "10.0.0.0/8", THIS);
  assert.deepEqual(each(m, ["10.1.2.129", "11.1.2.129", "10", '"foo"']), [
    "true",
    "false",
    "false",
    "false",
  ]);
  assert.deepEqual(each(m, ["[10.1.2.129,11.1.2.129]", "{a:10.0.0.1}", "{a:11.0.0.1}"]), [
    "true",
    "true",
    "false",
  ]);
  assert.equal(m("|{1:{x:[10.0.0.9]}}|"), "true");
  assert.equal(m("10.1.1.1((ip,string))"), "true");
  assert.equal(m("null(ip)"), "false");
  assert.equal(fn("cidr_match", "1", THIS)("1"), 'error("cidr_match: not a net: 1")');
  assert.equal(fn("cidr_match", "fe80::/16", THIS)("fe80::1"), "true");
});

Deno.test("bucket (ztest bucket.yaml)", () => {
  const b = fn("bucket", field("t"), field("bin"));
  assert.deepEqual(
    each(b, [
      "{t:1.590506867967e+18,bin:1}",
      "{t:2020-05-26T15:27:47Z,bin:1h}",
      "{t:3s,bin:2s}",
      "{t:null,bin:1h}",
      '{t:"x",bin:1h}',
      '{t:1,bin:"x"}',
    ]),
    [
      "2020-05-26T15:27:47Z",
      "2020-05-26T15:00:00Z",
      "2s",
      "null(time)",
      'error("bucket: time arg required")',
      'error("bucket: second arg must be duration or number")',
    ],
  );
  const bt = fn("bucket", call("cast", THIS, "<time>"), "1h");
  assert.deepEqual(each(bt, ["2020-05-26T15:27:47Z", '"5/26/2020 3:27pm"']), [
    "2020-05-26T15:00:00Z",
    "2020-05-26T15:00:00Z",
  ]);
  assert.equal(fn("bucket", "-3s", "2s")(), "-2s");
});

Deno.test("every", () => {
  const e = fn("every", "1h");
  assert.deepEqual(
    each(e, [
      "{ts:2021-02-01T12:00:01Z}",
      "{ts:2021-02-01T12:00:02Z}",
      "{ts:2021-02-01T14:00:03Z}",
    ]),
    ["2021-02-01T12:00:00Z", "2021-02-01T12:00:00Z", "2021-02-01T14:00:00Z"],
  );
  assert.equal(e("{x:1}"), 'error("every: time arg required")');
});

Deno.test("now", () => {
  const before = BigInt(Date.now()) * 1000000n;
  const v = call("now")(value("null"));
  assert.equal(v.type.kind, 0);
  assert.ok(BigInt(v.body as bigint) >= before - 1000000n);
  assert.match(fn("now")(), /^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  assert.throws(() => fn("now", "1"), /now\(\): too many arguments/);
});

Deno.test("base64", () => {
  assert.equal(fn("base64", THIS)("0x010203"), '"AQID"');
  assert.equal(fn("base64", THIS)('"AQID"'), "0x010203");
  assert.equal(fn("base64", call("cast", THIS, "<bytes>"))('"hello, world"'), '"aGVsbG8sIHdvcmxk"');
  assert.equal(
    fn("cast", call("base64", THIS), "<string>")('"aGVsbG8gd29ybGQ="'),
    '"hello world"',
  );
  assert.equal(fn("base64", THIS)("null(bytes)"), 'error("base64: illegal null argument")');
  assert.equal(fn("base64", THIS)("null(string)"), "null");
  assert.equal(
    fn("base64", THIS)('"AQI"'),
    'error("base64: string argument is not base64: \\"AQI\\"")',
  );
  assert.equal(
    fn("base64", THIS)("1"),
    'error("base64: argument must a bytes or string type (bad argument: 1)")',
  );
});

Deno.test("hex", () => {
  assert.equal(fn("hex", THIS)("0x0102ff"), '"0102ff"');
  assert.equal(fn("hex", THIS)('"0102ff"'), "0x0102ff");
  assert.equal(
    fn("hex", call("cast", THIS, "<bytes>"))('"hello, world"'),
    '"68656c6c6f2c20776f726c64"',
  );
  assert.equal(fn("hex", THIS)("null(bytes)"), 'error("hex: illegal null argument")');
  assert.equal(fn("hex", THIS)("null(string)"), "null(string)");
  assert.equal(
    fn("hex", THIS)('"0g"'),
    'error("hex: string argument is not hexidecimal: \\"0g\\"")',
  );
  assert.equal(
    fn("hex", THIS)("1"),
    'error("base64: argument must a bytes or string type (bad argument: 1)")',
  );
});

Deno.test("ksuid (ztests ksuid.yaml, ksuid-new.yaml)", () => {
  const k = fn("ksuid", THIS);
  assert.deepEqual(
    each(k, [
      '"24eT188EIisOiwVWwmej1h9t4Ms"',
      "0x0e8afd4a5a0a2372e218818aa996ad96f5739dd2",
      "null(bytes)",
      "null(string)",
      "null",
    ]),
    [
      "0x0e8afd4a5a0a2372e218818aa996ad96f5739dd2",
      '"24eT188EIisOiwVWwmej1h9t4Ms"',
      'error("ksuid: illegal null argument")',
      'error("ksuid: Valid encoded KSUIDs are 27 characters (bad argument: null(string))")',
      'error("ksuid: argument must a bytes or string type (bad argument: null)")',
    ],
  );
  assert.equal(k("0x0dfc90519b60f362e84a3fdddd9b9e63e1fb90d1"), '"1zjJzTWWCJNVrGwqB8kZwhTM2fR"');
  assert.equal(
    k('"zzzzzzzzzzzzzzzzzzzzzzzzzzz"'),
    'error("ksuid: Valid encoded KSUIDs are bounded by 000000000000000000000000000 and aWgEPTl1tmebfsQzFP4bxwgy80V (bad argument: \\"zzzzzzzzzzzzzzzzzzzzzzzzzzz\\")")',
  );
  assert.equal(fn("len", call("ksuid"))(), "20");
  // a new KSUID round-trips through its string form
  const fresh = call("ksuid")(value("null"));
  const text = call("ksuid", () => fresh)(fresh);
  assert.match(String(text.body), /^[0-9A-Za-z]{27}$/);
  assert.deepEqual(call("ksuid", () => text)(text).body, fresh.body);
});

Deno.test("compare (ztests compare.yaml, compare-nullsmax.yaml)", () => {
  const c = fn("compare", field("a"), field("b"));
  assert.deepEqual(
    each(c, ["{a: 2, b: 1}", '{a: 2, b: "1"}', "{a: null, b: 2}", "{a: 0, b: 0.}"]),
    [
      "1",
      "-1",
      "1",
      "0",
    ],
  );
  const input = "{a: null, b: 2}";
  assert.equal(fn("compare", field("a"), field("b"), "true")(input), "1");
  assert.equal(fn("compare", field("a"), field("b"), "false")(input), "-1");
  assert.equal(
    fn("compare", field("a"), field("b"), '"error"')(input),
    'error({message:"compare: nullsMax arg is not bool",on:"error"})',
  );
});
