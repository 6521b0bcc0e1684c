// Running a compiled query: batches from the sources are pushed through the
// operator graph and what reaches the end is written out, batch by batch, so
// output streams and a slow writer holds back the reading.

import type { ValueReader, ValueWriter } from "../formats/io.ts";
import type { CompiledQuery } from "./compiler/compile.ts";
import { invalid } from "../errors.ts";
import { Collector } from "./runtime/op.ts";

/** How long a query runs before it lets the event loop do other work. */
const YIELD_EVERY_MS = 10;

export async function runQuery(
  query: CompiledQuery,
  readers: ValueReader[],
  writer: ValueWriter,
): Promise<void> {
  const out = new Collector();
  const heads = query.make(out);
  if (heads.length > 1 && readers.length !== heads.length) {
    throw invalid("join operaetor requires two inputs"); // sic, the reference's text
  }
  let yielded = performance.now();
  const flush = async () => {
    for (const b of out.take()) await writer.write(b);
    // Long queries give other work (a server's other requests) a turn now and then.
    if (performance.now() - yielded > YIELD_EVERY_MS) {
      await new Promise((r) => setTimeout(r, 0));
      yielded = performance.now();
    }
  };
  try {
    for (let i = 0; i < readers.length; i++) {
      const head = heads[heads.length > 1 ? i : 0];
      while (!head.done) {
        const batch = await readers[i].read();
        if (batch === null) break;
        head.push(batch);
        await flush();
      }
      if (heads.length > 1) head.end();
      else if (head.done) break;
    }
    if (heads.length === 1) heads[0].end();
    await flush();
  } finally {
    for (const r of readers) await r.close?.();
    await writer.end();
  }
}
