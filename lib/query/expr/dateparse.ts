// A liberal date parser for `time("...")` casts. The reference hands strings
// to Go's araddon/dateparse, which recognizes dozens of layouts; this covers
// the families it documents (ISO-like, US slash/dot/colon dates, "Jan 2, 2006",
// "2 Jan 2006", ANSIC/RFC 1123/RFC 850 strings with weekdays and zones, and
// all-digit strings of the lengths it knows). Times without a zone are UTC;
// zone abbreviations count as UTC, as Go's time.Parse does for unknown ones.
// Returns int64 ns since the epoch (wrapping like Go's UnixNano), or undefined.

import { DAYS_IN, daysFromCivil, isLeap } from "../../zed/time.ts";
import { intBody } from "../../zed/value.ts";

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

const WEEKDAY_RE =
  /^(?:mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+/i;

/** A month number (1-12) for a full name, a 3-letter abbreviation or "sept"; else 0. */
function monthOf(word: string): number {
  const w = word.toLowerCase();
  if (w.length < 3) return 0;
  for (let i = 0; i < 12; i++) {
    const m = MONTHS[i];
    if (w === m || w === m.slice(0, 3)) return i + 1;
  }
  return w === "sept" ? 9 : 0;
}

/** Go's two-digit year rule: 69-99 are 19xx, 00-68 are 20xx. */
function fullYear(text: string): number {
  const t = text.startsWith("'") ? text.slice(1) : text;
  const n = Number(t);
  if (t.length !== 2) return n;
  return n >= 69 ? 1900 + n : 2000 + n;
}

interface Parts {
  year: number; // NaN until known
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
  offset: number; // seconds east of UTC
}

type DateRule = (m: RegExpExecArray, p: Parts) => boolean;

// Date layouts tried in order; each consumes the start of the string and fills
// year/month/day. Month words are validated by the rule.
const dateRules: [RegExp, DateRule][] = [
  // 2006-01-02, 2006-1-2, 2006-01
  [/^(\d{4})-(\d{1,2})(?:-(\d{1,2}))?/, (m, p) => set(p, m[1], +m[2], m[3] ?? "1")],
  // 2013-Feb-03
  [/^(\d{4})-([a-z]+)-(\d{1,2})/i, (m, p) => set(p, m[1], monthOf(m[2]), m[3])],
  // 28-Feb-02, 07-Feb-2004
  [/^(\d{1,2})-([a-z]+)-(\d{4}|\d{2})(?!\d)/i, (m, p) => set(p, m[3], monthOf(m[2]), m[1])],
  // 2014/03/31, 2014.03.30, 2014.03, 2014:03:31
  [/^(\d{4})([/.:])(\d{1,2})(?:\2(\d{1,2}))?(?!\d)/, (m, p) => set(p, m[1], +m[3], m[4] ?? "1")],
  // 3/31/2014, 08/21/71, 3.31.2014, 4:2:2014 (month first)
  [/^(\d{1,2})([/.:])(\d{1,2})\2(\d{4}|\d{2})(?!\d)/, (m, p) => set(p, m[4], +m[1], m[3])],
  // 30/May/2008
  [/^(\d{1,2})\/([a-z]+)\/(\d{4})/i, (m, p) => set(p, m[3], monthOf(m[2]), m[1])],
  // 12 Feb 2006, 7 oct 70, 1st July 2013
  [
    /^(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?,?\s+(\d{4}|\d{2})(?![\d:])/i,
    (m, p) => set(p, m[3], monthOf(m[2]), m[1]),
  ],
  // May 8, 2009; oct. 7, '70; September 17th 2012
  [
    /^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+('?\d{4}|'?\d{2})(?![\d:])/i,
    (m, p) => set(p, m[3], monthOf(m[1]), m[2]),
  ],
  // Jan  2 (ANSIC and Unix dates put the year after the time)
  [/^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?!\d)/i, (m, p) => set(p, "", monthOf(m[1]), m[2])],
  // 171113 14:14:20
  [/^(\d{2})(\d{2})(\d{2})(?=\s)/, (m, p) => set(p, m[1], +m[2], m[3])],
  // 2014年04月08日
  [/^(\d{4})年(\d{1,2})月(\d{1,2})日/, (m, p) => set(p, m[1], +m[2], m[3])],
];

function set(p: Parts, year: string, month: number, day: string): boolean {
  if (month === 0) return false;
  p.year = year === "" ? NaN : fullYear(year);
  p.month = month;
  p.day = Number(day);
  return true;
}

const TIME_RE = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,:](\d+))?)?/;
const AMPM_RE = /^\s*([ap])\.?m\.?(?![a-z])/i;
const OFFSET_RE = /^([+-])(\d{2})(?::?(\d{2}))?(?!\d)/;
const ZONE_NAME_RE = /^[a-z]{1,5}(?![a-z])/i;
const YEAR_RE = /^\d{4}(?!\d)/;
const COMMENT_RE = /^\([^)]*\)/;
const MONOTONIC_RE = /^m=[+-][\d.]+/;
const SEP_RE = /^(?:,?\s+at\s+|\s+|,\s*)/i;

