// Numeric settings from environment variables, read by every layer (worker
// pool, garbage collection, `loch query`'s threads). A variable that is
// unset, empty, not a finite number or out of its range gives the setting's
// default, as does an environment the process may not read (no
// --allow-env): a setting never fails where it is used.

/** The number in environment variable name, else fallback (also when it is not one, or below least). */
export function envNumber(name: string, fallback: number, least = -Infinity): number {
  let text: string | undefined;
  try {
    text = Deno.env.get(name);
  } catch {
    return fallback;
  }
  const n = text === undefined || text.trim() === "" ? NaN : Number(text);
  return Number.isFinite(n) && n >= least ? n : fallback;
}

/** As envNumber, for a setting that must be above zero. */
export function envPositive(name: string, fallback: number): number {
  const n = envNumber(name, NaN, 0);
  return n > 0 ? n : fallback;
}
