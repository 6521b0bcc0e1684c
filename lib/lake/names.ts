// Names of pools and branches. Any UTF-8 is a name in Zed; here a name must
// also be well-formed text without control characters and of a sane length:
// the catalog keeps names byte for byte only then (a NUL once ended a name
// early, so "main\u0000x" became a second "main"), and names show up in
// paths, logs and terminals, where control characters do harm.

import { invalid } from "../errors.ts";

/** Longest name, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 256;

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Throws a 400 unless name can name a pool or branch (`what` says which). */
export function checkName(what: "pool" | "branch", name: string): void {
  if (CONTROL.test(name)) throw invalid(`invalid ${what} name: control characters are not allowed`);
  if (!name.isWellFormed()) throw invalid(`invalid ${what} name: not valid UTF-8`);
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES) {
    throw invalid(`invalid ${what} name: longer than ${MAX_NAME_BYTES} bytes`);
  }
}
