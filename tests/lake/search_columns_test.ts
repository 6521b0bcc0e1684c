// Keyword searches over string columns find the term in either case, inside
// one value only (never across two rows' bytes), wherever it falls in the
// column's bytes — the same rows as searching the values.

import assert from "node:assert/strict";
import { agreed, keyedPool, lines, loadText, withLake } from "./helpers.ts";
import { clearColumnCache } from "../../lib/lake/columns/mod.ts";
import { asciiSetHas, asciiSetOf } from "../../lib/query/vector/asciiset.ts";

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
      await agreed(lake, `from p | grep("${term}") | count()`);
    }
    assert.deepEqual(await lines(lake, 'from p | "wrccdc" | count()'), ["{count:5(uint64)}"]);
  });
});

Deno.test("search for a term of digits and dots (a byte found every few bytes): the same rows", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    // Times and addresses: digits, dots, dashes and colons everywhere; the
    // terms' first or last bytes at values' edges; a T beside a digit.
    const values = [
      "10.47.8.208",
      "x10.47.8.2081",
      "10.47.8.20", // with the next row's bytes it would spell the term
      "8",
      "2018-03-24T17:15:20.600725Z",
      "2018-03-24t17:15:20Z",
      "24T1",
      "0.0.0.0",
      "line\n10.47.8.208",
    ];
    let text = "";
    for (let i = 0; i < values.length; i++) text += `{ts:${i},s:${JSON.stringify(values[i])}}\n`;
    for (let i = 0; i < 3000; i++) {
      text += `{ts:${100 + i},s:"10.${i % 256}.${(i * 7) % 256}.${i % 97} 2018-03-2${i % 10}T1${
        i % 10
      }:0${i % 10}"}\n`;
    }
    await loadText(lake, p, text);
    for (
      const term of ["10.47.8.208", "24T1", "4t1", "0.0", "7.8", ".208", "208", "T17:1", "1.1"]
    ) {
      await agreed(lake, `from p | "${term}" | count()`);
      await agreed(lake, `from p | grep("${term}") | count()`);
    }
    assert.deepEqual(await lines(lake, 'from p | "24T1" | count()'), ["{count:303(uint64)}"]);
  });
});

