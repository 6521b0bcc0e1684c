import assert from "node:assert/strict";
import { LocalStorage } from "../../lib/lake/storage.ts";
import { rejection, withDir } from "./helpers.ts";

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

async function readAll(it: AsyncIterable<Uint8Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const c of it) out.push(...c);
  return out;
}

Deno.test("storage: createAtomic writes the whole file under its name, and nothing else", async () => {
  await withDir(async (dir) => {
    const s = new LocalStorage();
    const path = `${dir}/a/b/obj.zng`;
    const size = await s.createAtomic(path, async (sink) => {
      await sink.write(new Uint8Array([1, 2, 3]));
      await sink.write(new Uint8Array([4, 5]));
    });
    assert.equal(size, 5);
    assert.deepEqual([...await Deno.readFile(path)], [1, 2, 3, 4, 5]);
    assert.deepEqual(await names(`${dir}/a/b`), ["obj.zng"]);
  });
});

Deno.test("storage: a failed createAtomic leaves no file and no temporary", async () => {
  await withDir(async (dir) => {
    const s = new LocalStorage();
    const path = `${dir}/obj.zng`;
    let sawTemp = false;
    const msg = await rejection(s.createAtomic(path, async (sink) => {
      await sink.write(new Uint8Array(1000));
      // While it is being written, the file exists only under a temporary name.
      const now = await names(dir);
      sawTemp = now.length === 1 && now[0].startsWith("obj.zng.tmp-");
      throw new Error("interrupted");
    }));
    assert.equal(msg, "interrupted");
    assert.ok(sawTemp);
    assert.deepEqual(await names(dir), []);
  });
});

Deno.test("storage: readRange reads a byte range; remove and removeTree ignore absent paths", async () => {
  await withDir(async (dir) => {
    const s = new LocalStorage();
    const path = `${dir}/t/f`;
    await s.createAtomic(path, (sink) => sink.write(Uint8Array.from({ length: 100 }, (_, i) => i)));
    assert.deepEqual(await readAll(s.readRange(path, 10, 5)), [10, 11, 12, 13, 14]);
    assert.deepEqual(await readAll(s.readRange(path, 95, 50)), [95, 96, 97, 98, 99]);
    assert.equal((await readAll(s.readRange(path, 0, 100))).length, 100);
    await s.remove(path);
    await s.remove(path);
    assert.deepEqual(await names(`${dir}/t`), []);
    await s.removeTree(`${dir}/t`);
    await s.removeTree(`${dir}/t`);
    assert.deepEqual(await names(dir), []);
  });
});

Deno.test("storage: readSync keeps files open, and reads a file written again afresh", async () => {
  await withDir(async (dir) => {
    const s = new LocalStorage();
    const path = `${dir}/cols.arrow`;
    await s.createAtomic(path, (sink) => sink.write(new Uint8Array([1, 2, 3, 4])));
    const out = new Uint8Array(2);
    assert.equal(s.readSync(path, 1, out), 2);
    assert.deepEqual([...out], [2, 3]);
    // Replaced under the same name (as a lost columns file is made again).
    await s.createAtomic(path, (sink) => sink.write(new Uint8Array([9, 8, 7, 6])));
    assert.equal(s.readSync(path, 1, out), 2);
    assert.deepEqual([...out], [8, 7]);
    // Removed: not found, rather than read from a file held open.
    await s.remove(path);
    assert.throws(() => s.readSync(path, 0, out), /file does not exist/);
    s.close();
  });
});
