// Shared helpers for the ZNG tests.

import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import type { Type } from "../../lib/zed/types.ts";
import type { Value } from "../../lib/zed/value.ts";

export function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");
}

/** Bytes from hex text; spaces are ignored. */
export function unhex(s: string): Uint8Array {
  const t = s.replace(/\s+/g, "");
  const out = new Uint8Array(t.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(t.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function unbase64(s: string): Uint8Array {
  const bin = atob(s.replace(/\s+/g, ""));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** Values of ZSON text with one value per line (type names carry across lines). */
export function zsonLines(text: string): Value[] {
  const bindings = new Map<string, Type>();
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => parseZsonValue(l, bindings));
}

/** One line of ZSON per value. */
export function toZson(values: Value[]): string {
  return values.map((v) => formatZson(v.type, v.body) + "\n").join("");
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** A deterministic PRNG (mulberry32), so failures reproduce. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** b with a random corruption: bytes flipped, cut short, junk inserted, or a range deleted. */
export function mutate(b: Uint8Array, r: () => number): Uint8Array {
  const m = b.slice();
  switch (Math.floor(r() * 4)) {
    case 0: // flip bytes
      for (let i = 0, n = 1 + Math.floor(r() * 3); i < n; i++) {
        m[Math.floor(r() * m.length)] ^= 1 + Math.floor(r() * 255);
      }
      return m;
    case 1: // truncate
      return m.subarray(0, Math.floor(r() * m.length));
    case 2: { // insert random bytes
      const at = Math.floor(r() * m.length);
      const junk = Uint8Array.from(
        { length: 1 + Math.floor(r() * 8) },
        () => Math.floor(r() * 256),
      );
      return concatBytes([m.subarray(0, at), junk, m.subarray(at)]);
    }
    default: { // delete a range
      const at = Math.floor(r() * m.length);
      return concatBytes([m.subarray(0, at), m.subarray(at + 1 + Math.floor(r() * 16))]);
    }
  }
}
