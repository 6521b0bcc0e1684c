import assert from "node:assert/strict";
import {
  formatFloat32,
  formatFloat64,
  formatJsonFloat,
  parseGoFloat,
} from "../../lib/zed/float.ts";
import { formatDuration, formatTime, parseDuration, parseTime } from "../../lib/zed/time.ts";
import { formatIP, formatNet, parseIP, parseNet } from "../../lib/zed/ip.ts";
import { quoteName, quoteString, quoteTypeName } from "../../lib/zed/quote.ts";
import {
  classifyPrimitive,
  matchPrimitiveToken,
  parseInt64,
  parsePrimitive,
  parseUint64,
} from "../../lib/zed/primitive.ts";
import { ID_FLOAT32, ID_TIME, ID_UINT8 } from "../../lib/zed/types.ts";
import { latin1String } from "../../lib/zed/utf8.ts";

Deno.test("float64 text follows Go's %d. and shortest 'g' forms", () => {
  const cases: [number, string][] = [
    [1, "1."],
    [0, "0."],
    [-0, "0."],
    [-1, "-1."],
    [2.2, "2.2"],
    [1e20, "1e+20"],
    [1234567.5, "1.2345675e+06"],
    [123456.5, "123456.5"],
    [0.0001, "0.0001"],
    [1e-5, "1e-05"],
    [1.5e-7, "1.5e-07"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [NaN, "NaN"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
    [1e15, "1000000000000000."],
    [9223372036854775808, "9.223372036854776e+18"],
    [-9223372036854775808, "-9223372036854775808."],
    [1644680916761594880, "1644680916761594880."],
  ];
  for (const [f, s] of cases) assert.equal(formatFloat64(f), s, `${f}`);
});

Deno.test("float32 text uses the shortest float32 digits", () => {
  const cases: [number, string][] = [
    [0.1, "0.1"],
    [16777216, "16777216."],
    [1e20, "1e+20"],
    [3.4028235e38, "3.4028235e+38"],
    [1e-45, "1e-45"],
    [2.2, "2.2"],
  ];
  for (const [f, s] of cases) assert.equal(formatFloat32(Math.fround(f)), s, `${f}`);
});

Deno.test("JSON float text follows encoding/json", () => {
  const cases: [number, string][] = [
    [1, "1"],
    [1.5, "1.5"],
    [1e20, "100000000000000000000"],
    [1e21, "1e+21"],
    [1e-6, "0.000001"],
    [1e-7, "1e-7"],
    [123456789.123, "123456789.123"],
    [-0, "-0"],
  ];
  for (const [f, s] of cases) assert.equal(formatJsonFloat(f, false), s, `${f}`);
  assert.equal(formatJsonFloat(Math.fround(0.1), true), "0.1");
  assert.equal(formatJsonFloat(Math.fround(16777216), true), "16777216");
});

Deno.test("strconv.ParseFloat syntax", () => {
  assert.equal(parseGoFloat("1e400"), undefined);
  assert.equal(parseGoFloat("1_000"), 1000);
  assert.equal(parseGoFloat("1__0"), undefined);
  assert.equal(parseGoFloat("_1"), undefined);
  assert.equal(parseGoFloat("0x1p-2"), 0.25);
  assert.equal(parseGoFloat("Inf"), Infinity);
  assert.equal(parseGoFloat("-infinity"), -Infinity);
  assert.ok(Number.isNaN(parseGoFloat("nan")));
  assert.equal(parseGoFloat("+nan"), undefined);
  assert.equal(parseGoFloat("."), undefined);
  assert.equal(parseGoFloat(".5"), 0.5);
  assert.equal(parseGoFloat("5."), 5);
  assert.equal(parseGoFloat("1e"), undefined);
});

Deno.test("durations round-trip through nano.Duration text", () => {
  const same = [
    "0s",
    "1ns",
    "1.5us",
    "1ms",
    "999.999999ms",
    "1.000000001s",
    "1m1s",
    "1h",
    "1d",
    "7d",
    "1y",
    "1y1d",
    "1h2m3.4s",
    "1d1h1m1.001001001s",
    "-1.5s",
    "-292y171d23h47m16.854775808s",
    "292y171d23h47m16.854775807s",
  ];
  for (const s of same) assert.equal(formatDuration(parseDuration(s)!), s);
  assert.equal(formatDuration(parseDuration("8w")!), "56d");
  assert.equal(formatDuration(parseDuration("1.5h")!), "1h30m");
  assert.equal(parseDuration("1.2.3s"), undefined);
  assert.equal(parseDuration("1x"), undefined);
  assert.equal(parseDuration("0.0000000005s"), 1); // rounds half up
});

Deno.test("times print as RFC3339Nano in UTC", () => {
  assert.equal(formatTime(0), "1970-01-01T00:00:00Z");
  assert.equal(formatTime(100000000), "1970-01-01T00:00:00.1Z");
  assert.equal(formatTime(1), "1970-01-01T00:00:00.000000001Z");
  assert.equal(formatTime(-1), "1969-12-31T23:59:59.999999999Z");
  const t = parseTime("2020-11-24T08:44:09.586441-08:00")!;
  assert.equal(formatTime(t.ns), "2020-11-24T16:44:09.586441Z");
  assert.equal(typeof t.ns, "bigint");
  // Early dates wrap as Go's UnixNano does; late ones overflow.
  assert.equal(formatTime(parseTime("1600-01-01T00:00:00Z")!.ns), "2184-07-20T23:34:33.709551616Z");
  assert.equal(parseTime("9999-12-17T16:37:21.023179Z")!.overflow, true);
  assert.equal(parseTime("2020-02-30T00:00:00Z"), undefined);
  assert.equal(parseTime("2020-01-01T00:00:00.1234567891Z"), undefined);
  assert.equal(parseTime("2020-01-01T00:00:00"), undefined);
});

Deno.test("times in one second and then another print each their own text", () => {
  // The text up to the seconds is kept from the last time formatted.
  const second = 1521911720n * 1_000_000_000n;
  const cases: [bigint, string][] = [
    [second + 600725000n, "2018-03-24T17:15:20.600725Z"],
    [second + 600725001n, "2018-03-24T17:15:20.600725001Z"],
    [second, "2018-03-24T17:15:20Z"],
    [second + 1_000_000_000n, "2018-03-24T17:15:21Z"],
    [second + 10n, "2018-03-24T17:15:20.00000001Z"],
    [second - 1n, "2018-03-24T17:15:19.999999999Z"],
    [second + 86_400_000_000_000n + 120_000_000n, "2018-03-25T17:15:20.12Z"],
    [-second, "1921-10-10T06:44:40Z"],
  ];
  for (const [ns, text] of [...cases, ...cases.reverse()]) {
    assert.equal(formatTime(ns), text);
    if (ns >= -9007199254740991n && ns <= 9007199254740991n) {
      assert.equal(formatTime(Number(ns)), text);
    }
  }
  assert.equal(formatTime(1500), "1970-01-01T00:00:00.0000015Z");
});

Deno.test("ip and net text", () => {
  for (
    const s of ["2001:db8::1:0:0:1", "::1", "::", "1::", "fe80::eef4:bbff:fe51:89ec", "10.0.0.1"]
  ) {
    assert.equal(formatIP(parseIP(s)!), s);
  }
  assert.equal(formatIP(parseIP("::ffff:1.2.3.4")!), "::ffff:1.2.3.4");
  assert.equal(parseIP("1.2.3.04"), undefined);
  assert.equal(parseIP("1:2:3:4:5:6:7:8:9"), undefined);
  assert.equal(formatNet(parseNet("10.0.0.1/8")!), "10.0.0.0/8");
  assert.equal(formatNet(parseNet("::1/128")!), "::1/128");
  assert.equal(formatNet(parseNet("::/0")!), "::/0");
  assert.equal(formatNet(new Uint8Array([10, 0, 0, 0, 255, 0, 255, 0])), "10.0.0.0/ff00ff00");
  assert.equal(parseNet("10.0.0.0/33"), undefined);
});

Deno.test("string and name quoting", () => {
  assert.equal(
    quoteString('a\u0000b\u0001\u001f\u007f\b\f\n\r\t"\\/'),
    '"a\\u0000b\\u0001\\u001f\u007f\\b\\f\\n\\r\\t\\"\\\\/"',
  );
  assert.equal(quoteString("é\u2028"), '"é\u2028"');
  assert.equal(quoteString("\ud800"), '"\\ufffd"');
  assert.equal(quoteName("a b"), '"a b"');
  assert.equal(quoteName("1a"), '"1a"');
  assert.equal(quoteName("$x"), "$x");
  assert.equal(quoteName("é"), "é");
  assert.equal(quoteName("true"), "true");
  assert.equal(quoteName("a.b"), '"a.b"');
  assert.equal(quoteName(""), '""');
  assert.equal(quoteTypeName("a.b"), "a.b");
  assert.equal(quoteTypeName(""), "");
  assert.equal(quoteTypeName("1a"), '"1a"');
  assert.equal(quoteTypeName("@foo"), '"@foo"');
});

Deno.test("primitive tokens are classified in the reference's order", () => {
  assert.equal(matchPrimitiveToken("1h30m,"), "1h30m");
  assert.equal(matchPrimitiveToken("10.0.0.1/8}"), "10.0.0.1/8");
  assert.equal(matchPrimitiveToken("fe80::1]"), "fe80::1");
  assert.equal(matchPrimitiveToken("2020-01-01T00:00:00Z,"), "2020-01-01T00:00:00Z");
  assert.equal(classifyPrimitive("1")?.type.name, "int64");
  assert.equal(classifyPrimitive("+1")?.type.name, "int64");
  assert.equal(classifyPrimitive("18446744073709551615")?.type.name, "uint64");
  assert.equal(classifyPrimitive("18446744073709551616")?.type.name, "float64");
  assert.equal(classifyPrimitive("1.")?.type.name, "float64");
  assert.equal(classifyPrimitive("1s")?.type.name, "duration");
  assert.equal(classifyPrimitive("10.0.0.1")?.type.name, "ip");
  assert.equal(classifyPrimitive("10.0.0.1/8")?.type.name, "net");
  assert.equal(classifyPrimitive("0x")?.type.name, "bytes");
  assert.throws(() => classifyPrimitive("0x1"), /odd length hex string/);
  assert.equal(matchPrimitiveToken("Inf"), ""); // bare Inf is not a ZSON token
});

Deno.test("building primitives from text", () => {
  assert.equal(parseInt64("-9223372036854775808"), -9223372036854775808n);
  assert.equal(parseInt64("9223372036854775808"), undefined);
  assert.equal(parseInt64("-0"), 0);
  assert.equal(parseUint64("18446744073709551615"), 18446744073709551615n);
  assert.equal(parseUint64("-1"), undefined);
  assert.equal(parsePrimitive(ID_UINT8, "300"), 300);
  assert.throws(() => parsePrimitive(ID_UINT8, "-1"), /invalid unsigned integer: -1/);
  assert.equal(parsePrimitive(ID_FLOAT32, "0.1"), Math.fround(0.1));
  assert.throws(
    () => parsePrimitive(ID_TIME, "9999-12-17T16:37:21.023179Z"),
    /time overflow: 9999-12-17T16:37:21.023179Z \(max: 2262-04-11T23:47:16Z\)/,
  );
});

Deno.test("latin1String: short, long and very long runs of bytes, any part of them", () => {
  for (const n of [0, 1, 64, 65, 8191, 8192, 8193, 3_000_000]) {
    const b = new Uint8Array(n + 4);
    for (let i = 0; i < b.length; i++) b[i] = 32 + (i * 7) % 90;
    const s = latin1String(b, 2, n + 2);
    assert.equal(s.length, n);
    if (n > 0) {
      assert.equal(s.charCodeAt(0), b[2]);
      assert.equal(s.charCodeAt(n - 1), b[n + 1]);
      assert.equal(s.charCodeAt(n >> 1), b[2 + (n >> 1)]);
    }
  }
});
