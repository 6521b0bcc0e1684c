// Runs the loch command line as a subprocess against a temporary lake.

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  stdin?: string;
  env?: Record<string, string>;
  cwd?: string;
  /** Runs without LOCH_LAKE in the environment. */
  noLakeEnv?: boolean;
}

/** A temporary lake directory and a way to run loch against it. */
export class TempLake {
  private constructor(readonly root: string, readonly dir: string) {}

  static async make(): Promise<TempLake> {
    const root = await Deno.makeTempDir({ prefix: "loch-cli-" });
    return new TempLake(root, `${root}/lake`);
  }

  /** Runs `loch args...` with LOCH_LAKE set to this lake. */
  run(args: string[], opts: RunOptions = {}): Promise<Run> {
    return loch(args, { ...opts, env: { LOCH_LAKE: this.dir, LOCH_USER: "tester", ...opts.env } });
  }

  /** Writes a file in the temp directory; returns its path. */
  async file(name: string, text: string): Promise<string> {
    const path = `${this.root}/${name}`;
    await Deno.writeTextFile(path, text);
    return path;
  }

  async remove(): Promise<void> {
    await Deno.remove(this.root, { recursive: true });
  }
}

export async function loch(args: string[], opts: RunOptions = {}): Promise<Run> {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: opts.noLakeEnv ? withoutLakeEnv(opts.env) : opts.env,
    clearEnv: opts.noLakeEnv,
    cwd: opts.cwd,
  });
  const child = cmd.spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

function withoutLakeEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = { ...Deno.env.toObject(), ...extra };
  delete env.LOCH_LAKE;
  return env;
}

/** A KSUID in base62. */
export const ID = "[0-9A-Za-z]{27}";
