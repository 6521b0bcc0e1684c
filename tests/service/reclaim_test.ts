import assert, { strictEqual as assertEquals } from "node:assert";
import { collectGarbage, IdleReclaim } from "../../lib/service/reclaim.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("collectGarbage frees a dropped heap", () => {
  assert(collectGarbage());
  const before = Deno.memoryUsage().heapUsed;
  let held: number[][] | null = [];
  for (let i = 0; i < 2000; i++) held.push(new Array(1000).fill(i));
  assert(Deno.memoryUsage().heapUsed > before + 8_000_000);
  held = null;
  assert(collectGarbage());
  assert(Deno.memoryUsage().heapUsed < before + 4_000_000, "the arrays were collected");
});

// In a process of its own: resident memory is the process's, and other
// tests run beside this one.
const trimScript = `
import { collectGarbage, trimNativeHeap } from ${
  JSON.stringify(import.meta.resolve("../../lib/service/reclaim.ts"))
};
const anonMB = () => Number(Deno.readTextFileSync("/proc/self/status").match(/RssAnon:\\s+(\\d+) kB/)[1]) / 1024;
// ArrayBuffers' bytes live in the C heap; keeping one in ten leaves the
// freed ones between live ones, where freeing alone returns nothing.
const kept = [];
let dropped = [];
for (let i = 0; i < 3000; i++) (i % 10 === 0 ? kept : dropped).push(new Uint8Array(40000).fill(1));
const full = anonMB();
dropped = null;
const collected = collectGarbage();
console.log(JSON.stringify({ full, after: anonMB(), collected, trims: trimNativeHeap(), kept: kept.length }));
`;

/** Runs script (a module's text) in a process of its own with perms; its stdout. */
async function runScript(script: string, perms: string[]): Promise<string> {
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(file, script);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", ...perms, file],
      stdin: "null",
      stderr: "inherit",
    }).output();
    return new TextDecoder().decode(out.stdout);
  } finally {
    await Deno.remove(file);
  }
}

Deno.test({
  name: "collectGarbage returns the C heap's free pages among live ones (trimNativeHeap)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const r = JSON.parse(await runScript(trimScript, ["--allow-all"]));
    assert(r.collected && r.trims);
    assertEquals(r.kept, 300);
    assert(r.after < r.full - 60, `${r.after} MB after, ${r.full} before`);
  },
});

// glibc's own counters tell where an allocation came from: mallinfo2's
// hblkhd is the bytes of blocks mapped on their own. set: whether the
// script calls mapLargeAllocations first.
const mapScript = (set: boolean) => `
import { mapLargeAllocations, MMAP_THRESHOLD } from ${
  JSON.stringify(import.meta.resolve("../../lib/service/reclaim.ts"))
};
const c = Deno.dlopen("libc.so.6", {
  malloc: { parameters: ["usize"], result: "pointer" },
  free: { parameters: ["pointer"], result: "void" },
  mallinfo2: { parameters: [], result: { struct: ["usize", "usize", "usize", "usize", "usize",
    "usize", "usize", "usize", "usize", "usize"] } },
}).symbols;
const mapped = () => Number(new BigUint64Array(c.mallinfo2().buffer)[4]);
/** Whether a block of size bytes, allocated now, is mapped on its own. */
function ownPages(size) {
  const before = mapped();
  const p = c.malloc(BigInt(size));
  const grew = mapped() - before;
  c.free(p);
  return grew >= size;
}
const set = ${set} ? mapLargeAllocations() : null;
// A mapped 24 MB block freed: glibc's own threshold rises past what follows.
c.free(c.malloc(24n << 20n));
console.log(JSON.stringify({ set, big: ownPages(2 * MMAP_THRESHOLD), small: ownPages(MMAP_THRESHOLD / 4) }));
`;

Deno.test({
  name:
    "mapLargeAllocations: big blocks get pages of their own, as glibc stops giving once one is freed",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const set = JSON.parse(await runScript(mapScript(true), ["--allow-all"]));
    assert.deepEqual(set, { set: true, big: true, small: false });
    const unset = JSON.parse(await runScript(mapScript(false), ["--allow-all"]));
    assert.deepEqual(unset, { set: null, big: false, small: false });
  },
});

Deno.test("trimNativeHeap is refused, without a prompt, where FFI is not allowed", async () => {
  const script = `import { trimNativeHeap } from ${
    JSON.stringify(import.meta.resolve("../../lib/service/reclaim.ts"))
  }; console.log(trimNativeHeap());`;
  assertEquals((await runScript(script, ["--allow-read"])).trim(), "false");
  const map = script.replaceAll("trimNativeHeap", "mapLargeAllocations");
  assertEquals((await runScript(map, ["--allow-read"])).trim(), "false");
});

Deno.test("IdleReclaim collects once idle, never while work is in progress", async () => {
  const r = new IdleReclaim(30, 0);
  r.begin();
  r.begin();
  r.end();
  await sleep(80);
  assertEquals(r.collections, 0, "one piece of work is still in progress");
  r.end();
  await sleep(80);
  assertEquals(r.collections, 1);
  // Work that starts before the idle time is up puts the collection off.
  r.begin();
  r.end();
  await sleep(10);
  r.begin();
  await sleep(60);
  assertEquals(r.collections, 1);
  r.end();
  r.cancel();
  await sleep(60);
  assertEquals(r.collections, 1, "cancelled");
});

Deno.test("IdleReclaim collects only when the heap grew by its growth since the last collection", async () => {
  assert(collectGarbage());
  const r = new IdleReclaim(20, 48 * 1024 * 1024);
  // A little work: no collection (the code compiled for it stays).
  r.begin();
  let held: number[][] | null = [];
  for (let i = 0; i < 100; i++) held.push(new Array(1000).fill(i));
  r.end();
  await sleep(60);
  assertEquals(r.collections, 0);
  // Work that grew the heap by more: a collection.
  r.begin();
  for (let i = 0; i < 12_000; i++) held.push(new Array(1000).fill(i));
  held = null;
  r.end();
  await sleep(60);
  assertEquals(r.collections, 1);
  // The heap is back at rest: no collection again.
  r.begin();
  r.end();
  await sleep(60);
  assertEquals(r.collections, 1);
});

Deno.test("IdleReclaim with a negative idle time never collects", async () => {
  const r = new IdleReclaim(-1, 0);
  r.begin();
  r.end();
  await sleep(30);
  assertEquals(r.collections, 0);
});
