// Keyword searches over string columns find the term in either case, inside
// one value only (never across two rows' bytes), wherever it falls in the
// column's bytes — the same rows as searching the values.

import assert from "node:assert/strict";
import { agreed, keyedPool, lines, loadText, withLake } from "./helpers.ts";

Deno.test("keyword search over columns: cases, row boundaries, the ends of the bytes", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    const values = [
      "wrccdc at the start",
      "xWRCCDCx",
      "wrccd", // with the next row's bytes it would spell the term
      "cdc",
      "ÿwrccdcÿ",
      "WrCcDc",
      "nothing here",
      "c2c c2c",
      "ends with wrccdc",
    ];
    // Many distinct values, so the column is not a dictionary.
    let text = "";
    for (let i = 0; i < values.length; i++) text += `{ts:${i},s:${JSON.stringify(values[i])}}\n`;
    for (let i = 0; i < 3000; i++) text += `{ts:${100 + i},s:"filler ${i} www"}\n`;
    await loadText(lake, p, text);
    for (const term of ["wrccdc", "WRCCDC", "c2c", "ccd", "w"]) {
      await agreed(lake, `from p | "${term}" | count()`);
    }
    assert.deepEqual(await lines(lake, 'from p | "wrccdc" | count()'), ["{count:5(uint64)}"]);
  });
});
