// The memory budget of the operators that hold their input (sort, summarize,
// fuse, join, and the output buffer of a query run) and where they spill
// past it. Each operator instance gets the whole budget. The process-wide
// default comes from LOCH_MEMORY_BUDGET (bytes, or with a unit: 512KiB,
// 64MB, 2g) and is set by `loch query -memmax` and `loch serve -memmax`; a
// query run may override it. Spill files go to LOCH_SPILL_DIR, else the OS
// temporary directory.

import { invalid } from "../../errors.ts";

/** The default budget per operator: 256 MiB of estimated value bytes. */
export const DEFAULT_MEMORY_BUDGET = 256 * 1024 * 1024;

/** The smallest budget accepted (smaller ones are raised to it). */
export const MIN_MEMORY_BUDGET = 1024;

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

/**
 * A byte size: a number (decimals allowed) with an optional unit, binary
 * throughout (k, KB and KiB all mean 1024). Throws for anything else.
 */
export function parseByteSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = m === null ? undefined : UNITS[m[2].toLowerCase()];
  if (m === null || unit === undefined) throw invalid(`invalid memory size: ${text}`);
  const n = Math.floor(Number(m[1]) * unit);
  if (!Number.isSafeInteger(n) || n <= 0) throw invalid(`invalid memory size: ${text}`);
  return n;
}

let budget: number | undefined;
let dir: string | undefined | null = null;

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // no --allow-env: the defaults apply
  }
}

/** The process-wide budget per operator, in estimated bytes. */
export function memoryBudget(): number {
  if (budget === undefined) {
    const e = env("LOCH_MEMORY_BUDGET");
    budget = e === undefined || e === "" ? DEFAULT_MEMORY_BUDGET : checkedBudget(e);
  }
  return budget;
}

function checkedBudget(text: string): number {
  try {
    return Math.max(MIN_MEMORY_BUDGET, parseByteSize(text));
  } catch {
    throw invalid(`invalid LOCH_MEMORY_BUDGET: ${text}`);
  }
}

/** Sets the process-wide budget (a size as parseByteSize takes, or bytes); undefined restores the default. */
export function setMemoryBudget(size: string | number | undefined): void {
  if (size === undefined) budget = undefined;
  else {
    const n = typeof size === "number" ? size : parseByteSize(size);
    budget = Math.max(MIN_MEMORY_BUDGET, Math.floor(n));
  }
}

/** The directory for spill files; undefined means the OS temporary directory. */
export function spillDir(): string | undefined {
  if (dir === null) dir = env("LOCH_SPILL_DIR") || undefined;
  return dir;
}

/** Sets the directory for spill files; undefined restores the default. */
export function setSpillDir(path: string | undefined): void {
  dir = path ?? null;
}
