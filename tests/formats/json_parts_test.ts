// A JSON input read in parts (cut where split.ts cuts, each part told what
// follows it) gives what the whole input read at once gives: the same values
// up to the same first error, for well-formed and malformed inputs alike.

import assert from "node:assert/strict";
import { ByteInput, TextInput } from "../../lib/formats/io.ts";
import { JsonReader } from "../../lib/formats/json/reader.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { messageOf } from "../../lib/errors.ts";
import { CONTINUATION, findCut } from "../../lib/formats/json/cuts.ts";

interface Outcome {
  values: string[];
  error: string | null;
}

/** Reads bytes as one JSON input (or a part followed by continuation) until its end or first error. */
async function read(
  bytes: Uint8Array,
  continuation: string | null,
  into: Outcome,
): Promise<boolean> {
  const reader = new JsonReader(new TextInput(ByteInput.fromBytes(bytes), 64), () => continuation);
  try {
    for (let b = await reader.read(); b !== null; b = await reader.read()) {
      for (const v of b) into.values.push(formatZson(v.type, v.body));
    }
    return true;
  } catch (e) {
    into.error = messageOf(e);
    return false;
  }
}

async function whole(text: string): Promise<Outcome> {
  const out: Outcome = { values: [], error: null };
  await read(new TextEncoder().encode(text), null, out);
  return out;
}

/** Reads text in parts cut at the cuts findCut allows that pick chooses. */
async function inParts(text: string, pick: (k: number) => boolean): Promise<[Outcome, number]> {
  const bytes = new TextEncoder().encode(text);
  const cuts: number[] = [];
  for (let at = findCut(bytes, 0), k = 0; at >= 0; at = findCut(bytes, at), k++) {
    if (pick(k)) cuts.push(at);
  }
  const out: Outcome = { values: [], error: null };
  let from = 0;
  for (let i = 0; i <= cuts.length; i++) {
    const to = i < cuts.length ? cuts[i] : bytes.length;
    const last = i === cuts.length;
    // A part that fails ends the input: the parts after it are dropped.
    if (!await read(bytes.slice(from, to), last ? null : CONTINUATION, out)) break;
    from = to;
  }
  return [out, cuts.length];
}

/** A seeded generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A line of input: mostly records, sometimes something that breaks the input or spans lines. */
function line(rand: () => number, i: number): string {
  const r = rand();
  const rec = `{"ts":${i},"s":"v${i}}","a":[${i},{"x":${i}}]}`;
  if (r < 0.75) return rec;
  const odd = [
    // A record over several lines: the cut rule must keep it whole.
    `{"ts":${i},\n"o":{"k":1}\n}`,
    `{"o":\n{"k":${i}}\n}`,
    `[\n{"k":${i}}\n]`,
    // A string with a raw line break in it (the lexer reads on to the next quote).
    `{"s":"a}\n{"}`,
    `"top}\n{"`,
    `{"s":"open}`,
    // Missing commas and brackets, garbage, truncation.
    `{"a":1}\n{"b":2} {"c":3}`,
    `{"a":{"b":1}\n{"c":2}}`,
    `{"a":[1,2}`,
    `{"a":1`,
    `nul}`,
    `12}`,
    `"str"`,
    `true`,
    `}`,
    `{"ts":${i}}\r`,
  ];
  return odd[Math.floor(rand() * odd.length)];
}

Deno.test('json parts: findCut cuts only after `}` and a line break, before `{"`', () => {
  const b = (s: string) => new TextEncoder().encode(s);
  assert.equal(findCut(b('{"a":1}\n{"b":2}\n'), 0), 8);
  assert.equal(findCut(b('{"a":1}\r\n{"b":2}\n'), 0), 9);
  assert.equal(findCut(b('{"a":1}\n{"b":2}\n'), 9), -1);
  assert.equal(findCut(b('{"a":1},\n{"b":2}\n'), 0), -1);
  assert.equal(findCut(b('{"a":1}\n {"b":2}\n'), 0), -1);
  assert.equal(findCut(b('{"a":1}\n{b:2}\n'), 0), -1);
  // The two bytes after the break must be in the chunk.
  assert.equal(findCut(b('{"a":1}\n{'), 0), -1);
  assert.equal(findCut(b('\n{"b":2}\n'), 0), -1);
});

Deno.test("json parts: a value open at a cut fails as it does in the whole input", async () => {
  for (
    const text of [
      '{"a":{"b":1}\n{"c":2}}\n{"d":3}\n',
      '[{"a":1}\n{"b":2}]\n',
      '{"s":"x}\n{"}\n{"t":1}\n',
      '"top}\n{"x":1}\n',
      '{"a":1}\n{"b":2}\n',
    ]
  ) {
    const [parts, cuts] = await inParts(text, () => true);
    assert.ok(cuts >= 1, text);
    assert.deepEqual(parts, await whole(text), text);
  }
});

Deno.test("json parts: random inputs read in parts as they read whole", async () => {
  let cutsMade = 0, failures = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const rand = random(seed);
    const lines: string[] = [];
    const n = 2 + Math.floor(rand() * 30);
    for (let i = 0; i < n; i++) lines.push(line(rand, i));
    const text = lines.join(rand() < 0.2 ? "\r\n" : "\n") + (rand() < 0.8 ? "\n" : "");
    const expect = await whole(text);
    if (expect.error !== null) failures++;
    const density = rand();
    const [got, cuts] = await inParts(text, () => rand() < density);
    cutsMade += cuts;
    assert.deepEqual(got, expect, `seed ${seed}:\n${text}`);
  }
  // The inputs exercised both cuts and errors.
  assert.ok(cutsMade > 500, `${cutsMade} cuts`);
  assert.ok(failures > 50 && failures < 290, `${failures} inputs with errors`);
});
