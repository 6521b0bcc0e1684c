import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { ByteInput, TextInput } from "../../lib/formats/io.ts";
import { LineReader } from "../../lib/formats/line/reader.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { TypeString } from "../../lib/zed/types.ts";

/** Text as a byte stream of `size`-byte chunks. */
function chunked(s: string, size = 1 << 20): ByteInput {
  const b = new TextEncoder().encode(s);
  const it = (async function* () {
    for (let i = 0; i < b.length; i += size) yield b.slice(i, i + size);
  })();
  return new ByteInput(it, "test");
}

/** The strings a text reads as, with `error: <message>` last if it fails. */
async function lines(s: string, size?: number, minChunk?: number): Promise<string[]> {
  const r = new LineReader(new TextInput(chunked(s, size), minChunk));
  const out: string[] = [];
  try {
    for (let b = await r.read(); b !== null; b = await r.read()) {
      for (const v of b) {
        assert.equal(v.type, TypeString);
        out.push(v.body as string);
      }
    }
  } catch (e) {
    out.push("error: " + (e as Error).message);
  }
  return out;
}

const ztestInput = "{\n[49307] = TLS_ECDHE_PSK_WITH_CAMELLIA_256_CBC_SHA384,\n" +
  "[49171] = TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,\n" +
  "[49286] = TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_GCM_SHA256,\n}\n";
const ztestOutput = '"{"\n"[49307] = TLS_ECDHE_PSK_WITH_CAMELLIA_256_CBC_SHA384,"\n' +
  '"[49171] = TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,"\n' +
  '"[49286] = TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_GCM_SHA256,"\n"}"\n';

async function zsonLines(input: string, size?: number, minChunk?: number): Promise<string> {
  const r = new LineReader(new TextInput(chunked(input, size), minChunk));
  let out = "";
  for (let b = await r.read(); b !== null; b = await r.read()) {
    for (const v of b) out += formatZson(v.type, v.body) + "\n";
  }
  return out;
}

Deno.test("line: the reference's ztest (zio/lineio/ztests/reader.yaml)", async () => {
  assert.equal(await zsonLines(ztestInput), ztestOutput);
  assert.equal(await zsonLines(ztestInput, 1, 1), ztestOutput);
});

const conformance = "/work/shared/conformance/cases.jsonl";

Deno.test({
  name: "line: the zio/lineio case of the conformance file",
  ignore: !existsSync(conformance),
  fn: async () => {
    let n = 0;
    for (const line of Deno.readTextFileSync(conformance).split("\n")) {
      if (!line.includes('"zio/lineio"')) continue;
      const j = JSON.parse(line);
      assert.deepEqual(j.output_flags, ["-z"]);
      assert.equal(j.query, "*");
      assert.equal(await zsonLines(j.input, 3, 2), j.expected_stdout);
      n++;
    }
    assert.equal(n, 1);
  },
});

Deno.test("line: newlines as bufio.Scanner splits them", async () => {
  assert.deepEqual(await lines(""), []);
  assert.deepEqual(await lines("\n"), [""]);
  assert.deepEqual(await lines("a"), ["a"]);
  assert.deepEqual(await lines("a\n\nb\n"), ["a", "", "b"]);
  // One `\r` before the newline, or at the end, is dropped; others stay.
  assert.deepEqual(await lines("a\r\nb\r\r\nc\rd\r"), ["a", "b\r", "c\rd"]);
  assert.deepEqual(await lines("\r"), [""]);
  // Text is kept as is: no trimming, no NFC.
  assert.deepEqual(await lines("  e\u0301 \t\n"), ["  e\u0301 \t"]);
});

Deno.test("line: lines over 64 KiB fail as the scanner does", async () => {
  const max = "a".repeat(65535);
  assert.deepEqual(await lines(max + "\n"), [max]);
  assert.deepEqual(await lines(max), [max]);
  assert.deepEqual(await lines("x\n" + max), ["x", max]);
  const tooLong = "error: bufio.Scanner: token too long";
  assert.deepEqual(await lines(max + "a\n"), [tooLong]);
  assert.deepEqual(await lines(max + "a"), [tooLong]);
  assert.deepEqual(await lines(max + "\r\n"), [tooLong]);
  // Bytes count, not characters: 21846 é's are 43692 bytes, 32768 are 65536.
  assert.deepEqual((await lines("é".repeat(32767) + "é\n")).at(-1), tooLong);
  assert.equal((await lines("é".repeat(32767) + "a\n"))[0].length, 32768);
  // The lines before the long one are read first.
  assert.deepEqual(await lines("first\nsecond\n" + max + "b\nlast\n", 1000, 500), [
    "first",
    "second",
    tooLong,
  ]);
});

Deno.test("line: chunked input reads the same as whole input", async () => {
  const text = "héllo\r\nwörld\n\n" + "line\n".repeat(2500) + "tail 🦆";
  const whole = await lines(text);
  assert.equal(whole.length, 2504);
  assert.equal(whole[2503], "tail 🦆");
  for (const [size, min] of [[1, 1], [2, 3], [5, 4], [100, 7]]) {
    assert.deepEqual(await lines(text, size, min), whole, `chunks of ${size}`);
  }
});
