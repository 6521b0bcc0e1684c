// Temporary files and directories a process owns (the server's socket, the
// warm-up lake, an S3 read cache without a directory of its own, a query's
// spill files). Each is named `<prefix><pid>-<random>`, so that one left
// behind by a process that was killed (or crashed) before it could remove it
// is recognised and removed by the next process that makes one of that
// prefix: a server restarted after `kill -9` does not leave a read cache's
// worth of files, or a big sort's spilled runs, in /tmp for ever. One whose
// process still runs is left alone, as is everything where that cannot be
// told (no /proc: not Linux).

/** Makes a temporary directory owned by this process, first removing those of dead processes. */
export async function ownedTempDir(prefix: string): Promise<string> {
  sweepTemp(tempRoot(), prefix, "");
  return await Deno.makeTempDir({ prefix: `${prefix}${Deno.pid}-` });
}

/** As ownedTempDir, synchronously. */
export function ownedTempDirSync(prefix: string): string {
  sweepTemp(tempRoot(), prefix, "");
  return Deno.makeTempDirSync({ prefix: `${prefix}${Deno.pid}-` });
}

/** Directories whose dead processes' files were swept already (once a process is enough). */
const sweptFiles = new Set<string>();

/**
 * Makes a temporary file owned by this process in dir (undefined: the
 * temporary directory), the first time in each directory removing those of
 * dead processes.
 */
export function ownedTempFileSync(dir: string | undefined, prefix: string, suffix: string): string {
  const root = dir ?? tempRoot();
  if (!sweptFiles.has(root)) {
    sweptFiles.add(root);
    sweepTemp(root, prefix, suffix);
  }
  return Deno.makeTempFileSync({ dir, prefix: `${prefix}${Deno.pid}-`, suffix });
}

/**
 * Removes this process's directories of prefix, for a process about to exit
 * (a worker thread ended mid-way cannot remove what it made).
 */
export function removeOwnTempDirs(prefix: string): void {
  const tmp = tempRoot();
  for (const [name, pid] of owned(tmp, prefix, "")) {
    if (pid !== Deno.pid) continue;
    try {
      Deno.removeSync(`${tmp}/${name}`, { recursive: true });
    } catch { /* removed meanwhile */ }
  }
}

/** Removes the entries of prefix and suffix in root whose processes no longer run. */
function sweepTemp(root: string, prefix: string, suffix: string): void {
  if (!canTell()) return;
  for (const [name, pid] of owned(root, prefix, suffix)) {
    if (pid === Deno.pid || running(pid)) continue;
    try {
      Deno.removeSync(`${root}/${name}`, { recursive: true });
    } catch { /* another process removed it first, or it is not ours */ }
  }
}

/** The entries `<prefix><pid>-<random><suffix>` of root, with their pids. */
function owned(root: string, prefix: string, suffix: string): [string, number][] {
  const pattern = new RegExp(`^${escape(prefix)}(\\d+)-[0-9a-zA-Z_]+${escape(suffix)}$`);
  const out: [string, number][] = [];
  try {
    for (const e of Deno.readDirSync(root)) {
      const m = pattern.exec(e.name);
      if (m !== null) out.push([e.name, Number(m[1])]);
    }
  } catch {
    // The directory cannot be listed: nothing of it is ours to remove.
  }
  return out;
}

/** Whether it can be told if a process runs (Linux's /proc). */
function canTell(): boolean {
  try {
    return Deno.statSync("/proc/self").isDirectory;
  } catch {
    return false;
  }
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
