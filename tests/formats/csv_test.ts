import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { flattenType, flattenValue } from "../../lib/formats/csv/flatten.ts";
import { CsvReader, detectCsv } from "../../lib/formats/csv/reader.ts";
import { repairQuotes } from "../../lib/formats/csv/repair.ts";
import { CsvWriter, quoteCsvField } from "../../lib/formats/csv/writer.ts";
import { ByteInput, TextInput, type ValueReader, type ValueWriter } from "../../lib/formats/io.ts";
import { LineReader } from "../../lib/formats/line/reader.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { parseZsonType, parseZsonValue, ZsonReader } from "../../lib/formats/zson/reader.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { runQuery } from "../../lib/query/run.ts";
import type { RecordType } from "../../lib/zed/types.ts";
import type { Value } from "../../lib/zed/value.ts";

/** Text as a byte stream of `size`-byte chunks. */
function chunked(s: string, size = 1 << 20): ByteInput {
  const b = new TextEncoder().encode(s);
  const it = (async function* () {
    for (let i = 0; i < b.length; i += size) yield b.slice(i, i + size);
  })();
  return new ByteInput(it, "test");
}

function csvReader(s: string, size?: number, minChunk?: number): CsvReader {
  return new CsvReader(new TextInput(chunked(s, size), minChunk));
}

async function readAll(r: ValueReader): Promise<Value[]> {
  const out: Value[] = [];
  for (let b = await r.read(); b !== null; b = await r.read()) out.push(...b);
  return out;
}

/** One-line ZSON of everything a CSV text reads as, or `error: <message>` last. */
async function readCsv(s: string, size?: number, minChunk?: number): Promise<string[]> {
  const out: string[] = [];
  const r = csvReader(s, size, minChunk);
  try {
    for (let b = await r.read(); b !== null; b = await r.read()) {
      for (const v of b) out.push(formatZson(v.type, v.body));
    }
  } catch (e) {
    out.push("error: " + (e as Error).message);
  }
  return out;
}

/** What a writer emits for values, and the error it ended with. */
async function writeWith(
  make: (sink: (c: Uint8Array) => Promise<void>) => ValueWriter,
  run: (w: ValueWriter) => Promise<void>,
): Promise<{ out: string; error?: string }> {
  let out = "";
  const dec = new TextDecoder();
  const w = make((c) => {
    out += dec.decode(c);
    return Promise.resolve();
  });
  try {
    await run(w);
  } catch (e) {
    return { out, error: (e as Error).message };
  }
  return { out };
}

/** CSV output of ZSON values, written one batch per value. */
function csvOf(zson: string[]): Promise<{ out: string; error?: string }> {
  return writeWith((s) => new CsvWriter(s), async (w) => {
    try {
      for (const z of zson) await w.write([parseZsonValue(z)]);
    } finally {
      await w.end();
    }
  });
}

interface Case {
  name: string;
  query: string;
  in: string;
  out: string;
  input: string;
  stdout: string;
  error?: string;
}

/** Runs a case as zq would: the input format's reader, the query, the output format's writer. */
function runCase(c: Case): Promise<{ out: string; error?: string }> {
  const input = new TextInput(chunked(c.input, 5), 3);
  const reader = c.in === "csv"
    ? new CsvReader(input)
    : c.in === "line"
    ? new LineReader(input)
    : new ZsonReader(input);
  const pretty = c.out === "-z" ? 0 : c.out === "-Z" ? 4 : Number(c.out.split(" ").at(-1));
  return writeWith(
    (s) => c.out === "-f csv" ? new CsvWriter(s) : new ZsonWriter(s, { pretty }),
    (w) => runQuery(compileQuery(c.query), [reader], w),
  );
}

async function checkCase(c: Case): Promise<void> {
  const got = await runCase(c);
  assert.equal(got.out, c.stdout, c.name);
  if (c.error === undefined) assert.equal(got.error, undefined, c.name);
  else assert.match(got.error ?? "", new RegExp(c.error), c.name);
}

