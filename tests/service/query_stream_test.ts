// Query responses stream: output arrives while the query runs, a client that
// stops reading holds the query back (the server buffers a bounded amount),
// a client that goes away stops it and its scans are closed, and with
// control messages QueryStats reports progress while the query runs.

import assert from "node:assert/strict";
import { lookupPool } from "../../lib/lake/pools.ts";
import { loadText, range, records } from "../lake/helpers.ts";
import type { QueryRun } from "../../lib/service/context.ts";
import { createPool, type TestServer, within, withServer } from "./helpers.ts";

const N = 50000;
/** About 1 KB of output per value: 50 MB in all, far more than any buffer on the way. */
const BIG_QUERY = `from big | yield {ts, pad:"${"x".repeat(1000)}"}`;

async function bigPool(s: TestServer): Promise<void> {
  await createPool(s, "big", { order: "asc", keys: [["ts"]] });
  const pool = lookupPool(s.lake.catalog, "big");
  await loadText(s.lake, pool, records(range(N), (n) => `{ts:${n},s:"v${n}"}`));
}

function startQuery(s: TestServer, q: string, params = "", accept?: string) {
  return fetch(`${s.url}/query${params}`, {
    method: "POST",
    body: new TextEncoder().encode(JSON.stringify({ query: q })),
    headers: accept === undefined ? {} : { Accept: accept },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wraps a query's sources to count how many were closed. */
function countCloses(run: QueryRun, counter: { closed: number }): void {
  for (const r of run.readers) {
    const close = r.close?.bind(r);
    r.close = async () => {
      counter.closed++;
      await close?.();
    };
  }
}

Deno.test("stream: output starts before the query ends; a slow reader holds it back", () =>
  withServer(async (s) => {
    await bigPool(s);
    const res = await startQuery(s, BIG_QUERY);
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.ok(!first.done && first.value.length > 0);
    const run = s.queries[0];
    let finished = false;
    run.done.then(() => (finished = true));
    assert.ok(!finished && run.stats.recordsRead < N, `read ${run.stats.recordsRead}`);
    // Not reading: the query stops where the buffers are full, far from the end.
    let held = -1;
    for (let i = 0; i < 40 && held < 0; i++) {
      const before = run.stats.recordsRead;
      await sleep(100);
      if (run.stats.recordsRead === before) held = before;
    }
    assert.ok(held >= 0, "the query never stopped reading");
    await sleep(150);
    assert.equal(run.stats.recordsRead, held, "the query kept reading");
    assert.ok(held < N / 2, `read ${held} of ${N} while the client was not reading`);
    assert.ok(!finished);
    // Reading again lets it finish, with every value delivered.
    let bytes = first.value!.length;
    let lines = first.value!.filter((b) => b === 10).length;
    for (let c = await reader.read(); !c.done; c = await reader.read()) {
      bytes += c.value.length;
      for (const b of c.value) if (b === 10) lines++;
    }
    assert.equal(lines, N);
    assert.ok(bytes > 50_000_000);
    await within(run.done, 1000, "query end");
    assert.equal(run.stats.recordsRead, N);
  }, { workers: 0 }));

Deno.test("stream: a client that disconnects stops the query and its scans are closed", () => {
  const counter = { closed: 0 };
  return withServer(async (s) => {
    await bigPool(s);
    // Right after the first output.
    const res = await startQuery(s, BIG_QUERY);
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    const run = s.queries[0];
    await within(run.done, 2000, "the query stopping");
    assert.ok(run.stats.recordsRead < N / 2, `read ${run.stats.recordsRead}`);
    assert.equal(counter.closed, 1);
    // While held back by a client that stopped reading.
    const res2 = await startQuery(s, BIG_QUERY, "?ctrl=true", "application/x-zjson");
    const reader2 = res2.body!.getReader();
    await reader2.read();
    await sleep(200);
    const run2 = s.queries[1];
    const held = run2.stats.recordsRead;
    await reader2.cancel();
    await within(run2.done, 2000, "the held query stopping");
    assert.ok(run2.stats.recordsRead - held < N / 4);
    assert.equal(counter.closed, 2);
  }, { onQuery: (run) => countCloses(run, counter) });
});

Deno.test("stream: a query with no output yet still stops when its client goes away", () => {
  const counter = { closed: 0 };
  return withServer(async (s) => {
    await bigPool(s);
    // A sort outputs nothing until it has read everything. (After a yield,
    // so that it runs in the query's operators, whose input is slowed below.)
    const ac = new AbortController();
    const res = fetch(`${s.url}/query`, {
      method: "POST",
      body: new TextEncoder().encode(
        JSON.stringify({ query: "from big | yield this | sort -r s" }),
      ),
      signal: ac.signal,
    }).catch(() => undefined);
    while (s.queries.length === 0) await sleep(5);
    const run = s.queries[0];
    while (run.stats.recordsRead === 0) await sleep(5);
    ac.abort();
    await res;
    await within(run.done, 2000, "the query stopping");
    assert.ok(run.stats.recordsRead < N, `read ${run.stats.recordsRead}`);
    assert.equal(counter.closed, 1);
  }, {
    onQuery: (run) => {
      countCloses(run, counter);
      // Reading takes a while, so the client leaves while the sort is still reading.
      for (const r of run.readers) {
        const read = r.read.bind(r);
        r.read = async () => {
          await sleep(2);
          return await read();
        };
      }
    },
  });
});

Deno.test("stream: QueryStats reports progress every second while the query runs", () =>
  withServer(async (s) => {
    await bigPool(s);
    const res = await startQuery(s, BIG_QUERY, "?ctrl=true", "application/x-zjson");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const t0 = performance.now();
    // Read slowly for a little over a second, then the rest at full speed.
    for (let c = await reader.read(); !c.done; c = await reader.read()) {
      text += decoder.decode(c.value, { stream: true });
      if (performance.now() - t0 < 1200) await sleep(20);
    }
    const lines = text.trimEnd().split("\n");
    assert.equal(lines[0], '{"type":"QueryChannelSet","value":{"channel_id":0}}');
    const stats = lines.flatMap((l, i) => l.startsWith('{"type":"QueryStats"') ? [i] : []);
    assert.ok(stats.length >= 2, `${stats.length} QueryStats messages`);
    // Progress before the end, between values; the final one last, after ChannelEnd.
    assert.ok(stats[0] < lines.length - 2);
    const progress = JSON.parse(lines[stats[0]]).value;
    assert.ok(progress.records_read > 0 && progress.records_read < N, progress.records_read);
    assert.equal(lines.at(-2), '{"type":"QueryChannelEnd","value":{"channel_id":0}}');
    const last = JSON.parse(lines.at(-1)!).value;
    assert.equal(last.records_read, N);
    assert.equal(lines.length, N + 2 + stats.length);
  }));

Deno.test("stream: a sort the pool performs itself stops when its client goes away", () => {
  const counter = { closed: 0 };
  return withServer(async (s) => {
    await bigPool(s);
    // Reading the pool's data takes a while, so the client leaves while the sort reads.
    const storage = s.lake.storage;
    const readRange = storage.readRange.bind(storage);
    storage.readRange = async function* (path, offset, length) {
      for await (const chunk of readRange(path, offset, length)) {
        for (let at = 0; at < chunk.length; at += 16384) {
          await sleep(5);
          yield chunk.subarray(at, at + 16384);
        }
      }
    };
    // sort -r s is taken off the operators: the source sorts, reading first.
    const ac = new AbortController();
    const res = fetch(`${s.url}/query`, {
      method: "POST",
      body: new TextEncoder().encode(JSON.stringify({ query: "from big | sort -r s" })),
      signal: ac.signal,
    }).catch(() => undefined);
    while (s.queries.length === 0) await sleep(1);
    const run = s.queries[0];
    while (run.stats.recordsRead === 0) await sleep(1);
    ac.abort();
    await res;
    await within(run.done, 2000, "the query stopping");
    assert.ok(run.stats.recordsRead < N, `read ${run.stats.recordsRead}`);
    assert.equal(counter.closed, 1);
  }, { onQuery: (run) => countCloses(run, counter) });
});
