// Runs queries end to end in tests: ZSON text in, one-line ZSON text out.

import { ByteInput, TextInput } from "../../lib/formats/io.ts";
import { ZsonReader } from "../../lib/formats/zson/reader.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { runQuery } from "../../lib/query/run.ts";

export async function runZson(query: string, input: string): Promise<string> {
  const reader = new ZsonReader(
    new TextInput(ByteInput.fromBytes(new TextEncoder().encode(input))),
  );
  const chunks: Uint8Array[] = [];
  const writer = new ZsonWriter((c) => {
    chunks.push(c.slice());
    return Promise.resolve();
  });
  await runQuery(compileQuery(query), [reader], writer);
  return new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
}

/** The output lines of a query. */
export async function lines(query: string, input: string): Promise<string[]> {
  return (await runZson(query, input)).split("\n").filter((l) => l.length > 0);
}
