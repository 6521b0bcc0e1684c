// Case-insensitive substring tests with the semantics of Zed's stringSearch:
// some slice of the text with the same UTF-8 length as the term equals the
// term under Unicode simple case folding (Go's strings.EqualFold). JS's
// `iu` regexps compare under the same folding; the length condition matters
// for the characters whose case forms differ in UTF-8 length (k and the
// Kelvin sign, s and ſ, ß and ẞ, ...).

import { utf8Length } from "../../zed/utf8.ts";

export type StringTest = (s: string) => boolean;

const always: StringTest = () => true;

/** Whether some character of s has other case forms (over-approximated). */
function hasCase(s: string): boolean {
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c < 0x80) {
      if ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) return true;
    } else if (ch.toLowerCase() !== ch || ch.toUpperCase() !== ch) return true;
  }
  return false;
}

function escapeForRegexp(term: string): string {
  let out = "";
  for (const ch of term) {
    const c = ch.codePointAt(0)!;
    const alnum = (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);
    out += alnum || c >= 0xa0 ? ch : `\\u{${c.toString(16)}}`;
  }
  return out;
}

/** A test for "s contains term, ignoring case" (Zed's keyword search). */
export function caseFinder(term: string): StringTest {
  if (term === "") return always;
  if (!hasCase(term)) return (s) => s.includes(term);
  if (isAscii(term)) return asciiFinder(term);
  // A match may differ from the term in UTF-8 length (ß vs ẞ), so check each.
  const re = new RegExp(escapeForRegexp(term), "giu");
  const termBytes = utf8Length(term);
  return (s) => {
    re.lastIndex = 0;
    for (;;) {
      const m = re.exec(s);
      if (m === null) return false;
      if (utf8Length(m[0]) === termBytes) return true;
      const c = s.charCodeAt(m.index);
      re.lastIndex = m.index + (c >= 0xd800 && c <= 0xdbff ? 2 : 1);
    }
  };
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/**
 * An ASCII term can only match ASCII text of its own length (any non-ASCII
 * character would make the slice longer in UTF-8), so ASCII case folding
 * suffices: candidates come from indexOf on both cases of the first
 * character, and the rest is compared with letters or-ed with 0x20.
 */
function asciiFinder(term: string): StringTest {
  const n = term.length;
  const lower = new Uint16Array(n);
  const mask = new Uint16Array(n);
  for (let j = 0; j < n; j++) {
    const c = term.charCodeAt(j);
    const l = c | 0x20;
    const letter = l >= 0x61 && l <= 0x7a;
    lower[j] = letter ? l : c;
    mask[j] = letter ? 0x20 : 0;
  }
  const first = [...new Set([term[0].toLowerCase(), term[0].toUpperCase()])];
  const rest = (s: string, i: number): boolean => {
    for (let j = 1; j < n; j++) {
      if ((s.charCodeAt(i + j) | mask[j]) !== lower[j]) return false;
    }
    return true;
  };
  if (first.length === 1) {
    const f = first[0];
    return (s) => {
      const last = s.length - n;
      for (let i = s.indexOf(f); i >= 0 && i <= last; i = s.indexOf(f, i + 1)) {
        if (rest(s, i)) return true;
      }
      return false;
    };
  }
  const [f0, f1] = first;
  return (s) => {
    const last = s.length - n;
    if (last < 0) return false;
    for (let i = s.indexOf(f0); i >= 0 && i <= last; i = s.indexOf(f0, i + 1)) {
      if (rest(s, i)) return true;
    }
    for (let i = s.indexOf(f1); i >= 0 && i <= last; i = s.indexOf(f1, i + 1)) {
      if (rest(s, i)) return true;
    }
    return false;
  };
}
