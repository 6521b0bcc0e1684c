import assert from "node:assert/strict";
import { ByteInput, TextInput, type ValueWriter } from "../../lib/formats/io.ts";
import { ZsonReader } from "../../lib/formats/zson/reader.ts";
import { TableWriter } from "../../lib/formats/text/table.ts";
import { TextWriter } from "../../lib/formats/text/text.ts";
import { TabWriter } from "../../lib/formats/text/tabwriter.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { runQuery } from "../../lib/query/run.ts";
import type { Sink } from "../../lib/formats/io.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Runs a query over ZSON input into a text or table writer; the output and the error, if any. */
async function run(
  format: "text" | "table",
  input: string,
  query = "*",
): Promise<[string, string]> {
  const parts: string[] = [];
  const sink: Sink = (c) => {
    parts.push(dec.decode(c));
    return Promise.resolve();
  };
  const writer: ValueWriter = format === "text" ? new TextWriter(sink) : new TableWriter(sink);
  const reader = new ZsonReader(new TextInput(ByteInput.fromBytes(enc.encode(input))));
  let err = "";
  try {
    await runQuery(compileQuery(query), [reader], writer);
  } catch (e) {
    err = (e as Error).message;
  }
  return [parts.join(""), err];
}

const conn =
  '{_path:"conn",ts:2015-03-05T14:25:14.419939Z,uid:"CogZFI3py5JsFZGik",id:null({orig_h:ip,orig_p:port=uint16,resp_h:ip,resp_p:port})}\n';

// The conformance vectors of zio/textio and zio/tableio, the reference's other
// text ztest, and the docs examples whose input is inline.
Deno.test("text conformance: flatten", async () => {
  assert.deepEqual(await run("text", conn), [
    "conn\t2015-03-05T14:25:14.419939Z\tCogZFI3py5JsFZGik\t-\t-\t-\t-\n",
    "",
  ]);
});

Deno.test("text conformance: nested-record-named", async () => {
  assert.deepEqual(await run("text", "{a:{b:1}(=record_named)}\n"), ["1\n", ""]);
});

Deno.test("text ztest: vals", async () => {
  const input = '1\n2\n"hello"\n[3,4]\n{a:1}\n{a:1,b:2}\ntrue\nfalse\nnull\n';
  assert.deepEqual(await run("text", input), ["1\n2\nhello\n3,4\n1\n1\t2\nT\nF\n-\n", ""]);
});

Deno.test("table conformance: flatten", async () => {
  assert.deepEqual(await run("table", conn), [
    "_path ts                          uid               id.orig_h id.orig_p id.resp_h id.resp_p\n" +
    "conn  2015-03-05T14:25:14.419939Z CogZFI3py5JsFZGik -         -         -         -\n",
    "",
  ]);
});

Deno.test("table conformance: nested-record-named", async () => {
  assert.deepEqual(await run("table", "{a:{b:1}(=record_named)}\n"), ["a.b\n1\n", ""]);
});

Deno.test("table conformance: non-record-error", async () => {
  const [out, err] = await run("table", "{a:1}\n[1,2]\n");
  assert.equal(out, "a\n1\n");
  assert.match(err, /table output encountered non-record value: \[1,2]/);
});

Deno.test("table conformance: type-value", async () => {
  assert.deepEqual(await run("table", "{a:1}\n", "cut typeof(this)"), [
    "typeof\n<{a:int64}>\n",
    "",
  ]);
});

Deno.test("table docs: fuse", async () => {
  assert.deepEqual(await run("table", "{a:1}{b:2}{a:3}\n", "fuse"), [
    "a b\n1 -\n- 2\n3 -\n",
    "",
  ]);
});

Deno.test("table docs: count by shape", async () => {
  const input = '{x:1,y:2}{s:"foo"}{x:3,y:4}\n';
  assert.deepEqual(await run("table", input, "count() by shape:=typeof(this) | sort count"), [
    "shape               count\n<{s:string}>        1\n<{x:int64,y:int64}> 2\n",
    "",
  ]);
});

