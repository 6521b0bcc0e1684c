// Running a compiled query: batches from the sources are pushed through the
// operator graph and what reaches the end is written out, batch by batch, so
// output streams and a slow writer holds back the reading.

import type { ValueReader, ValueWriter } from "../formats/io.ts";
import type { CompiledQuery } from "./compiler/compile.ts";
import { Collector } from "./runtime/op.ts";

export async function runQuery(
  query: CompiledQuery,
  readers: ValueReader[],
  writer: ValueWriter,
): Promise<void> {
  const out = new Collector();
  const head = query.make(out);
  const flush = async () => {
    for (const b of out.take()) await writer.write(b);
  };
  try {
    for (const reader of readers) {
      while (!head.done) {
        const batch = await reader.read();
        if (batch === null) break;
        head.push(batch);
        await flush();
      }
      if (head.done) break;
    }
    head.end();
    await flush();
  } finally {
    await writer.end();
  }
}
