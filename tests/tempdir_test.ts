import assert from "node:assert/strict";
import { ownedTempDir, ownedTempDirSync } from "../lib/tempdir.ts";

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

/** A pid no process can have (above the kernel's limit). */
function deadPid(): number {
  return Number(Deno.readTextFileSync("/proc/sys/kernel/pid_max").trim()) + 7;
}

Deno.test({
  name: "temp dirs of dead processes are removed when one of their prefix is made; others stay",
  ignore: !linux,
  fn: async () => {
    const prefix = `loch-tdtest-${crypto.randomUUID().slice(0, 8)}-`;
    const root = Deno.makeTempDirSync({ prefix: "x" }).replace(/\/[^/]+$/, "");
    const dead = `${root}/${prefix}${deadPid()}-0123abcd`;
    const alive = `${root}/${prefix}${Deno.ppid}-0123abcd`;
    const other = `${root}/${prefix}x${deadPid()}-0123abcd`;
    const made: string[] = [dead, alive, other];
    try {
      for (const d of [dead, alive, other]) {
        Deno.mkdirSync(d);
        Deno.writeTextFileSync(`${d}/f`, "cached bytes");
      }
      const mine = await ownedTempDir(prefix);
      made.push(mine);
      assert.ok(mine.startsWith(`${root}/${prefix}${Deno.pid}-`), mine);
      assert.equal(exists(dead), false, "a dead process's dir is removed");
      assert.equal(exists(alive), true, "a running process's dir stays");
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

Deno.test({
  name: "a killed server's socket dir is removed by the next server",
  ignore: !linux,
  fn: async () => {
    const lake = await Deno.makeTempDir({ prefix: "loch-lake-test-" });
    const serve = (port = 0) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          new URL("../main.ts", import.meta.url).pathname,
          "serve",
          "-lake",
          lake,
          "-l",
          `127.0.0.1:${port}`,
          "-workers",
          "0",
          "-warmup=false",
        ],
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    const root = Deno.makeTempDirSync({ prefix: "x" });
    Deno.removeSync(root);
    const tmp = root.replace(/\/[^/]+$/, "");
    const socketDirs = (pid: number) =>
      [...Deno.readDirSync(tmp)].filter((e) => e.name.startsWith(`loch-${pid}-`)).map((e) =>
        e.name
      );
    const started = async (child: Deno.ChildProcess) => {
      const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!/serving lake/.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`server ended: ${text}`);
        text += value;
      }
      reader.releaseLock();
    };
    try {
      const first = serve();
      await started(first);
      assert.equal(socketDirs(first.pid).length, 1);
      first.kill("SIGKILL");
      await first.status;
      await first.stdout.cancel();
      assert.equal(socketDirs(first.pid).length, 1, "left behind by the kill");
      const second = serve();
      await started(second);
      assert.equal(socketDirs(first.pid).length, 0, "removed by the next server");
      assert.equal(socketDirs(second.pid).length, 1);
      second.kill("SIGTERM");
      await second.status;
      await second.stdout.cancel();
      assert.equal(socketDirs(second.pid).length, 0, "removed at a clean stop");
    } finally {
      await Deno.remove(lake, { recursive: true });
    }
  },
});