Deno.test("table docs: schools rows align in one block", async () => {
  const rows: [string, number, number, number, number][] = [
    ["APEX Academy", 1115, 371, 376, 368],
    ["ARISE High", 1095, 367, 359, 369],
    ["Abraham Lincoln High", 1464, 491, 489, 484],
    ["Abraham Lincoln Senior High", 1319, 462, 432, 425],
    ["Academia Avance Charter", 1148, 386, 380, 382],
  ];
  const input = rows.map(([s, c, m, r, w]) =>
    `{sname:${
      JSON.stringify(s)
    },combined_scores:${c},AvgScrMath:${m},AvgScrRead:${r},AvgScrWrite:${w}}\n`
  ).join("");
  assert.deepEqual(await run("table", input), [
    "sname                       combined_scores AvgScrMath AvgScrRead AvgScrWrite\n" +
    "APEX Academy                1115            371        376        368\n" +
    "ARISE High                  1095            367        359        369\n" +
    "Abraham Lincoln High        1464            491        489        484\n" +
    "Abraham Lincoln Senior High 1319            462        432        425\n" +
    "Academia Avance Charter     1148            386        380        382\n",
    "",
  ]);
  assert.deepEqual(await run("table", "{min:289,max:699,avg:484.99019042123484}\n"), [
    "min max avg\n289 699 484.99019042123484\n",
    "",
  ]);
});

Deno.test("table docs: time columns print as RFC3339", async () => {
  const input = '{DATE:2019-11-11T19:50:46Z,NUMBER:"PR #1",TITLE:"Make \\"make\\" work in zq"}\n' +
    '{DATE:2019-11-11T20:57:12Z,NUMBER:"PR #2",TITLE:"fix install target"}\n';
  assert.deepEqual(await run("table", input), [
    "DATE                 NUMBER TITLE\n" +
    '2019-11-11T19:50:46Z PR #1  Make "make" work in zq\n' +
    "2019-11-11T20:57:12Z PR #2  fix install target\n",
    "",
  ]);
});

Deno.test("text and table: time cells, nulls and named times", async () => {
  const input = "{a:1,t:null(time),n:1970-01-01T00:00:01.5Z(=stamp)}\n";
  assert.deepEqual(await run("text", input), ["1\t-\t1.500000\n", ""]);
  // A null time is an empty cell; the cell before it is still padded.
  assert.deepEqual(await run("table", input), ["a t n\n1   1.500000\n", ""]);
  assert.deepEqual(await run("table", '{a:"x",t:null(time)}\n'), ["a t\nx \n", ""]);
  assert.deepEqual(await run("text", "null({a:int64,b:{c:string}})\n"), ["-\t-\n", ""]);
});

Deno.test("table: a type change flushes and starts a new header", async () => {
  const [out] = await run("table", "{a:1,b:2}\n{a:3,b:4}\n{a:100000,c:3}\n{a:1,b:2}\n");
  assert.equal(out, "a b\n1 2\n3 4\na      c\n100000 3\na b\n1 2\n");
  // A named record with a flat type is the same table as its unnamed twin.
  const [named] = await run("table", "{a:1}(=x)\n{a:2}(=x)\n{a:3}\n");
  assert.equal(named, "a\n1\n2\n3\n");
});

Deno.test("table: the header repeats every 1000 rows, each block aligned alone", async () => {
  let input = "";
  for (let i = 0; i < 1001; i++) input += `{a:"${i === 1000 ? "xxxxxxxxxx" : "x"}",b:${i}}\n`;
  const [out] = await run("table", input);
  let want = "a b\n";
  for (let i = 0; i < 1000; i++) want += `x ${i}\n`;
  want += "a          b\nxxxxxxxxxx 1000\n";
  assert.equal(out, want);
});

/** Go's tabwriter output for text written in the given pieces. */
function tab(...pieces: string[]): string {
  let out = "";
  const w = new TabWriter((s) => out += s);
  for (const p of pieces) w.write(p);
  w.flush();
  return out;
}

Deno.test("tabwriter lays out column blocks as Go's text/tabwriter", () => {
  // Column 1 exists only on the first line, so its block is that line alone.
  assert.equal(tab("a\tb\tc\naaa\tbbbbb\n\tx\n"), "a   b c\naaa bbbbb\n    x\n");
  // A line with fewer cells ends the block; the next block is aligned anew.
  assert.equal(tab("a\tb\nc\nlong\tx\n"), "a b\nc\nlong x\n");
  assert.equal(tab("aaaa\tb\nc\n", "d\te\n"), "aaaa b\nc\nd e\n");
  // Cells split across writes; widths count code points, not UTF-16 units.
  assert.equal(tab("😁é", "\tx\nab\ty\n"), "😁é x\nab y\n");
  // Trailing text without a newline is flushed as it is.
  assert.equal(tab("a\tb\nccc\td"), "a   b\nccc d");
  // A vertical tab ends a cell; a form feed ends the block.
  assert.equal(tab("a\vb\nccc\vd\n"), "a   b\nccc d\n");
  assert.equal(tab("a\tb\f", "ccc\td\n"), "a b\nccc d\n");
  // Empty cells are padded too.
  assert.equal(tab("\t\tz\nabc\tde\tf\n"), "       z\nabc de f\n");
});