// The zio/csvio conformance cases (read-big is run from the conformance file below), and
// the time and uint ztests, which that file lacks.
const cases: Case[] = String.raw`
{"name":"bool","query":"*","in":"zson","out":"-f csv","input":"{bool:null(bool)}\n{bool:false}\n{bool:true}\n","stdout":"bool\n\nfalse\ntrue\n"}
{"name":"bytes","query":"*","in":"zson","out":"-f csv","input":"{bytes:null(bytes)}\n{bytes:0x}\n{bytes:0x68656c6c6f0a}\n","stdout":"bytes\n\n\n0x68656c6c6f0a\n"}
{"name":"duration","query":"*","in":"zson","out":"-f csv","input":"{duration:null(duration)}\n{duration:0s}\n{duration:-292y171d23h47m16.854775808s}\n{duration:292y171d23h47m16.854775807s}\n","stdout":"duration\n\n0s\n-292y171d23h47m16.854775808s\n292y171d23h47m16.854775807s\n"}
{"name":"embedded-quotes","query":"*","in":"csv","out":"-Z","input":"field1, field2, field3\n\"\"\",\"\"\",\"\"\" has a couple \"\" embedded quotes and a , comma\",\"\"\" \"\"\"\n","stdout":"{\n    field1: \"\\\",\\\"\",\n    field2: \"\\\" has a couple \\\" embedded quotes and a , comma\",\n    field3: \"\\\" \\\"\"\n}\n"}
{"name":"error","query":"*","in":"zson","out":"-f csv","input":"{error:error(null(string))}\n{error:error(\"\")}\n{error:error(\"\\\"\")}\n{error:error(\",\")}\n{error:error(\"\\\\u002d\")}\n{error:error(\"\\\\u005c\")}\n","stdout":"error\n\n\"error(\"\"\"\")\"\n\"error(\"\"\\\"\"\"\")\"\n\"error(\"\",\"\")\"\n\"error(\"\"\\\\u002d\"\")\"\n\"error(\"\"\\\\u005c\"\")\"\n"}
{"name":"extraneous-quotes","query":"*","in":"csv","out":"-z","input":"field1,field2,field\"3\"\nvalue1,\"value\"2,value\"3\" my friend\nvalue4,\"value\"5 with \"multiple\" quotes \"to\" escape,value6\n","stdout":"{field1:\"value1\",field2:\"value2\",field3:\"value3 my friend\"}\n{field1:\"value4\",field2:\"value5 with multiple quotes to escape\",field3:\"value6\"}\n"}
{"name":"float","query":"*","in":"zson","out":"-f csv","input":"{f32:null(float32),f64:null(float64)}\n{f32:+Inf(float32),f64:+Inf}\n{f32:-Inf(float32),f64:-Inf}\n{f32:NaN(float32),f64:NaN}\n{f32:0.(float32),f64:0.}\n{f32:1.(float32),f64:1.}\n{f32:-1.(float32),f64:-1.}\n{f32:2.2(float32),f64:2.2}\n{f32:-2.2(float32),f64:-2.2}\n{f32:1e-45(float32),f64:5e-324}\n{f32:-1e-45(float32),f64:-5e-324}\n{f32:3.4028235e+38(float32),f64:1.7976931348623157e+308}\n{f32:-3.4028235e+38(float32),f64:-1.7976931348623157e+308}\n","stdout":"f32,f64\n,\n+Inf,+Inf\n-Inf,-Inf\nNaN,NaN\n0,0\n1,1\n-1,-1\n2.2,2.2\n-2.2,-2.2\n1e-45,5e-324\n-1e-45,-5e-324\n3.4028235e+38,1.7976931348623157e+308\n-3.4028235e+38,-1.7976931348623157e+308\n"}
{"name":"int","query":"*","in":"zson","out":"-f csv","input":"{int8:null(int8),int16:null(int16),int32:null(int32),int64:null(int64)}\n{int8:0(int8),int16:0(int16),int32:0(int32),int64:0}\n{int8:-128(int8),int16:-32768(int16),int32:-2147483648(int32),int64:-9223372036854775808}\n{int8:127(int8),int16:32767(int16),int32:2147483647(int32),int64:9223372036854775807}\n","stdout":"int8,int16,int32,int64\n,,,\n0,0,0,0\n-128,-32768,-2147483648,-9223372036854775808\n127,32767,2147483647,9223372036854775807\n"}
{"name":"ip","query":"*","in":"zson","out":"-f csv","input":"{ip:null(ip)}\n{ip:1.2.3.4}\n","stdout":"ip\n\n1.2.3.4\n"}
{"name":"issue-2332","query":"*","in":"csv","out":"-z","input":"\"Letter\", \"Frequency\", \"Percentage\"\n  \"A\",  24373121,  8.1\n  \"B\",   4762938,  1.6\n","stdout":"{Letter:\"A\",Frequency:24373121.,Percentage:8.1}\n{Letter:\"B\",Frequency:4762938.,Percentage:1.6}\n"}
{"name":"named","query":"*","in":"zson","out":"-f csv","input":"{a:{b:1(=my_int64)}(=my_inner_record)}(=my_outer_record)\n","stdout":"a.b\n1\n"}
{"name":"net","query":"*","in":"zson","out":"-f csv","input":"{net:null(net)}\n{net:1.2.3.4/32}\n","stdout":"net\n\n1.2.3.4/32\n"}
{"name":"non-record-error","query":"*","in":"zson","out":"-f csv","input":"{a:1}\n[1,2]\n","stdout":"a\n1\n","error":"CSV output encountered non-record value: \\[1,2]"}
{"name":"null-nested","query":"fuse","in":"zson","out":"-f csv","input":"{a:null({b:{a1:[string],a2:[string]}})}\n{s:\"x\"}\n","stdout":"a.b.a1,a.b.a2,s\n,,\n,,x\n"}
{"name":"null","query":"*","in":"zson","out":"-f csv","input":"{null:null}\n{null:null}\n","stdout":"null\n\n\n"}
{"name":"reader","query":"*","in":"csv","out":"-z","input":"a,b,c\n1,2,3\nhello,world,4\n","stdout":"{a:1.,b:2.,c:3.}\n{a:\"hello\",b:\"world\",c:4.}\n"}
{"name":"record-flat","query":"*","in":"zson","out":"-f csv","input":"{a:\"hello\",b:\"world\"}\n{a:\"goodnight\",b:\"gracie\"}\n{a:\",\",b:\"gracie\"}\n","stdout":"a,b\nhello,world\ngoodnight,gracie\n\",\",gracie\n"}
{"name":"record-nested","query":"*","in":"zson","out":"-f csv","input":"{a:\"hello\",b:{c:\"world\",d:\"goodbye\"}}\n","stdout":"a,b.c,b.d\nhello,world,goodbye\n"}
{"name":"string","query":"*","in":"zson","out":"-f csv","input":"{string:null(string)}\n{string:\"\"}\n{string:\"\\\"\"}\n{string:\",\"}\n{string:\"-\"}\n{string:\"\\\\\"}\n","stdout":"string\n\n\n\"\"\"\"\n\",\"\n-\n\\\n"}
{"name":"type","query":"*","in":"zson","out":"-f csv","input":"{type:null(type)}\n{type:<{a:int64}>}\n","stdout":"type\n\n<{a:int64}>\n"}
{"name":"time","query":"*","in":"zson","out":"-f csv","input":"{time:null(time)}\n{time:1970-01-01T00:00:00Z}\n{time:1677-09-21T00:12:43.145224192Z}\n{time:2262-04-11T23:47:16.854775807Z}\n","stdout":"time\n\n1970-01-01T00:00:00Z\n1677-09-21T00:12:43.145224192Z\n2262-04-11T23:47:16.854775807Z\n"}
{"name":"uint","query":"*","in":"zson","out":"-f csv","input":"{uint8:null(uint8),uint16:null(uint16),uint32:null(uint32),uint64:null(uint64)}\n{uint8:0(uint8),uint16:0(uint16),uint32:0(uint32),uint64:0(uint64)}\n{uint8:255(uint8),uint16:65535(uint16),uint32:4294967295(uint32),uint64:18446744073709551615(uint64)}\n","stdout":"uint8,uint16,uint32,uint64\n,,,\n0,0,0,0\n255,65535,4294967295,18446744073709551615\n"}
`.trim().split("\n").map((l) => JSON.parse(l));

