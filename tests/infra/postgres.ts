// A throwaway PostgreSQL server for tests and benchmarks (the PostgreSQL
// catalog's tests run against it): a fresh cluster in a temp directory made
// with Debian's initdb, started by pg_ctl on a free 127.0.0.1 port with fast,
// unsafe settings (no fsync), and removed entirely by stop(). Run as the
// `postgres` OS user when we are root (initdb and postgres refuse root).
// startPostgres() returns null where the server binaries are not installed
// (apt-get install postgresql), so callers can skip, saying so.

export interface PgServer {
  url: string;
  stop(): Promise<void>;
}

export interface PgBinaries {
  initdb: string;
  pgCtl: string;
}

/** Debian's initdb and pg_ctl of the highest installed version, or null. */
export function postgresBinaries(): PgBinaries | null {
  const root = "/usr/lib/postgresql";
  let versions: number[] = [];
  try {
    versions = [...Deno.readDirSync(root)]
      .map((e) => Number(e.name))
      .filter((v) => Number.isFinite(v))
      .sort((a, b) => b - a);
  } catch {
    return null;
  }
  for (const v of versions) {
    const bin = `${root}/${v}/bin`;
    if (isFile(`${bin}/initdb`) && isFile(`${bin}/pg_ctl`) && isFile(`${bin}/postgres`)) {
      return { initdb: `${bin}/initdb`, pgCtl: `${bin}/pg_ctl` };
    }
  }
  return null;
}

function isFile(p: string): boolean {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
}

const asRoot = Deno.uid() === 0;

/** Runs a command, as the postgres user when we are root; throws with its output on failure. */
async function run(args: string[]): Promise<void> {
  const [cmd, ...rest] = asRoot ? ["runuser", "-u", "postgres", "--", ...args] : args;
  const out = await new Deno.Command(cmd, {
    args: rest,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C.UTF-8", LANG: "C.UTF-8" },
  }).output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    throw new Error(`${args.join(" ")} failed (${out.code}):\n${text}`);
  }
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Starts a fresh server; null when PostgreSQL's server binaries are absent. */
export async function startPostgres(): Promise<PgServer | null> {
  const bins = postgresBinaries();
  if (bins === null) return null;
  const dir = await Deno.makeTempDir({ prefix: "loch-pg-" });
  const data = `${dir}/data`;
  const log = `${dir}/log`;
  const pgStop = () => run([bins.pgCtl, "-D", data, "-m", "immediate", "-w", "stop"]);
  const removeDir = () => Deno.remove(dir, { recursive: true }).catch(() => {});
  try {
    if (asRoot) {
      const chown = await new Deno.Command("chown", { args: ["postgres:", dir] }).output();
      if (!chown.success) throw new Error(`chown postgres ${dir} failed`);
    }
    const init = ["-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8"];
    await run([bins.initdb, "-D", data, ...init, "--no-sync", "--no-instructions"]);
    // Settings for a test server: loopback only, socket in our directory, no
    // durability (fsync, full pages, synchronous commit), small and quiet.
    const opts = [
      `-c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir}`,
      "-c fsync=off -c synchronous_commit=off -c full_page_writes=off",
      "-c wal_level=minimal -c max_wal_senders=0 -c autovacuum=off",
      "-c shared_buffers=16MB -c max_connections=50 -c logging_collector=off",
    ].join(" ");
    // Another process may take the port between freePort and the bind: retry.
    for (let attempt = 1;; attempt++) {
      const port = freePort();
      await Deno.remove(log).catch(() => {});
      try {
        const args = ["-D", data, "-l", log, "-w", "-t", "30", "-o", `-p ${port} ${opts}`];
        await run([bins.pgCtl, ...args, "start"]);
      } catch (e) {
        // pg_ctl may have left a postmaster behind (say, on a start timeout).
        await pgStop().catch(() => {});
        const logText = await Deno.readTextFile(log).catch(() => "");
        if (attempt < 3 && /could not bind/.test(logText)) continue;
        throw new Error(`${e instanceof Error ? e.message : e}\nserver log:\n${logText}`);
      }
      let stopping: Promise<void> | undefined;
      const stop = () =>
        stopping ??= pgStop().catch((e) => console.warn(`pg_ctl stop: ${e}`)).then(removeDir);
      return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
    }
  } catch (e) {
    await removeDir();
    throw e;
  }
}