/** Parses what follows the date: time, AM/PM, zone, a trailing year, comments. */
function parseRest(s: string, p: Parts): boolean {
  let sawTime = false, sawOffset = false, pm = -1;
  let i = 0;
  if (s.startsWith("T") || s.startsWith("t") || s.startsWith(":")) i = 1;
  while (i < s.length) {
    const rest = s.slice(i);
    let m = SEP_RE.exec(rest);
    if (m !== null) {
      i += m[0].length;
      continue;
    }
    if (!sawTime && (m = TIME_RE.exec(rest)) !== null) {
      sawTime = true;
      p.hour = +m[1];
      p.minute = +m[2];
      p.second = m[3] === undefined ? 0 : +m[3];
      if (m[4] !== undefined) p.nanos = Number(m[4].slice(0, 9).padEnd(9, "0"));
      i += m[0].length;
      const ap = AMPM_RE.exec(s.slice(i));
      if (ap !== null) {
        pm = ap[1].toLowerCase() === "p" ? 1 : 0;
        i += ap[0].length;
      }
      continue;
    }
    if ((m = OFFSET_RE.exec(rest)) !== null) {
      if (!sawOffset) {
        const secs = (+m[2]) * 3600 + (m[3] === undefined ? 0 : +m[3]) * 60;
        p.offset = m[1] === "-" ? -secs : secs;
        sawOffset = true;
      }
      i += m[0].length;
      continue;
    }
    if (rest[0] === "Z" || rest[0] === "z") {
      if (!sawTime) return false;
      i++;
      continue;
    }
    if (Number.isNaN(p.year) && (m = YEAR_RE.exec(rest)) !== null) {
      p.year = Number(m[0]);
      i += m[0].length;
      continue;
    }
    if ((m = COMMENT_RE.exec(rest)) !== null || (m = MONOTONIC_RE.exec(rest)) !== null) {
      i += m[0].length;
      continue;
    }
    if (sawTime && (m = ZONE_NAME_RE.exec(rest)) !== null) {
      i += m[0].length;
      continue;
    }
    return false;
  }
  if (pm >= 0) {
    if (p.hour > 12) return false;
    if (pm === 1 && p.hour < 12) p.hour += 12;
    else if (pm === 0 && p.hour === 12) p.hour = 0;
  }
  return true;
}

function toNanos(p: Parts): number | bigint | undefined {
  const { year, month, day, hour, minute, second } = p;
  if (Number.isNaN(year) || month < 1 || month > 12 || day < 1) return undefined;
  const dim = month === 2 && isLeap(year) ? 29 : DAYS_IN[month - 1];
  if (day > dim || hour > 23 || minute > 59 || second > 59) return undefined;
  const secs = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second -
    p.offset;
  return intBody(BigInt.asIntN(64, BigInt(secs) * 1000000000n + BigInt(p.nanos)));
}

const DIGITS_RE = /^\d+$/;

/** All-digit strings: the lengths dateparse recognizes as dates or Unix times. */
function parseDigits(s: string): number | bigint | undefined {
  const p = newParts();
  switch (s.length) {
    case 4:
      p.year = +s;
      p.month = 1;
      p.day = 1;
      return toNanos(p);
    case 8:
    case 14:
      p.year = +s.slice(0, 4);
      p.month = +s.slice(4, 6);
      p.day = +s.slice(6, 8);
      if (s.length === 14) {
        p.hour = +s.slice(8, 10);
        p.minute = +s.slice(10, 12);
        p.second = +s.slice(12, 14);
      }
      return toNanos(p);
    case 10:
      return intBody(BigInt(s) * 1000000000n);
    case 13:
      return intBody(BigInt(s) * 1000000n);
    case 16:
      return intBody(BigInt(s) * 1000n);
    case 19: {
      const n = BigInt(s);
      return n > 9223372036854775807n ? undefined : intBody(n);
    }
  }
  return undefined;
}

function newParts(): Parts {
  return {
    year: NaN,
    month: 0,
    day: 0,
    hour: 0,
    minute: 0,
    second: 0,
    nanos: 0,
    offset: 0,
  };
}

/** Nanoseconds since the epoch for a date string in one of the known layouts. */
export function parseDate(text: string): number | bigint | undefined {
  if (text.length === 0) return undefined;
  const c = text.charCodeAt(0);
  const isDigit = c >= 48 && c <= 57;
  if (!isDigit && !/^\p{L}/u.test(text)) return undefined;
  if (isDigit && DIGITS_RE.test(text)) return parseDigits(text);
  let s = text;
  const wd = WEEKDAY_RE.exec(s);
  if (wd !== null) s = s.slice(wd[0].length);
  for (const [re, rule] of dateRules) {
    const m = re.exec(s);
    if (m === null) continue;
    const p = newParts();
    if (!rule(m, p)) continue;
    if (!parseRest(s.slice(m[0].length), p)) continue;
    const ns = toNanos(p);
    if (ns !== undefined) return ns;
  }
  return undefined;
}
