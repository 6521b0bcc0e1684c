import assert from "node:assert/strict";
import { detectedFormat, openReader } from "../../lib/formats/detect.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";

const encoder = new TextEncoder();

function inChunks(bytes: Uint8Array, size: number): ByteInput {
  const it = (async function* () {
    for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
  })();
  return new ByteInput(it, "test");
}

async function readAll(input: ByteInput): Promise<string[]> {
  const r = await openReader(input);
  const out: string[] = [];
  for (let b = await r.read(); b !== null; b = await r.read()) {
    for (const v of b) out.push(formatZson(v.type, v.body));
  }
  return out;
}

/** Lines of records, padded so that a two-byte "é" straddles byte `at` of the text. */
function straddling(line: (i: number, pad: string) => string, at: number): string {
  let text = "";
  for (let i = 0; text.length < at - 200; i++) text += line(i, "x") + "\n";
  const pad = "x".repeat(at - encoder.encode(text).length - encoder.encode(line(0, "")).length);
  // line(0, pad + "é") puts "é" at bytes at-1..at: find its offset and adjust.
  let probe = line(0, pad + "é");
  const off = encoder.encode(text + probe).indexOf(0xc3, encoder.encode(text).length);
  probe = line(0, "x".repeat(Math.max(0, pad.length - (off - (at - 1)))) + "é");
  return text + probe + "\n" + line(1, "tail") + "\n";
}

Deno.test("detection reads the start of a one-chunk input as it reads a stream's", async () => {
  const texts: [string, string][] = [
    ["json", straddling((i, p) => JSON.stringify({ i, s: p }), 65536)],
    ["zson", straddling((i, p) => `{i:${i},s:${JSON.stringify(p)}}`, 65536)],
    ["csv", "i,s\n" + straddling((i, p) => `${i},${p}`, 65536)],
    // Ten values past the first 64 KiB: detection reads on to see them.
    [
      "json",
      Array.from({ length: 12 }, (_, i) => JSON.stringify({ i, s: "y".repeat(20000) })).join("\n"),
    ],
  ];
  for (const [format, text] of texts) {
    const bytes = encoder.encode(text);
    assert.ok(bytes.length > 65536);
    assert.equal(await detectedFormat(ByteInput.fromBytes(bytes)), format);
    assert.equal(await detectedFormat(inChunks(bytes, 1000)), format);
    const whole = await readAll(ByteInput.fromBytes(bytes));
    assert.deepEqual(whole, await readAll(inChunks(bytes, 1000)));
    assert.ok(whole.some((v) => v.includes("é")) || format === "json" && whole.length === 12);
  }
});