Deno.test("a literal's search (address, number, time, net) over columns: its text in strings too", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    // Typed fields equal to the literals, and strings holding their text
    // (in another case, at the edges, across two rows' bytes).
    const strings = [
      "from 10.47.8.208 to",
      "10.47.8.20",
      "8",
      "took 10M",
      "at 2018-03-24t17:15:20.600725z",
      "x53x",
      "1.5.1",
      "TRUE story",
    ];
    let text = "";
    for (let i = 0; i < 4000; i++) {
      const s = i < strings.length ? strings[i] : `filler ${i} ${i % 97}.${i % 13}`;
      const ip = i % 50 === 0 ? "10.47.8.208" : `10.${i % 256}.1.${i % 200}`;
      // Numbers of several types: ints (a null among them), floats, times past
      // 2^53 (one equal to the time searched, one a nanosecond off).
      const n = i % 97 === 0 ? "null(int64)" : `${i % 60 - 1}`;
      const t = i % 40 === 0
        ? "2018-03-24T17:15:20.600725Z"
        : i % 40 === 1
        ? "2018-03-24T17:15:20.600725001Z"
        : `2018-03-24T17:${String(i % 60).padStart(2, "0")}:00Z`;
      const f = (i % 20) / 2;
      text += `{ts:${i},s:${JSON.stringify(s)},ip:${ip},n:${n},f:${f},t:${t},d:${i % 7}m,b:${
        i % 2 === 0
      }}\n`;
    }
    await loadText(lake, p, text);
    for (
      const term of [
        "10.47.8.208",
        "53",
        "1.5",
        "0",
        "-1",
        "10m",
        "2018-03-24T17:15:20.600725Z",
        "true",
        "10.47.0.0/16",
      ]
    ) {
      await agreed(lake, `from p | ${term} | count()`);
      await agreed(lake, `from p | ${term} | head 20`);
    }
    assert.deepEqual(await lines(lake, "from p | 10.47.8.208 | count()"), ["{count:80(uint64)}"]);
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
      await agreed(lake, `from p | grep(${glob}) | count()`);
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

Deno.test("a search reads no string column that lacks one of its term's characters", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    let text = "";
    for (let i = 0; i < 2000; i++) {
      const at = new Date(Date.UTC(2018, 2, 24) + i * 1000).toISOString();
      text += `{ts:${i},at:"${at}",s:"${i % 7 === 0 ? "wrccdc.org" : "example.com"}"}\n`;
    }
    await loadText(lake, p, text);
    // Bytes read from the lake's files while a query runs (columns cleared first).
    const storage = lake.storage;
    let bytes = 0;
    if (storage.readSync !== undefined) {
      const read = storage.readSync.bind(storage);
      storage.readSync = (path, offset, out) => {
        const n = read(path, offset, out);
        bytes += n;
        return n;
      };
    } else {
      const readRange = storage.readRange.bind(storage);
      storage.readRange = async function* (path, offset, length) {
        for await (const c of readRange(path, offset, length)) {
          bytes += c.length;
          yield c;
        }
      };
    }
    const readFor = async (q: string, want: string) => {
      clearColumnCache();
      bytes = 0;
      assert.deepEqual(await lines(lake, q), [want]);
      await agreed(lake, q);
      return bytes;
    };
    // The timestamps (2000 of 24 bytes) have no "w": only the small dictionary column is read.
    assert.ok(await readFor('from p | "wrccdc" | count()', "{count:286(uint64)}") < 20000);
    assert.ok(await readFor("from p | *wrccdc* | count()", "{count:286(uint64)}") < 20000);
    // Terms whose characters the timestamps have read them.
    assert.ok(await readFor('from p | "2018" | count()', "{count:2000(uint64)}") > 48000);
    assert.ok(await readFor('from p | "z" | count()', "{count:2000(uint64)}") > 48000);
  });
});

Deno.test("the ASCII set of a column's bytes: every character of the 128 present or not", () => {
  const bytes = new TextEncoder().encode("Az09 \u0000\u007fé");
  const set = asciiSetOf(bytes);
  assert.equal(set.length, 32);
  const present = [];
  for (let c = 0; c < 256; c++) if (asciiSetHas(set, c)) present.push(c);
  assert.deepEqual(present, [0, 0x20, 0x30, 0x39, 0x41, 0x7a, 0x7f]);
  assert.equal(asciiSetOf(new Uint8Array(0)), "0".repeat(32));
});

Deno.test("grep over this searches the columns as its pattern's search term does", async () => {
  const { compileQuery } = await import("../../lib/query/mod.ts");
  for (const q of ['grep("wrccdc")', "grep(*goo*)", "grep(/go+gle/)"]) {
    const src = compileQuery(`from p | ${q} | count()`).sources![0];
    assert.ok(src.filter?.vector, `${q} runs on columns`);
  }
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    let text = "";
    for (let i = 0; i < 2000; i++) {
      text += i % 3 === 0
        ? `{ts:${i},query:"q${i}.google.com"}\n`
        : `{ts:${i},host:"h${i}",n:${i},google:true}\n`;
    }
    await loadText(lake, p, text);
    for (const re of ["/google/", "/^q1/", "/GOOGLE/", "/go+gle\\.c/", "/^google$/"]) {
      await agreed(lake, `from p | grep(${re}) | count()`);
      await agreed(lake, `from p | not grep(${re}) | count()`);
    }
    // The field name google matches as a search term's does.
    assert.deepEqual(await lines(lake, "from p | grep(/^google$/) | count()"), [
      "{count:1333(uint64)}",
    ]);
  });
});
