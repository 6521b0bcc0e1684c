// Byte sizes on the command line, as the zed command takes and shows them:
// `10KB` is 10000 bytes, `10KiB` is 10240 (several terms add up, `1MiB512KiB`);
// defaults are shown in base 2 (`500MiB`) and progress in metric (`1.20MB`).

const BASE2: Record<string, number> = {
  B: 1,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
  PiB: 2 ** 50,
  EiB: 2 ** 60,
};

const METRIC: Record<string, number> = {
  B: 1,
  kB: 1e3,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  PB: 1e15,
  EB: 1e18,
};

/** A sum of `<number><unit>` terms with one unit table, or an error text. */
function parseWithUnits(s: string, units: Record<string, number>): number | string {
  let rest = s;
  let neg = false;
  if (rest[0] === "-" || rest[0] === "+") {
    neg = rest[0] === "-";
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return `units: invalid ${s}`;
  let total = 0;
  while (rest !== "") {
    const m = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    if (m[0] === "" || (m[1] === "" && (m[2] ?? "") === "")) return `units: invalid ${s}`;
    const amount = Number(`${m[1] || "0"}.${m[2] || "0"}`);
    rest = rest.slice(m[0].length);
    const u = /^[^.0-9]*/.exec(rest)![0];
    rest = rest.slice(u.length);
    const scale = units[u];
    if (scale === undefined) return `units: unknown unit ${u} in ${s}`;
    total += amount * scale;
  }
  if (total > Number.MAX_SAFE_INTEGER) return "units: overflow parsing unit";
  return Math.trunc(neg ? -total : total);
}

/**
 * Parses a size: base-2 units (KiB, MiB, ...) or metric ones (KB or kB, MB,
 * ...), as the reference's flags do. Unlike the reference, a bare integer is
 * taken as bytes. Throws the reference's error text.
 */
export function parseBytes(s: string): number {
  if (/^\d+$/.test(s)) return Number(s);
  const base2 = parseWithUnits(s, BASE2);
  if (typeof base2 === "number") return base2;
  const metric = parseWithUnits(s, METRIC);
  if (typeof metric === "number") return metric;
  throw new Error(metric);
}

const PREFIXES = ["", "K", "M", "G", "T", "P", "E"];

/** A size in base-2 terms, as Go's units.Base2Bytes prints it (`500MiB`, `1KiB476B`). */
export function formatBase2Bytes(n: number): string {
  const parts: string[] = [];
  let rest = Math.trunc(n);
  for (let i = 0; i < PREFIXES.length; i++) {
    const r = rest % 1024;
    if (r !== 0 || (i === 0 && rest === 0)) {
      parts.unshift(`${r}${PREFIXES[i]}${i === 0 ? "B" : "iB"}`);
    }
    rest = Math.trunc(rest / 1024);
    if (rest === 0) break;
  }
  return parts.join("");
}

function abbrevIn(n: number, suffix: string, unit: number): string {
  const amount = Math.trunc(n / unit);
  if (amount * unit === n) return `${amount}${suffix}`;
  return `${(n / unit).toFixed(2)}${suffix}`;
}

/** A size in metric units for people (`14B`, `32.04KB`, `1.20MB`), as the reference abbreviates. */
export function abbrevBytes(n: number): string {
  if (n >= 1e15) return abbrevIn(n, "PB", 1e15);
  if (n >= 1e9) return abbrevIn(n, "GB", 1e9);
  if (n >= 1e6) return abbrevIn(n, "MB", 1e6);
  if (n >= 1e4) return abbrevIn(n, "KB", 1e3);
  return abbrevIn(n, "B", 1);
}
