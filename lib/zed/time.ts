// Time (int64 nanoseconds since the Unix epoch) and duration (int64 ns) text,
// as Go's RFC3339Nano and Zed's nano.Duration write and read them.

import { intBody, toBigInt } from "./value.ts";

const NS_PER_SEC = 1000000000n;
const MAX_INT64 = 9223372036854775807n;

function pad(n: number, width: number): string {
  let s = String(n);
  while (s.length < width) s = "0" + s;
  return s;
}

/** Civil date from days since 1970-01-01 (proleptic Gregorian). */
function civil(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) -
      Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** Days since 1970-01-01 of a civil date (proleptic Gregorian). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Two-digit text of 0..99. */
const TWO: string[] = Array.from({ length: 100 }, (_, i) => (i < 10 ? "0" : "") + i);
/** Runs of zeros, by length (0..8): a fraction's leading zeros. */
const ZEROS: string[] = Array.from({ length: 9 }, (_, i) => "0".repeat(i));

// The text up to the seconds of the last second formatted: times come in
// runs of nearby values (a column, a sorted output), most in a second
// already formatted.
let lastSec = NaN;
let lastPrefix = "";

/** RFC3339Nano in UTC, trailing fraction zeros trimmed. */
export function formatTime(ns: number | bigint): string {
  let sec: number, frac: number;
  if (typeof ns === "number") {
    sec = Math.floor(ns / 1e9);
    frac = ns - sec * 1e9;
  } else {
    let s = ns / NS_PER_SEC;
    let f = ns % NS_PER_SEC;
    if (f < 0n) {
      f += NS_PER_SEC;
      s -= 1n;
    }
    sec = Number(s);
    frac = Number(f);
  }
  let out = sec === lastSec ? lastPrefix : secondText(sec);
  if (frac !== 0) {
    // Nine digits, the trailing zeros trimmed.
    let digits = 9;
    while (frac % 10 === 0) {
      frac /= 10;
      digits--;
    }
    const f = String(frac);
    out += "." + ZEROS[digits - f.length] + f;
  }
  return out + "Z";
}

/** "YYYY-MM-DDTHH:MM:SS" of seconds since the epoch (kept as the last one formatted). */
function secondText(sec: number): string {
  const days = Math.floor(sec / 86400);
  let rem = sec - days * 86400;
  const [y, mo, d] = civil(days);
  const h = Math.floor(rem / 3600);
  rem -= h * 3600;
  const mi = Math.floor(rem / 60);
  const se = rem - mi * 60;
  const text = (y < 0 ? "-" + pad(-y, 4) : pad(y, 4)) + "-" + TWO[mo] + "-" + TWO[d] + "T" +
    TWO[h] + ":" + TWO[mi] + ":" + TWO[se];
  lastSec = sec;
  lastPrefix = text;
  return text;
}

const timeRE = /^(\d{4})-(\d\d)-(\d\d)T(\d\d?):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;
/** Days in each month of a common year. */
export const DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

export interface ParsedTime {
  /** int64 nanoseconds (wrapped the way Go's UnixNano wraps for early dates). */
  ns: number | bigint;
  /** Later than the largest int64 time. */
  overflow: boolean;
}

/** Go's time.Parse(time.RFC3339Nano, s); undefined when s is not such a time. */
export function parseTime(s: string): ParsedTime | undefined {
  const m = timeRE.exec(s);
  if (m === null) return undefined;
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
  const h = Number(m[4]), mi = Number(m[5]), se = Number(m[6]);
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || se > 59 || d < 1) return undefined;
  const dim = mo === 2 && isLeap(y) ? 29 : DAYS_IN[mo - 1];
  if (d > dim) return undefined;
  let frac = 0;
  if (m[7] !== undefined) frac = Number(m[7].padEnd(9, "0"));
  let offset = 0;
  if (m[8] !== "Z") {
    const oh = Number(m[8].slice(1, 3)), om = Number(m[8].slice(4, 6));
    if (oh > 24 || om > 60) return undefined;
    offset = (oh * 3600 + om * 60) * (m[8][0] === "-" ? -1 : 1);
  }
  const secs = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset;
  const full = BigInt(secs) * NS_PER_SEC + BigInt(frac);
  return { ns: intBody(BigInt.asIntN(64, full)), overflow: full > MAX_INT64 };
}

