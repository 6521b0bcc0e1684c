// Where JSON text (one value after another, as NDJSON) may be cut into
// parts read apart, each as if it were the whole input: only after a line
// ending `}` and before one starting `{"`. If the value before such a cut is
// complete, the cut is between top-level values (in JSON a `}` followed by
// `{` is only possible at the top level); if it is still open there, reading
// straight through fails at once on that `{` (or, inside a string token, at
// the end of that token, the `"`), so a part's reader told what follows it
// (JsonReader's continuation, CONTINUATION) gives that error itself.

/** What every part but the last is followed by (where it is cut). */
export const CONTINUATION = '{"';

/**
 * Where chunk may be cut at from or after `from`: the index after a line
 * break that ends a line ending `}` and starts one starting `{"`; -1 if none.
 */
export function findCut(chunk: Uint8Array, from: number): number {
  for (let p = chunk.indexOf(10, from); p >= 0; p = chunk.indexOf(10, p + 1)) {
    if (p + 2 >= chunk.length) return -1;
    if (chunk[p + 1] !== 123 || chunk[p + 2] !== 34) continue;
    const before = p >= 1 && chunk[p - 1] === 13 ? p - 2 : p - 1;
    if (before >= 0 && chunk[before] === 125) return p + 1;
  }
  return -1;
}