Deno.test("csv: the reference's ztests", async () => {
  assert.equal(cases.length, 22);
  for (const c of cases) await checkCase(c);
});

const conformance = "/work/shared/conformance/cases.jsonl";

Deno.test({
  name: "csv: every zio/csvio case of the conformance file",
  ignore: !existsSync(conformance),
  fn: async () => {
    let n = 0;
    for (const line of Deno.readTextFileSync(conformance).split("\n")) {
      if (!line.includes('"zio/csvio"')) continue;
      const j = JSON.parse(line);
      if (j.category !== "zio/csvio" || j.skip) continue;
      await checkCase({
        name: j.id,
        query: j.query,
        in: j.input_flags.includes("csv") ? "csv" : "zson",
        out: j.output_flags.join(" ").replace("-f zson -pretty", "-pretty"),
        input: j.input,
        stdout: j.expected_stdout,
        error: j.expected_error_re,
      });
      n++;
    }
    assert.equal(n, 21);
  },
});

Deno.test("csv writer: the verified examples of formats.md §6.1", async () => {
  const big = '{a:"x y",b:" lead",c:"tab\\there",d:"q\\"q",g:"\\\\.",h:"",i:null(string),' +
    'j:[1,2],m:1((int64,string)),o:{p:{q:1}},r:1(=foo),s:error("x"),t:<int64>,u:1.(float32),v:0x}';
  assert.deepEqual(await csvOf([big]), {
    out: "a,b,c,d,g,h,i,j,m,o.p.q,r,s,t,u,v\n" +
      'x y," lead",tab\there,"q""q","\\.",,,"[1,2]","1((int64,string))",1,1,"error(""x"")",<int64>,1,\n',
  });
  assert.deepEqual(await csvOf(['{"a b":1,"c,d":2,"e\\"f":3}']), {
    out: 'a b,"c,d","e""f"\n1,2,3\n',
  });
});

