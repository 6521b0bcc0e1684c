// Which ASCII characters a string column's values hold, worked out as the
// lake writes the column and kept with it (ColumnRef.ascii): a search for an
// ASCII term with a character none of the column's values has (a word with
// letters, over timestamps or addresses kept as strings) need not read it.

/** The ASCII characters present in bytes: 32 hex digits, bit c of the 128 for character c. */
export function asciiSetOf(bytes: Uint8Array): string {
  const seen = new Uint8Array(256);
  for (let i = 0; i < bytes.length; i++) seen[bytes[i]] = 1;
  let hex = "";
  // Four characters a hex digit: digit k holds characters 4k..4k+3 (lowest bit first).
  for (let k = 0; k < 32; k++) {
    const c = k << 2;
    hex += (seen[c] | seen[c + 1] << 1 | seen[c + 2] << 2 | seen[c + 3] << 3).toString(16);
  }
  return hex;
}

/** Whether the set (from asciiSetOf) has the ASCII character c. */
export function asciiSetHas(set: string, c: number): boolean {
  return c < 128 && ((parseInt(set[c >> 2], 16) >> (c & 3)) & 1) === 1;
}
