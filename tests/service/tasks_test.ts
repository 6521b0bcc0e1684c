// A query's output as the server's thread holds it: a worker that ends the
// query before starting it fails the start; one that started it ends the
// stream.

import assert from "node:assert/strict";
import { Output } from "../../lib/service/workers/tasks.ts";
import type { ToWorker } from "../../lib/service/workers/protocol.ts";

function output(): { out: Output; sent: ToWorker[] } {
  const sent: ToWorker[] = [];
  return { out: new Output({ send: (m) => void sent.push(m) }, 1), sent };
}

Deno.test("tasks: an output ended before it started fails its start", async () => {
  const { out } = output();
  out.end();
  await assert.rejects(out.start, /query worker ended the query before it started/);
});

Deno.test("tasks: an output ended after it started gives its chunks, then ends", async () => {
  const { out, sent } = output();
  out.started();
  out.push(new TextEncoder().encode("a"));
  out.push(new TextEncoder().encode("b"));
  out.end();
  await out.start;
  const text = await new Response(out.readable).text();
  assert.equal(text, "ab");
  // The client's reading is credited to the worker.
  assert.ok(sent.some((m) => m.type === "credit"));
});
