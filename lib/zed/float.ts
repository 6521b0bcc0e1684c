// Float text as Go writes and reads it: ZSON's `%d.` / 'g' shortest form,
// encoding/json's form, and strconv.ParseFloat's syntax.

const TWO63 = 9223372036854775808;

interface Digits {
  /** Shortest round-trip significant digits, no leading zeros. */
  d: string;
  /** Decimal exponent of the first digit: value = d[0].d[1..] × 10^e. */
  e: number;
}

/** Shortest digits that round-trip (as float32 when is32). f must be finite, nonzero. */
export function shortest(f: number, is32: boolean): Digits {
  const a = Math.abs(f);
  let s: string;
  if (!is32) {
    s = a.toExponential();
  } else {
    s = a.toExponential(8);
    for (let p = 0; p < 9; p++) {
      const t = a.toExponential(p);
      if (Math.fround(Number(t)) === a) {
        s = evenTie(a, p) ?? t;
        break;
      }
    }
  }
  const ei = s.indexOf("e");
  let d = s.slice(0, ei).replace(".", "");
  // toExponential(p) may leave trailing zeros; the shortest form has none.
  let end = d.length;
  while (end > 1 && d.charCodeAt(end - 1) === 48) end--;
  d = d.slice(0, end);
  return { d, e: Number(s.slice(ei + 1)) };
}

/**
 * When a lies exactly halfway between two p-digit candidates that both read
 * back as a, Go picks the one whose last digit is even; toExponential picks
 * the larger. Returns the smaller candidate when it is the even one.
 */
function evenTie(a: number, p: number): string | undefined {
  const u = a.toExponential(p + 1);
  const e = u.indexOf("e");
  if (u.charCodeAt(e - 1) !== 53 || Number(u) !== a) return undefined; // not a tie
  const digits = u.slice(0, e - 1).replace(".", "");
  if ((digits.charCodeAt(digits.length - 1) & 1) !== 0) return undefined;
  const down = digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + u.slice(e);
  return Math.fround(Number(down)) === a ? down : undefined;
}

function expText(e: number): string {
  const sign = e < 0 ? "-" : "+";
  const x = Math.abs(e);
  return sign + (x < 10 ? "0" + x : String(x));
}

/** Go's %e with the shortest digits: d.ddde±XX. */
function formatE(neg: boolean, dg: Digits): string {
  let s = neg ? "-" : "";
  s += dg.d[0];
  if (dg.d.length > 1) s += "." + dg.d.slice(1);
  return s + "e" + expText(dg.e);
}

/** Go's %f with the shortest digits. */
function formatF(neg: boolean, dg: Digits): string {
  const { d, e } = dg;
  let s: string;
  if (e < 0) {
    s = "0." + "0".repeat(-e - 1) + d;
  } else if (e + 1 >= d.length) {
    s = d + "0".repeat(e + 1 - d.length);
  } else {
    s = d.slice(0, e + 1) + "." + d.slice(e + 1);
  }
  return neg ? "-" + s : s;
}

/** strconv.FormatFloat(f, 'g', -1, 64 or 32). */
export function formatFloatG(f: number, is32: boolean): string {
  if (f !== f) return "NaN";
  if (f === Infinity) return "+Inf";
  if (f === -Infinity) return "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const dg = shortest(f, is32);
  if (dg.e < -4 || dg.e >= 6) return formatE(f < 0, dg);
  return formatF(f < 0, dg);
}

/** True when Go's `f == float64(int64(f))` holds (amd64 conversion). */
function isInt64Float(f: number): boolean {
  return Number.isInteger(f) && f >= -TWO63 && f < TWO63;
}

function intText(f: number): string {
  if (Object.is(f, -0)) return "0";
  return Number.isSafeInteger(f) ? String(f) : BigInt(f).toString();
}

/** ZSON text of a float64: integral values as `N.`, others in 'g' form. */
export function formatFloat64(f: number): string {
  if (isInt64Float(f)) return intText(f) + ".";
  return formatFloatG(f, false);
}