Deno.test("csv writer: complex cells are decorated ZSON, named primitives are not", async () => {
  const got = await csvOf([
    "{s:|[1]|,m:|{1:2}|,e:%a(enum(a,b)),n:[1(int8)],p:80(port=uint16),q:[1](=arr),x:1(=n)}",
  ]);
  assert.deepEqual(got, {
    out: 's,m,e,n,p,q,x\n|[1]|,|{1:2}|,"%a(enum(a,b))",[1(int8)],80,[1](=arr),1\n',
  });
});

Deno.test("csv writer: uniformity, errors and what was written before them", async () => {
  const notUniform =
    "CSV output requires uniform records but multiple types encountered (consider 'fuse')";
  assert.deepEqual(await csvOf(['{a:"hello"}', "{b:123}"]), {
    out: "a\nhello\n",
    error: notUniform,
  });
  assert.deepEqual(await csvOf(["{a:1}", "{a:2}", "[1,2]"]), {
    out: "a\n1\n2\n",
    error: "CSV output encountered non-record value: [1,2]",
  });
  assert.deepEqual(await csvOf(["1"]), {
    out: "",
    error: "CSV output encountered non-record value: 1",
  });
  // Flattening hides nesting and outer names.
  assert.deepEqual(await csvOf(["{a:{b:1}}", '{"a.b":2}', "{a:{b:3}(=r)}"]), {
    out: "a.b\n1\n2\n3\n",
  });
  assert.deepEqual(await csvOf(["{a:1}(=foo)", "{a:2}"]), { out: "a\n1\n2\n" });
  // A record that is already flat keeps its name, which the reference then
  // finds different from the header's unnamed type.
  assert.deepEqual(await csvOf(["{a:1}(=foo)", "{a:2}(=foo)"]), {
    out: "a\n1\n",
    error: notUniform,
  });
  // The error is thrown in the middle of a batch; the rows before it are flushed.
  const vals = ["{a:1}", "{a:2}", "{b:3}"].map((z) => parseZsonValue(z));
  const got = await writeWith((s) => new CsvWriter(s), (w) => w.write(vals));
  assert.deepEqual(got, { out: "a\n1\n2\n", error: notUniform });
});

