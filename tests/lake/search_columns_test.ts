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

Deno.test("glob *text* over columns: case kept, no newline crossed, as the regexp matches", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    const values = [
      "www.google.com",
      "GOOGLE",
      "goog", // with the next row's bytes it would spell the term
      "le",
      "line one\ngoogle on line two", // `.*` does not cross the newline
      "google\n",
      "googlegoogle",
      "ÿgoogleÿ",
      "x\r google", // only \n stops `.*`
    ];
    for (const dict of [false, true]) {
      // Many distinct values (no dictionary), or few (a dictionary).
      let text = "";
      for (let i = 0; i < values.length; i++) text += `{ts:${i},s:${JSON.stringify(values[i])}}\n`;
      const filler = dict ? 3 : 3000;
      for (let i = 0; i < filler; i++) text += `{ts:${100 + i},s:"filler ${i} www"}\n`;
      await loadText(lake, p, text);
    }
    for (const glob of ["*google*", "**oo**", "*GOOGLE*", "*e*", "google*", "*x\\*y*", "*le.c*"]) {
      await agreed(lake, `from p | ${glob} | count()`);
      await agreed(lake, `from p | grep(${glob}, s) | count()`);
    }
    assert.deepEqual(await lines(lake, "from p | *google* | count()"), ["{count:8(uint64)}"]);
  });
});

Deno.test("and/or over columns: the right side is searched only in the types whose rows take it", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    let text = "";
    for (let i = 0; i < 400; i++) {
      text += i % 2 === 0
        ? `{ts:${i},query:"q${i}.google.com",rtt:${i % 5}}\n`
        : `{ts:${i},host:"h${i} google",n:${i}}\n`;
    }
    await loadText(lake, p, text);
    for (
      const q of [
        "query and *google*", // the field name matches: only that type's values are searched
        "query and matches and *google*", // nothing takes the last term
        "host and *q1*",
        "rtt > 2 and google",
        "nosuch or google",
        "(query or host) and *7.google*",
        "not query and google",
        "n > 100 or *google*",
      ]
    ) {
      await agreed(lake, `from p | ${q} | count()`);
    }
    assert.deepEqual(await lines(lake, "from p | query and *google* | count()"), [
      "{count:200(uint64)}",
    ]);
    assert.deepEqual(await lines(lake, "from p | host and *q1* | count()"), []);
  });
});
