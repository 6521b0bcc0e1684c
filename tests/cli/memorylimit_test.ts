// -memory-limit's parts: the machine's memory from /proc/meminfo, and each
// query thread's share (at most half its heap), handed to workers through
// the environment.

import assert from "node:assert/strict";
import { applyMemoryLimit, machineMemory } from "../../lib/cli/memorylimit.ts";
import { UsageError } from "../../lib/cli/lake/lakeflags.ts";
import { setThreadMemoryLimit, threadMemoryLimit } from "../../lib/query/mod.ts";

Deno.test("memory limit: the machine's memory is MemTotal of /proc/meminfo", () => {
  assert.equal(machineMemory("MemTotal:       24576000 kB\nMemFree: 1 kB\n"), 24576000 * 1024);
  assert.equal(machineMemory("MemFree: 1 kB\n"), null);
  if (Deno.build.os === "linux") assert.ok((machineMemory() ?? 0) > 0);
});

Deno.test("memory limit: split among the query threads, within half the heap", () => {
  const before = Deno.env.get("LOCH_THREAD_MEMORY");
  try {
    assert.equal(applyMemoryLimit({ "memory-limit": "64MiB" }, 4), 16 << 20);
    assert.equal(Deno.env.get("LOCH_THREAD_MEMORY"), String(16 << 20));
    // No workers: the serving thread runs the queries, with all of it.
    assert.equal(applyMemoryLimit({ "memory-limit": "64MiB" }, 0), 64 << 20);
    // More than half the heap is half the heap.
    const half = applyMemoryLimit({ "memory-limit": "1000TiB" }, 1);
    assert.ok(half < 1000 * 2 ** 40 && half > 0);
    assert.throws(() => applyMemoryLimit({ "memory-limit": "lots" }, 1), UsageError);
  } finally {
    if (before === undefined) Deno.env.delete("LOCH_THREAD_MEMORY");
    else Deno.env.set("LOCH_THREAD_MEMORY", before);
    setThreadMemoryLimit(undefined);
  }
  assert.ok(threadMemoryLimit() > 0);
});