Deno.test("csv writer: null records and empty records", async () => {
  // A null flat record has no cells; a null nested one has a null per leaf.
  assert.deepEqual(await csvOf(["{a:1,b:2}", "null({a:int64,b:int64})"]), {
    out: "a,b\n1,2\n\n",
  });
  assert.deepEqual(await csvOf(["{a:{b:1,c:2}}", "null({a:{b:int64,c:int64}})"]), {
    out: "a.b,a.c\n1,2\n,\n",
  });
  assert.deepEqual(await csvOf(["{x:1,a:null({b:int64,c:int64})}"]), { out: "x,a.b,a.c\n1,,\n" });
  assert.deepEqual(await csvOf(["{}", "{}"]), { out: "\n\n\n" });
});

Deno.test("csv writer: runs of empty cells, as a fused record's rows have them", async () => {
  const t = "{a:int64,b:string,c:int64,d:string,e:int64}";
  assert.deepEqual(
    await csvOf([
      `{a:1,b:null,c:null,d:null,e:2}(${t})`,
      `{a:null,b:null,c:null,d:null,e:null}(${t})`,
      `{a:null,b:"x",c:null,d:"",e:null}(${t})`,
      `{a:1,b:"",c:3,d:null,e:null}(${t})`,
    ]),
    { out: "a,b,c,d,e\n1,,,,2\n,,,,\n,x,,,\n1,,3,,\n" },
  );
  // As many empty cells as a wide fused record has.
  const names = Array.from({ length: 300 }, (_, i) => `f${i}`);
  const row = `{${names.map((n, i) => `${n}:${i % 97 === 5 ? i : "null(int64)"}`).join(",")}}`;
  const cells = names.map((_, i) => i % 97 === 5 ? String(i) : "");
  assert.deepEqual(await csvOf([row, row]), {
    out: `${names.join(",")}\n${cells.join(",")}\n${cells.join(",")}\n`,
  });
});

Deno.test("csv writer: Go encoding/csv quoting", () => {
  const cases: [string, string][] = [
    ["", ""],
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["line\nbreak", '"line\nbreak"'],
    ["cr\rhere", '"cr\rhere"'],
    ["\\.", '"\\."'],
    ["\\.x", "\\.x"],
    [" lead", '" lead"'],
    ["\tlead", '"\tlead"'],
    ["\u0085nel", '"\u0085nel"'],
    ["\u00a0nbsp", '"\u00a0nbsp"'],
    ["\u3000ideo", '"\u3000ideo"'],
    ["\ufeffbom", "\ufeffbom"],
    ["trail ", "trail "],
    ["-", "-"],
  ];
  for (const [s, want] of cases) assert.equal(quoteCsvField(s), want, JSON.stringify(s));
});

Deno.test("flatten: types and values", () => {
  const t = parseZsonType("{a:int64,b:inner={c:string,d:{e:ip}},f:[{g:int64}]}") as RecordType;
  const flat = flattenType(t);
  assert.deepEqual(flat.fields.map((f) => f.name), ["a", "b.c", "b.d.e", "f"]);
  assert.equal(flattenType(flat), flat);
  const v = parseZsonValue('{a:1,b:{c:"x",d:null({e:ip})}(=inner),f:[{g:2}]}');
  assert.equal(
    formatZson(flattenValue(v).type, flattenValue(v).body),
    '{a:1,"b.c":"x","b.d.e":null(ip),f:[{g:2}]}',
  );
  const named = parseZsonValue("{a:1}(=foo)");
  assert.equal(flattenValue(named), named);
});

