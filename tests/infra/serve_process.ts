// `loch serve` as a child process for tests: on a free loopback port it
// writes to a port file, without warm-up unless asked, logging only errors;
// started once that file names its port.

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

export interface ServeProcess {
  child: Deno.ChildProcess;
  port: string;
  url: string;
}

/** Starts `loch serve` with args (the lake, workers, ...); its stderr piped or dropped. */
export async function startServeProcess(
  args: string[],
  portfile: string,
  opts: { env?: Record<string, string>; stderr?: "piped" | "null" } = {},
): Promise<ServeProcess> {
  const child = spawnServeProcess(args, portfile, opts);
  for (let t = 0; t < 300; t++) {
    const port = (await Deno.readTextFile(portfile).catch(() => "")).trim();
    if (port !== "") return { child, port, url: `http://127.0.0.1:${port}` };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`loch serve ${args.join(" ")} did not start`);
}

/** `loch serve` with args, spawned (not waited for); warmup: whether it warms up first (no). */
export function spawnServeProcess(
  args: string[],
  portfile: string,
  opts: { env?: Record<string, string>; stderr?: "piped" | "null"; warmup?: boolean } = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "serve",
      ...args,
      "-l",
      "127.0.0.1:0",
      "-portfile",
      portfile,
      `-warmup=${opts.warmup ?? false}`,
      "-log-level",
      "error",
    ],
    env: opts.env,
    stdout: "null",
    stderr: opts.stderr ?? "null",
  }).spawn();
}
