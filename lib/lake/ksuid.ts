// KSUIDs: the ids of pools, commits and data objects (lake-api.md §3).
// 20 bytes: a 4-byte big-endian timestamp (seconds since 1400000000) and 16
// random bytes. Shown as `0x` + 40 hex digits in responses; accepted as that
// or as the 27-character base62 text.

import { invalid } from "../errors.ts";

export type KSUID = Uint8Array;

const EPOCH = 1400000000;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE62_LEN = 27;
const MAX_BASE62 = "aWgEPTl1tmebfsQzFP4bxwgy80V";

export const NIL_ID: KSUID = new Uint8Array(20);

export function newKSUID(now = Date.now()): KSUID {
  const id = new Uint8Array(20);
  const secs = Math.floor(now / 1000) - EPOCH;
  new DataView(id.buffer).setUint32(0, secs >>> 0);
  crypto.getRandomValues(id.subarray(4));
  return id;
}

export function isNil(id: KSUID): boolean {
  return id.every((b) => b === 0);
}

export function toHex(id: KSUID): string {
  let s = "0x";
  for (const b of id) s += b.toString(16).padStart(2, "0");
  return s;
}

export function toBase62(id: KSUID): string {
  let n = 0n;
  for (const b of id) n = (n << 8n) | BigInt(b);
  let s = "";
  while (n > 0n) {
    s = ALPHABET[Number(n % 62n)] + s;
    n /= 62n;
  }
  return s.padStart(BASE62_LEN, "0");
}

/** lakeparse.ParseID: `0x` + 40 hex digits, or 27 base62 characters. */
export function parseID(s: string): KSUID {
  const id = tryParseID(s);
  if (id === undefined) throw invalid(`invalid ID: ${s}`);
  return id;
}

export function tryParseID(s: string): KSUID | undefined {
  if (s.length === 42 && s.startsWith("0x")) {
    if (!/^[0-9a-fA-F]{40}$/.test(s.slice(2))) return undefined;
    const id = new Uint8Array(20);
    for (let i = 0; i < 20; i++) id[i] = parseInt(s.substr(2 + 2 * i, 2), 16);
    return id;
  }
  if (s.length !== BASE62_LEN || s > MAX_BASE62) return undefined;
  let n = 0n;
  for (const c of s) {
    const d = ALPHABET.indexOf(c);
    if (d < 0) return undefined;
    n = n * 62n + BigInt(d);
  }
  const id = new Uint8Array(20);
  for (let i = 19; i >= 0; i--) {
    id[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return id;
}

/** Creation time of a KSUID, in milliseconds. */
export function ksuidTime(id: KSUID): number {
  return (new DataView(id.buffer, id.byteOffset).getUint32(0) + EPOCH) * 1000;
}