Deno.test("csv reader: the §6.2 examples and cell typing", async () => {
  assert.deepEqual(await readCsv("a,b,c\n1,2,3\nhello,world,4\n"), [
    "{a:1.,b:2.,c:3.}",
    '{a:"hello",b:"world",c:4.}',
  ]);
  assert.deepEqual(await readCsv('h1,h2,h3\nvalue1,"value"2,value"3" my friend\n'), [
    '{h1:"value1",h2:"value2",h3:"value3 my friend"}',
  ]);
  assert.deepEqual(await readCsv("a,b,c,d,e,f\n1_000,0x1p-2,infinity,NaN,-Inf,1e400\n"), [
    '{a:1000.,b:0.25,c:+Inf,d:NaN,e:-Inf,f:"1e400"}',
  ]);
  assert.deepEqual(await readCsv("a,b,c,d,e,f\nt,F,TRUE,False,yes,\n"), [
    '{a:true,b:false,c:true,d:false,e:"yes",f:null}',
  ]);
  // Strings are kept as read: this é is e + U+0301, not NFC's U+00E9.
  assert.deepEqual(await readCsv("a\ne\u0301\n"), ['{a:"e\u0301"}']);
  // Each row is typed on its own.
  const vals = await readAll(csvReader("a\n1\nx\n\n2\n"));
  assert.equal(vals.length, 3);
  assert.equal(vals[0].type, vals[2].type);
  assert.notEqual(vals[0].type, vals[1].type);
});

Deno.test("csv reader: lines, spaces and quotes as Go's encoding/csv reads them", async () => {
  assert.deepEqual(await readCsv("a,b\r\n1,2\r\n\r\n3,4\r"), ["{a:1.,b:2.}", "{a:3.,b:4.}"]);
  assert.deepEqual(await readCsv("\n\na,b\n\n1,2"), ["{a:1.,b:2.}"]);
  // Leading space is trimmed, in quotes too; trailing space is kept.
  assert.deepEqual(await readCsv('a,b\n  x , " y "\n'), ['{a:"x ",b:"y "}']);
  assert.deepEqual(await readCsv('a,b\n\u00a0x,"\u2003"\n'), ['{a:"x",b:null}']);
  // A quoted field may span lines; `""` is a quote.
  assert.deepEqual(await readCsv('a,b\n"1\n2","say ""hi"""\n'), [
    '{a:"1\\n2",b:"say \\"hi\\""}',
  ]);
  // A line of spaces is a record of one empty field.
  assert.deepEqual(await readCsv("a\n  \n"), ["{a:null}"]);
});

Deno.test("csv reader: errors", async () => {
  assert.deepEqual(await readCsv(""), ["error: empty csv file"]);
  assert.deepEqual(await readCsv("a,b\n"), ["error: empty csv file"]);
  assert.deepEqual(await readCsv("a,b\n\n"), ["error: empty csv file"]);
  assert.deepEqual(await readCsv("a,a\n"), ["error: empty csv file"]);
  assert.deepEqual(await readCsv("a,a\n1,2\n"), ['error: duplicate field: "a"']);
  // The reference reports the least duplicated name.
  assert.deepEqual(await readCsv("b,a,b,a\n1,2,3,4\n"), ['error: duplicate field: "a"']);
  assert.deepEqual(await readCsv("a,b\n1,2\n\n3\n"), [
    "{a:1.,b:2.}",
    "error: record on line 4: wrong number of fields",
  ]);
  assert.deepEqual(await readCsv("a,b\n1,2,3\n"), [
    "error: record on line 2: wrong number of fields",
  ]);
  // Quotes left after the repair pass: a quoted last field with no newline
  // after it keeps its closing quote. Columns count bytes: é is two.
  assert.deepEqual(await readCsv('a,b\né,"x"'), [
    'error: parse error on line 2, column 5: bare " in non-quoted-field',
  ]);
  assert.deepEqual(await readCsv('a,b\n"x","y"'), [
    'error: parse error on line 2, column 6: bare " in non-quoted-field',
  ]);
  assert.deepEqual(await readCsv('a,b\n"x\ny",z"""w'), [
    'error: record on line 2; parse error on line 3, column 5: bare " in non-quoted-field',
  ]);
  assert.deepEqual(await readCsv('a,b\n1,"""x'), [
    'error: parse error on line 2, column 4: extraneous or missing " in quoted-field',
  ]);
  // An unterminated quote at the end loses its quote, so its newline splits the record.
  assert.deepEqual(await readCsv('a,b\n1,"x\ny'), [
    '{a:1.,b:"x"}',
    "error: record on line 3: wrong number of fields",
  ]);
});

