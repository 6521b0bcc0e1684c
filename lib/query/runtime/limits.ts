// Limits on what one value built by a query may hold. Beyond them V8 does
// not fail politely: an array past ~134 million elements, or a heap past its
// limit, aborts the whole process (every client's connection, every load in
// flight). A query that would build such a value (an array spread into
// itself 27 times, collect() over a whole lake in one group) fails instead,
// as the client's fault.

import { invalid, type LochError } from "../../errors.ts";

/** The most elements one array, set, map or collected aggregate may have. */
export const MAX_ELEMENTS = 1 << 24;

/** The most bytes (as the spill accounting estimates them) one aggregate may hold. */
export const MAX_AGGREGATE_BYTES = 1 << 30;

function tooLarge(what: string): LochError {
  return invalid(`value too large: ${what} (a query's values are limited to protect the server)`);
}

/** Throws unless a container of n elements is within the limit. */
export function checkElements(n: number): void {
  if (n > MAX_ELEMENTS) throw tooLarge(`more than ${MAX_ELEMENTS} elements in one value`);
}

/** Throws unless an aggregate of n values and bytes bytes is within the limits. */
export function checkAggregate(n: number, bytes: number): void {
  checkElements(n);
  if (bytes > MAX_AGGREGATE_BYTES) {
    throw tooLarge(`more than ${MAX_AGGREGATE_BYTES} bytes in one aggregate`);
  }
}
