// Temporary directories a process owns (the server's socket, the warm-up
// lake, an S3 read cache without a directory of its own). Each is named
// `<prefix><pid>-<random>`, so that one left behind by a process that was
// killed (or crashed) before it could remove it is recognised and removed by
// the next process that makes one of that prefix: a server restarted after
// `kill -9` does not leave a read cache's worth of files in /tmp for ever.
// A directory whose process still runs is left alone, as is every directory
// where it cannot be told (no /proc: not Linux).

/** Makes a temporary directory owned by this process, first removing those of dead processes. */
export async function ownedTempDir(prefix: string): Promise<string> {
  await sweepTempDirs(prefix);
  return await Deno.makeTempDir({ prefix: `${prefix}${Deno.pid}-` });
}

/** As ownedTempDir, synchronously. */
export function ownedTempDirSync(prefix: string): string {
  for (const dir of staleTempDirs(prefix)) {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch { /* another process removed it first, or it is not ours */ }
  }
  return Deno.makeTempDirSync({ prefix: `${prefix}${Deno.pid}-` });
}

/**
 * Removes this process's directories of prefix, for a process about to exit
 * (a worker thread ended mid-way cannot remove what it made).
 */
export function removeOwnTempDirs(prefix: string): void {
  const name = new RegExp(`^${escape(prefix)}${Deno.pid}-[0-9a-f]+$`);
  try {
    const tmp = tempRoot();
    for (const e of Deno.readDirSync(tmp)) {
      if (!e.isDirectory || !name.test(e.name)) continue;
      try {
        Deno.removeSync(`${tmp}/${e.name}`, { recursive: true });
      } catch { /* removed meanwhile */ }
    }
  } catch {
    // The temporary directory cannot be listed: nothing to remove.
  }
}

/** Removes the directories of prefix left by processes that no longer run. */
export async function sweepTempDirs(prefix: string): Promise<void> {
  for (const dir of staleTempDirs(prefix)) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The directories of prefix whose process no longer runs. */
function staleTempDirs(prefix: string): string[] {
  const out: string[] = [];
  try {
    if (!Deno.statSync("/proc/self").isDirectory) return out;
    const tmp = tempRoot();
    const name = new RegExp(`^${escape(prefix)}(\\d+)-[0-9a-f]+$`);
    for (const e of Deno.readDirSync(tmp)) {
      const m = e.isDirectory ? name.exec(e.name) : null;
      if (m === null) continue;
      const pid = Number(m[1]);
      if (pid !== Deno.pid && !running(pid)) out.push(`${tmp}/${e.name}`);
    }
  } catch {
    // No /proc, or the temporary directory cannot be listed: nothing is swept.
  }
  return out;
}

function running(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

/** Where Deno.makeTempDir puts directories: $TMPDIR, else /tmp. */
function tempRoot(): string {
  let dir: string | undefined;
  try {
    dir = Deno.env.get("TMPDIR");
  } catch { /* no --allow-env */ }
  return (dir !== undefined && dir !== "" ? dir : "/tmp").replace(/\/+$/, "") || "/";
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
