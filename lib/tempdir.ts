// Temporary files and directories a process owns (the server's socket, the
// warm-up lake, an S3 read cache without a directory of its own, a query's
// spill files). Each is named `<prefix><pid>.<namespace>-<random>`, so that
// one left behind by a process that was killed (or crashed) before it could
// remove it is recognised and removed by the next process that makes one of
// that prefix: a server restarted after `kill -9` does not leave a read
// cache's worth of files, or a big sort's spilled runs, in /tmp for ever. One
// whose process still runs is left alone, as is one of another pid namespace
// (a container sharing the directory, whose pids this process cannot see),
// and everything where that cannot be told (no /proc: not Linux).

/** Makes a temporary directory owned by this process, first removing those of dead processes. */
export async function ownedTempDir(prefix: string): Promise<string> {
  sweepTemp(tempRoot(), prefix, "");
  return await Deno.makeTempDir({ prefix: `${prefix}${owner()}-` });
}

/** As ownedTempDir, synchronously. */
export function ownedTempDirSync(prefix: string): string {
  sweepTemp(tempRoot(), prefix, "");
  return Deno.makeTempDirSync({ prefix: `${prefix}${owner()}-` });
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
  return Deno.makeTempFileSync({ dir, prefix: `${prefix}${owner()}-`, suffix });
}

/**
 * Removes this process's directories of prefix, for a process about to exit
 * (a worker thread ended mid-way cannot remove what it made).
 */
export function removeOwnTempDirs(prefix: string): void {
  const tmp = tempRoot();
  for (const [name, pid, ns] of owned(tmp, prefix, "")) {
    if (pid !== Deno.pid || ns !== namespace()) continue;
    try {
      Deno.removeSync(`${tmp}/${name}`, { recursive: true });
    } catch { /* removed meanwhile */ }
  }
}

/** Removes the entries of prefix and suffix in root whose processes no longer run. */
function sweepTemp(root: string, prefix: string, suffix: string): void {
  const ns = namespace();
  if (ns === null) return;
  for (const [name, pid, theirs] of owned(root, prefix, suffix)) {
    if (theirs !== ns || pid === Deno.pid || running(pid)) continue;
    try {
      Deno.removeSync(`${root}/${name}`, { recursive: true });
    } catch { /* another process removed it first, or it is not ours */ }
  }
}

/** The entries `<prefix><pid>.<namespace>-<random><suffix>` of root, with their pids and namespaces. */
function owned(root: string, prefix: string, suffix: string): [string, number, string][] {
  const pattern = new RegExp(`^${escape(prefix)}(\\d+)\\.(\\d+)-[0-9a-zA-Z_]+${escape(suffix)}$`);
  const out: [string, number, string][] = [];
  try {
    for (const e of Deno.readDirSync(root)) {
      const m = pattern.exec(e.name);
      if (m !== null) out.push([e.name, Number(m[1]), m[2]]);
    }
  } catch {
    // The directory cannot be listed: nothing of it is ours to remove.
  }
  return out;
}

let ns: string | null | undefined;

/** This process's pid namespace (the inode of /proc/self/ns/pid), or null where there is none to read. */
function namespace(): string | null {
  if (ns === undefined) {
    try {
      ns = /^pid:\[(\d+)\]$/.exec(Deno.readLinkSync("/proc/self/ns/pid"))?.[1] ?? null;
    } catch {
      ns = null;
    }
  }
  return ns;
}

/** What names this process's entries: its pid and namespace (0 where there is none). */
function owner(): string {
  return `${Deno.pid}.${namespace() ?? 0}`;
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