Deno.test("csv reader: the quote repair pre-pass (the reference's unit test)", () => {
  const input = `
,,
"","",""
"""","""",""""
field1,"field"2,field"3" my friend
field4,"field"5 with "multiple" quotes "to" escape,field6
""",""",""" has a couple "" embedded quotes and a , comma",""" """
x,"hello,
"" world , " foo,y`;
  const expected = `
,,
"","",""
"""","""",""""
field1,"field2","field3 my friend"
field4,"field5 with multiple quotes to escape",field6
""",""",""" has a couple "" embedded quotes and a , comma",""" """
x,"hello,
"" world ,  foo",y`;
  const out: string[] = [];
  assert.equal(repairQuotes(input, 0, true, out), input.length);
  assert.equal(out.join(""), expected);
  // Without the end of the input, it stops before an incomplete field.
  const part: string[] = [];
  assert.equal(repairQuotes('a,"b",c"d', 0, false, part), 6);
  assert.equal(part.join(""), 'a,"b",');
  // A `\r` before the terminator moves out of the quotes, turning a comma into `\r\n`.
  const cr: string[] = [];
  repairQuotes('"a"\r,b', 0, true, cr);
  assert.equal(cr.join(""), '"a"\r\nb');
});

Deno.test("csv reader: chunked input reads the same as whole input", async () => {
  const texts = [
    'a,b,c\n1,"x\ny",é\n"q""q",  t,\r\n\n4,5,6',
    'h\n"' + "long field ".repeat(300) + '\nmore"\n2\n',
    "a,b\n" + "1,2\n".repeat(50) + "3\n",
    'a,b\n"x" y,"p"q\n',
  ];
  for (const t of texts) {
    const whole = await readCsv(t);
    for (const [size, min] of [[1, 1], [2, 3], [7, 4], [64, 16]]) {
      assert.deepEqual(await readCsv(t, size, min), whole, `${JSON.stringify(t)} ${size}`);
    }
  }
  // Many records over tiny chunks arrive in order, in batches.
  let text = "n,s\n";
  for (let i = 0; i < 3000; i++) text += `${i},"v${i}"\n`;
  const vals = await readAll(csvReader(text, 13, 8));
  assert.equal(vals.length, 3000);
  assert.equal(formatZson(vals[2999].type, vals[2999].body), '{n:2999.,s:"v2999"}');
});

Deno.test("csv detection (formats.md §8)", () => {
  assert.deepEqual(detectCsv("a,b", true), { ok: false, error: "line 1: EOF" });
  assert.deepEqual(detectCsv("a,b", false), { ok: "more" });
  assert.deepEqual(detectCsv("", true), { ok: false, error: "line 1: EOF" });
  assert.deepEqual(detectCsv("Garbage!\n", true), { ok: false, error: "line 1: no comma found" });
  assert.deepEqual(detectCsv("ab\nc,d\n", true), { ok: false, error: "line 1: no comma found" });
  assert.deepEqual(detectCsv("a,b\n", true), { ok: false, error: "empty csv file" });
  assert.deepEqual(detectCsv("a,b\n1,2\n", true), { ok: true });
  assert.deepEqual(detectCsv("a,b\n1,2\n3", false), { ok: true });
  assert.deepEqual(detectCsv("a,b\n1,", false), { ok: "more" });
  assert.deepEqual(detectCsv('a,b\n1,"x\n', false), { ok: "more" });
  assert.deepEqual(detectCsv("a,b\n1\n", true), {
    ok: false,
    error: "record on line 2: wrong number of fields",
  });
  assert.deepEqual(detectCsv("a,a\n1,2\n", true), { ok: false, error: 'duplicate field: "a"' });
});
