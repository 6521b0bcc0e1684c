// Set and map bodies are kept in the reference's canonical order: sorted by
// the bytes of each element's (or key's) tagged ZNG encoding, duplicates
// dropped (formats.md §4.7). So `|[1.5,"foo"]|` is `|["foo",1.5]|`.

import { bytesEqual, compareBytes } from "./bytes.ts";
import type { Type } from "./types.ts";
import type { Body } from "./value.ts";
import { encodeTagged } from "./zcode.ts";

interface Keyed {
  key: Uint8Array;
  i: number;
}

function sortedKeys(t: Type, items: Body[], step: number): Keyed[] {
  const keyed: Keyed[] = [];
  for (let i = 0; i < items.length; i += step) keyed.push({ key: encodeTagged(t, items[i]), i });
  // Array.prototype.sort is stable, so the first of equal keys stays first.
  keyed.sort((a, b) => compareBytes(a.key, b.key));
  return keyed;
}

/** Sorts and de-duplicates set elements of element type t. */
export function normalizeSet(t: Type, elems: Body[]): Body[] {
  if (elems.length < 2) return elems;
  const keyed = sortedKeys(t, elems, 1);
  const out: Body[] = [elems[keyed[0].i]];
  for (let k = 1; k < keyed.length; k++) {
    if (!bytesEqual(keyed[k].key, keyed[k - 1].key)) out.push(elems[keyed[k].i]);
  }
  return out;
}

/** Sorts a flat [k, v, ...] map body by key; the first of duplicate keys wins. */
export function normalizeMap(keyType: Type, kv: Body[]): Body[] {
  if (kv.length < 4) return kv;
  const keyed = sortedKeys(keyType, kv, 2);
  const out: Body[] = [kv[keyed[0].i], kv[keyed[0].i + 1]];
  for (let k = 1; k < keyed.length; k++) {
    if (!bytesEqual(keyed[k].key, keyed[k - 1].key)) out.push(kv[keyed[k].i], kv[keyed[k].i + 1]);
  }
  return out;
}