// Durations.

const units: [string, bigint][] = [
  ["y", 365n * 24n * 3600n * NS_PER_SEC],
  ["d", 24n * 3600n * NS_PER_SEC],
  ["h", 3600n * NS_PER_SEC],
  ["m", 60n * NS_PER_SEC],
];

function fixedPoint(ns: bigint, scale: bigint): string {
  const v = ns / scale;
  ns -= v * scale;
  let s = v.toString() + ".";
  scale /= 10n;
  while (ns > 0n) {
    const digit = ns / scale;
    s += digit.toString();
    ns -= digit * scale;
    scale /= 10n;
  }
  return s;
}

/** nano.Duration.String(). */
export function formatDuration(d: number | bigint): string {
  if (typeof d === "number") {
    if (d === 0) return "0s";
    // Fast path for the common sub-minute case.
    const a = Math.abs(d);
    if (a < 60e9 && a % 1e9 === 0) return (d < 0 ? "-" : "") + a / 1e9 + "s";
  }
  let ns = toBigInt(d);
  if (ns === -MAX_INT64 - 1n) return "-292y171d23h47m16.854775808s";
  let out = "";
  if (ns < 0n) {
    ns = -ns;
    out = "-";
  }
  for (const [name, size] of units) {
    if (ns >= size) {
      const n = ns / size;
      ns -= n * size;
      if (n > 0n) out += n.toString() + name;
      if (ns === 0n) return out;
    }
  }
  if (ns % NS_PER_SEC === 0n) out += (ns / NS_PER_SEC).toString() + "s";
  else if (ns > NS_PER_SEC) out += fixedPoint(ns, NS_PER_SEC) + "s";
  else if (ns % 1000000n === 0n) out += (ns / 1000000n).toString() + "ms";
  else if (ns > 1000000n) out += fixedPoint(ns, 1000000n) + "ms";
  else if (ns % 1000n === 0n) out += (ns / 1000n).toString() + "us";
  else if (ns > 1000n) out += fixedPoint(ns, 1000n) + "us";
  else out += ns.toString() + "ns";
  return out;
}

const durationSyntaxRE = /^-?([.0-9]+(ns|us|ms|s|m|h|d|w|y))+$/;
const durationPartRE = /([.0-9]+)(ns|us|ms|s|m|h|d|w|y)/g;
const durationScale: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  ms: 1000000n,
  s: NS_PER_SEC,
  m: 60n * NS_PER_SEC,
  h: 3600n * NS_PER_SEC,
  d: 24n * 3600n * NS_PER_SEC,
  w: 7n * 24n * 3600n * NS_PER_SEC,
  y: 365n * 24n * 3600n * NS_PER_SEC,
};

const int64RE = /^[+-]?\d+$/;

function parseInt64(s: string): bigint | undefined {
  if (!int64RE.test(s)) return undefined;
  const v = BigInt(s);
  return v > MAX_INT64 || v < -MAX_INT64 - 1n ? undefined : v;
}

/** nano.ParseDuration: int64 ns, wrapping on overflow as Go does; undefined if malformed. */
export function parseDuration(text: string): number | bigint | undefined {
  if (text.length === 0) return 0;
  let s = text;
  const negative = s[0] === "-";
  if (negative) s = s.slice(1);
  if (!durationSyntaxRE.test(s)) return undefined;
  let d = 0n;
  for (const m of s.matchAll(durationPartRE)) {
    let unit = durationScale[m[2]];
    const whole = parseInt64(m[1]);
    if (whole !== undefined) {
      d = BigInt.asIntN(64, d + whole * unit);
      continue;
    }
    const parts = m[1].split(".");
    if (parts.length !== 2) return undefined;
    if (parts[0].length > 0) {
      const w = parseInt64(parts[0]);
      if (w === undefined) return undefined;
      d = BigInt.asIntN(64, d + w * unit);
    }
    const frac = parts[1].replace(/0+$/, "");
    let extra = 0n;
    for (const c of frac) {
      extra += BigInt(c.charCodeAt(0) - 48) * unit;
      unit /= 10n;
    }
    d = BigInt.asIntN(64, d + (extra + 5n) / 10n);
  }
  if (negative) d = BigInt.asIntN(64, -d);
  return intBody(d);
}
