import assert from "node:assert/strict";
import { ownedTempDir, ownedTempDirSync, ownedTempFileSync } from "../lib/tempdir.ts";
import { SpillFile } from "../lib/query/spill/file.ts";
import { setSpillDir } from "../lib/query/spill/config.ts";

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

/** `loch serve` on a port of its own, its stderr read as it comes (text()). */
function serveProcess(lake: string, ...args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../main.ts", import.meta.url).pathname,
      "serve",
      "-lake",
      lake,
      "-l",
      "127.0.0.1:0",
      ...args,
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const read = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) text += chunk;
  })();
  return {
    child,
    text: () => text,
    /** Waits until pred holds (polling), or the process ends. */
    async until(pred: () => boolean): Promise<void> {
      let ended = false;
      child.status.then(() => ended = true);
      while (!pred()) {
        if (ended) throw new Error(`server ended: ${text}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    /** The exit status, once stderr is read to its end. */
    async end(): Promise<Deno.CommandStatus> {
      await read;
      return await child.status;
    },
  };
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
    const lake = await Deno.makeTempDir({ prefix: "loch-lake-test-" });
    const args = ["-workers", "0", "-warmup=false"];
    try {
      const first = serveProcess(lake, ...args);
      await first.until(() => /serving lake/.test(first.text()));
      assert.equal(dirsOf("loch-", first.child.pid).length, 1);
      first.child.kill("SIGKILL");
      await first.end();
      assert.equal(dirsOf("loch-", first.child.pid).length, 1, "left behind by the kill");
      const second = serveProcess(lake, ...args);
      await second.until(() => /serving lake/.test(second.text()));
      assert.equal(dirsOf("loch-", first.child.pid).length, 0, "removed by the next server");
      assert.equal(dirsOf("loch-", second.child.pid).length, 1);
      second.child.kill("SIGTERM");
      assert.equal((await second.end()).code, 0);
      assert.equal(dirsOf("loch-", second.child.pid).length, 0, "removed at a clean stop");
    } finally {
      await Deno.remove(lake, { recursive: true });
    }
  },
});

Deno.test({
  name: "a server stopped while it warms up exits cleanly, leaving nothing behind",
  ignore: !linux,
  fn: async () => {
    const lake = await Deno.makeTempDir({ prefix: "loch-lake-test-" });
    try {
      const server = serveProcess(lake, "-workers", "1");
      const pid = server.child.pid;
      // The warm-up's lake appears once the server listens, before it says it serves.
      await server.until(() => dirsOf("loch-warmup-", pid).length > 0);
      server.child.kill("SIGTERM");
      const status = await server.end();
      assert.equal(status.code, 0, server.text());
      assert.doesNotMatch(server.text(), /serving lake/);
      assert.deepEqual(dirsOf("loch-warmup-", pid), []);
      assert.deepEqual(dirsOf("loch-", pid), []);
    } finally {
      await Deno.remove(lake, { recursive: true });
    }
  },
});
