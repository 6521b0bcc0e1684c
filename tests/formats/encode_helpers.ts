// ZSON text re-encoded by one of loch's writers, as bytes (for tests that
// hand a writer's output to another reader).

import { openReader } from "../../lib/formats/detect.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { openWriter, type WriterOptions } from "../../lib/formats/registry.ts";
import { concatBytes } from "./zng_helpers.ts";

export async function encodeAs(
  format: string,
  zson: string,
  opts: WriterOptions = {},
): Promise<Uint8Array> {
  const reader = await openReader(ByteInput.fromBytes(new TextEncoder().encode(zson)), "zson");
  const chunks: Uint8Array[] = [];
  const w = openWriter(format, (c) => {
    chunks.push(c.slice());
    return Promise.resolve();
  }, opts);
  for (let b = await reader.read(); b !== null; b = await reader.read()) await w.write(b);
  await w.end();
  return concatBytes(chunks);
}
