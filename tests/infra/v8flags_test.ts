// The V8 flags `deno task start` and the compiled binary run loch with
// (deno.json): the same in both, and they do what they are there for.

import assert from "node:assert/strict";

const config = JSON.parse(
  await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
) as { tasks: Record<string, string> };

function v8Flags(task: string): string[] {
  const m = /--v8-flags=(\S+)/.exec(config.tasks[task]);
  assert.ok(m !== null, `the ${task} task gives no --v8-flags`);
  return m[1].split(",");
}

Deno.test("v8 flags: the start and compile tasks give the same ones", () => {
  assert.deepEqual(v8Flags("compile"), v8Flags("start"));
  assert.ok(v8Flags("start").includes("--no-memory-reducer"));
});

/**
 * The size of a worker's young generation after it made much garbage, in a
 * process started with flags: V8 grows it up to its bound as a thread
 * allocates, and holds it.
 */
async function workerYoungGeneration(flags: string[]): Promise<number> {
  const worker = `
    import v8 from "node:v8";
    let keep = [];
    for (let i = 0; i < 3e6; i++) {
      keep.push({ a: i, b: "x" + i });
      if (keep.length > 100000) keep = [];
    }
    const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === "new_space");
    postMessage(s.space_size);
  `;
  const main = `
    const url = URL.createObjectURL(new Blob([${
    JSON.stringify(worker)
  }], { type: "text/javascript" }));
    const w = new Worker(url, { type: "module" });
    w.onmessage = (e) => { console.log(e.data); w.terminate(); };
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", ...flags, main],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  return Number(new TextDecoder().decode(out.stdout).trim());
}

Deno.test("v8 flags: the start task's flags bound the young generation of workers", async () => {
  const bound = v8Flags("start").find((f) => f.startsWith("--max-semi-space-size="));
  assert.ok(bound !== undefined, "no --max-semi-space-size");
  const mb = Number(bound.split("=")[1]);
  const bounded = await workerYoungGeneration([`--v8-flags=${v8Flags("start").join(",")}`]);
  const unbounded = await workerYoungGeneration([]);
  // A new space is its two semi-spaces (from and to), and for a moment a few
  // pages more (17.25 MiB was seen under CI's load with 8 MiB semi-spaces;
  // without the flag it grows to ~60 MiB).
  assert.ok(bounded <= 3 * mb * 2 ** 20, `${bounded} bytes with the flags`);
  assert.ok(unbounded > 2 * bounded, `${unbounded} bytes without, ${bounded} with`);
});
