// The reference's CSV quote-repair pre-pass (formats.md §6.2). Before the CSV
// tokenizer runs, every field that contains a quoted part is rewritten as one
// fully quoted field: the quotes are dropped, the pieces joined, leading
// space trimmed, and the result wrapped in quotes, so that
// `value1,"value"2,value"3" my friend` reads as three plain values.
//
// The rules, exactly as the reference applies them (it is a byte filter in
// front of Go's encoding/csv):
// - A field ends at `,` or `\n` outside quotes. A quote always starts a quoted
//   part, which ends at a quote not followed by another (`""` is kept as is).
// - A field with a quoted part becomes `"` + content-without-leading-space +
//   `"` + terminator. Trailing space is kept. When the content ends in `\r`
//   (and is longer than that), the `\r` moves outside the closing quote and
//   the terminator becomes `\r\n`, even when it was a comma.
// - A field without quotes passes through unchanged.
// - The last field, when the input ends without a terminator, is written as
//   its content only, never wrapped; a quoted part that runs to the end keeps
//   its final quote when that quote is the input's last character.

import { trimLeftGoSpace } from "./gospace.ts";

/**
 * Repairs raw[start..] field by field, appending the result to out. Stops
 * before a field that is not complete unless eof. Returns where it stopped.
 */
export function repairQuotes(raw: string, start: number, eof: boolean, out: string[]): number {
  const n = raw.length;
  let p = start;
  while (p < n) {
    const q = raw.indexOf('"', p);
    // Everything before the field that holds the next quote passes through.
    const passTo = q < 0 && eof ? n : lastTerminator(raw, p, q < 0 ? n : q) + 1;
    if (passTo > p) {
      out.push(raw.slice(p, passTo));
      p = passTo;
    }
    if (q < 0) break;
    const end = repairField(raw, p, eof, out);
    if (end < 0) break;
    p = end;
  }
  return p;
}

/** The last `,` or `\n` in raw[from..to), or from-1. */
function lastTerminator(raw: string, from: number, to: number): number {
  if (to <= from) return from - 1;
  const c = raw.lastIndexOf(",", to - 1);
  const nl = raw.lastIndexOf("\n", to - 1);
  const t = c > nl ? c : nl;
  return t >= from ? t : from - 1;
}

/**
 * Repairs the field at raw[p..], which holds a quote. Returns the position
 * after it, or -1 when the field is not complete and !eof.
 */
function repairField(raw: string, p: number, eof: boolean, out: string[]): number {
  const n = raw.length;
  let content = "";
  let quoted = false;
  let i = p;
  let run = p; // start of the pending run of plain characters
  for (;;) {
    if (i >= n) {
      if (!eof) return -1;
      out.push(content + raw.slice(run, n));
      return n;
    }
    const c = raw.charCodeAt(i);
    if (c === 0x22) {
      content += raw.slice(run, i);
      quoted = true;
      i++;
      run = i;
      // A quoted part: up to a quote that is not doubled.
      for (;;) {
        if (i >= n) {
          if (!eof) return -1;
          out.push(content + raw.slice(run, n));
          return n;
        }
        if (raw.charCodeAt(i) !== 0x22) {
          i++;
          continue;
        }
        if (i + 1 >= n) {
          if (!eof) return -1;
          // The closing quote is the input's last character: it is kept.
          out.push(content + raw.slice(run, n));
          return n;
        }
        if (raw.charCodeAt(i + 1) === 0x22) {
          i += 2;
          continue;
        }
        content += raw.slice(run, i);
        i++;
        run = i;
        break;
      }
      continue;
    }
    if (c === 0x2c || c === 0x0a) {
      content += raw.slice(run, i);
      let ending = c === 0x2c ? "," : "\n";
      if (quoted) {
        const last = content.length - 1;
        if (last > 0 && content.charCodeAt(last) === 0x0d) {
          ending = "\r\n";
          content = content.slice(0, last);
        }
        content = '"' + trimLeftGoSpace(content) + '"';
      }
      out.push(content + ending);
      return i + 1;
    }
    i++;
  }
}
