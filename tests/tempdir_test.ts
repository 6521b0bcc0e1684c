import assert from "node:assert/strict";
import { ownedTempDir, ownedTempDirSync, ownedTempFileSync } from "../lib/tempdir.ts";
import { SpillFile } from "../lib/query/spill/file.ts";
import { setSpillDir } from "../lib/query/spill/config.ts";
import { spawnServeProcess, startServeProcess } from "./infra/serve_process.ts";
import { withDir } from "./lake/helpers.ts";

const linux = (() => {
  try {
    return Deno.statSync("/proc/self").isDirectory;
  } catch {
    return false;
  }
})();

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** This process's pid namespace, as the names of its entries carry it. */
const ns = linux ? /\[(\d+)\]/.exec(Deno.readLinkSync("/proc/self/ns/pid"))![1] : "0";

/** A pid no process can have (above the kernel's limit). */
function deadPid(): number {
  return Number(Deno.readTextFileSync("/proc/sys/kernel/pid_max").trim()) + 7;
}

Deno.test({
  name: "temp dirs of dead processes are removed when one of their prefix is made; others stay",
  ignore: !linux,
  fn: async () => {
    const prefix = `loch-tdtest-${crypto.randomUUID().slice(0, 8)}-`;
    const root = tempRoot();
    const dead = `${root}/${prefix}${deadPid()}.${ns}-0123abcd`;
    const alive = `${root}/${prefix}${Deno.ppid}.${ns}-0123abcd`;
    const elsewhere = `${root}/${prefix}${deadPid()}.1${ns}-0123abcd`;
    const other = `${root}/${prefix}x${deadPid()}.${ns}-0123abcd`;
    const made: string[] = [dead, alive, elsewhere, other];
    try {
      for (const d of [dead, alive, elsewhere, other]) {
        Deno.mkdirSync(d);
        Deno.writeTextFileSync(`${d}/f`, "cached bytes");
      }
      const mine = await ownedTempDir(prefix);
      made.push(mine);
      assert.ok(mine.startsWith(`${root}/${prefix}${Deno.pid}.${ns}-`), mine);
      assert.equal(exists(dead), false, "a dead process's dir is removed");
      assert.equal(exists(alive), true, "a running process's dir stays");
      assert.equal(exists(elsewhere), true, "another pid namespace's dir stays");
      assert.equal(exists(other), true, "a name not of the pattern stays");
      // The process's own dir stays when it makes another.
      Deno.mkdirSync(dead);
      const mine2 = ownedTempDirSync(prefix);
      made.push(mine2);
      assert.equal(exists(mine), true);
      assert.equal(exists(dead), false);
    } finally {
      for (const d of made) await Deno.remove(d, { recursive: true }).catch(() => {});
    }
  },
});

/** Where temporary directories go. */
function tempRoot(): string {
  const probe = Deno.makeTempDirSync({ prefix: "x" });
  Deno.removeSync(probe);
  return probe.replace(/\/[^/]+$/, "");
}

/** The temporary directories of prefix made by process pid. */
function dirsOf(prefix: string, pid: number): string[] {
  return [...Deno.readDirSync(tempRoot())]
    .filter((e) => e.name.startsWith(`${prefix}${pid}.`))
    .map((e) => e.name);
}

Deno.test({
  name: "spill files carry their process's pid; a dead process's are removed at the first spill",
  ignore: !linux,
  fn: () => {
    const dir = Deno.makeTempDirSync({ prefix: "loch-lake-test-" });
    try {
      const dead = `${dir}/loch-spill-${deadPid()}.${ns}-a1b2c3.zng`;
      const alive = `${dir}/loch-spill-${Deno.ppid}.${ns}-a1b2c3.zng`;
      const other = `${dir}/notes.zng`;
      for (const f of [dead, alive, other]) Deno.writeTextFileSync(f, "spilled run");
      setSpillDir(dir);
      const f = SpillFile.create();
      assert.ok(f.path.startsWith(`${dir}/loch-spill-${Deno.pid}.${ns}-`), f.path);
      assert.ok(f.path.endsWith(".zng"));
      assert.equal(exists(dead), false, "a dead process's spill file is removed");
      assert.equal(exists(alive), true);
      assert.equal(exists(other), true);
      f.remove();
      // Once per directory: a later file does not list it again.
      Deno.writeTextFileSync(dead, "spilled run");
      const g = ownedTempFileSync(dir, "loch-spill-", ".zng");
      assert.equal(exists(dead), true);
      Deno.removeSync(g);
    } finally {
      setSpillDir(undefined);
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a killed server's socket dir is removed by the next server, and its own at a stop",
  ignore: !linux,
  fn: async () => {
    await withDir(async (dir) => {
      const lake = ["-lake", `${dir}/lake`, "-workers", "0"];
      const first = (await startServeProcess(lake, `${dir}/port1`)).child;
      assert.equal(dirsOf("loch-", first.pid).length, 1);
      first.kill("SIGKILL");
      await first.status;
      assert.equal(dirsOf("loch-", first.pid).length, 1, "left behind by the kill");
      const second = (await startServeProcess(lake, `${dir}/port2`)).child;
      assert.equal(dirsOf("loch-", first.pid).length, 0, "removed by the next server");
      assert.equal(dirsOf("loch-", second.pid).length, 1);
      second.kill("SIGTERM");
      assert.equal((await second.status).code, 0);
      assert.equal(dirsOf("loch-", second.pid).length, 0, "removed at a clean stop");
    });
  },
});

Deno.test({
  name: "a server stopped while it warms up exits cleanly, leaving nothing behind",
  ignore: !linux,
  fn: async () => {
    await withDir(async (dir) => {
      const args = ["-lake", `${dir}/lake`, "-workers", "1"];
      const server = spawnServeProcess(args, `${dir}/port`, { stderr: "piped", warmup: true });
      const text = new Response(server.stderr).text();
      // The warm-up's lake appears once the server listens, before it says it serves.
      let ended = false;
      server.status.then(() => ended = true);
      while (dirsOf("loch-warmup-", server.pid).length === 0) {
        if (ended) throw new Error(`server ended: ${await text}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      server.kill("SIGTERM");
      const status = await server.status;
      assert.equal(status.code, 0, await text);
      assert.doesNotMatch(await text, /serving lake/);
      assert.deepEqual(dirsOf("loch-warmup-", server.pid), []);
      assert.deepEqual(dirsOf("loch-", server.pid), []);
    });
  },
});
