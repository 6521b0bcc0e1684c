import assert from "node:assert/strict";
import { ZjsonWriter } from "../../lib/formats/zjson/writer.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";

async function zjson(zson: string, ascii: boolean): Promise<string> {
  let out = "";
  const w = new ZjsonWriter((c) => {
    out += new TextDecoder().decode(c);
    return Promise.resolve();
  }, ascii);
  await w.write([parseZsonValue(zson)]);
  await w.writeControl("QueryError", { error: "données ログ" });
  await w.end();
  return out;
}

Deno.test("ZJSON can be written ASCII-only, with the same JSON values", async () => {
  const text = '{s:"zoë ログ 😀",n:"plain"}';
  const raw = await zjson(text, false);
  const ascii = await zjson(text, true);
  const nonAscii = (t: string) => [...t].some((c) => c.charCodeAt(0) > 0x7f);
  assert.ok(nonAscii(raw));
  assert.ok(!nonAscii(ascii));
  assert.ok(ascii.includes("zo\\u00eb \\u30ed\\u30b0 \\ud83d\\ude00"));
  const parse = (s: string) => s.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(parse(ascii), parse(raw));
});
