// Shared helpers for benchmarks: data preparation and whole-process timing.

import { fromFileUrl, join } from "./path.ts";

export const repoRoot = fromFileUrl(new URL("..", import.meta.url));
export const zeekDir = join(repoRoot, "..", "shared", "data", "zeek");

/** Decompresses a Zeek log into dir (once) and returns its path. */
export async function zeekLog(dir: string, name: string): Promise<string> {
  const out = join(dir, `${name}.json`);
  try {
    await Deno.stat(out);
    return out;
  } catch {
    // not there yet
  }
  const src = await Deno.open(join(zeekDir, `${name}.json.gz`));
  const dst = await Deno.open(out, { write: true, create: true, truncate: true });
  await src.readable.pipeThrough(new DecompressionStream("gzip")).pipeTo(dst.writable);
  return out;
}

/** True when cmd can be run. */
export async function have(cmd: string): Promise<boolean> {
  try {
    const p = await new Deno.Command(cmd, { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
    return p.success;
  } catch {
    return false;
  }
}

/** Runs a command with stdout discarded; returns wall seconds. Fails on a non-zero exit. */
export async function timeRun(cmd: string, args: string[]): Promise<number> {
  const t0 = performance.now();
  const p = await new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).output();
  const t = (performance.now() - t0) / 1000;
  if (!p.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(p.stderr)}`);
  }
  return t;
}

export function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Median wall time over runs (after one warm-up run). */
export async function medianTime(cmd: string, args: string[], runs: number): Promise<number> {
  await timeRun(cmd, args);
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) ts.push(await timeRun(cmd, args));
  return median(ts);
}

/** The deno binary running this benchmark, so loch runs under the same runtime. */
export const denoExe = Deno.execPath();