/** ZSON text of a float32 body. */
export function formatFloat32(f: number): string {
  if (isInt64Float(f)) return intText(f) + ".";
  return formatFloatG(f, true);
}

/** encoding/json's float text (Go 1.19); NaN and ±Inf are the caller's error. */
export function formatJsonFloat(f: number, is32: boolean): string {
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const a = Math.abs(f);
  const dg = shortest(f, is32);
  if (a < 1e-6 || a >= 1e21) {
    // Go shortens e-09 to e-9 (only negative two-digit exponents below 10).
    const s = formatE(f < 0, dg);
    return s.replace(/e-0(\d)$/, "e-$1");
  }
  return formatF(f < 0, dg);
}

// strconv.ParseFloat syntax: sign, inf/infinity/nan, decimal or hex mantissa
// with optional exponent, underscores only between digits.
const decimalRE = /^[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?$/;
const hexRE =
  /^[+-]?0[xX](?:[\da-fA-F_]+\.?[\da-fA-F_]*|\.[\da-fA-F][\da-fA-F_]*)[pP][+-]?\d[\d_]*$/;
const specialRE = /^[+-]?(?:inf|infinity|nan)$/i;

/** Go's underscoreOK: underscores only between digits (a base prefix counts as one). */
function underscoresOk(s: string): boolean {
  if (s.indexOf("_") < 0) return true;
  let i = s[0] === "+" || s[0] === "-" ? 1 : 0;
  let saw = "^";
  let hex = false;
  if (s.length - i >= 2 && s[i] === "0" && "xXbBoO".includes(s[i + 1])) {
    hex = s[i + 1] === "x" || s[i + 1] === "X";
    saw = "0";
    i += 2;
  }
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i) | 0x20;
    if ((c >= 48 && c <= 57) || (hex && c >= 97 && c <= 102)) {
      saw = "0";
    } else if (s[i] === "_") {
      if (saw !== "0") return false;
      saw = "_";
    } else {
      if (saw === "_") return false;
      saw = "!";
    }
  }
  return saw !== "_";
}

/**
 * strconv.ParseFloat(s, 64): the number, or undefined when s is not a float
 * or is out of range.
 */
export function parseGoFloat(s: string): number | undefined {
  if (specialRE.test(s)) {
    const t = s.toLowerCase().replace(/^[+]/, "");
    if (t.endsWith("nan")) return s[0] === "+" || s[0] === "-" ? undefined : NaN;
    return t.startsWith("-") ? -Infinity : Infinity;
  }
  let f: number;
  if (decimalRE.test(s)) {
    if (!underscoresOk(s)) return undefined;
    f = Number(s.replaceAll("_", ""));
  } else if (hexRE.test(s)) {
    if (!underscoresOk(s)) return undefined;
    f = parseHexFloat(s.replaceAll("_", ""));
  } else {
    return undefined;
  }
  if (!Number.isFinite(f)) return undefined; // out of range
  return f;
}

/** strconv.ParseFloat(s, 32) rounded to float32; undefined when out of range. */
export function parseGoFloat32(s: string): number | undefined {
  const f = parseGoFloat(s);
  if (f === undefined) return undefined;
  const r = Math.fround(f);
  if (!Number.isFinite(r) && Number.isFinite(f)) return undefined;
  return r;
}

function parseHexFloat(s: string): number {
  const neg = s[0] === "-";
  const t = s.replace(/^[+-]/, "").slice(2);
  const p = t.search(/[pP]/);
  const mant = t.slice(0, p);
  const exp = Number(t.slice(p + 1));
  const dot = mant.indexOf(".");
  const digits = dot < 0 ? mant : mant.slice(0, dot) + mant.slice(dot + 1);
  const fracDigits = dot < 0 ? 0 : mant.length - dot - 1;
  let m = 0;
  for (const c of digits) m = m * 16 + parseInt(c, 16);
  const v = m * Math.pow(2, exp - 4 * fracDigits);
  return neg ? -v : v;
}
