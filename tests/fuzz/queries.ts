// Fuzzing queries: seed queries of every kind (operators, expressions,
// functions, aggregates, types, sources without a lake), mutated token by
// token (dropped, doubled, swapped, replaced, nested), compiled and run over
// a small input of many value types. Every case must end, and an error must
// be a LochError (what the service answers with a 4xx or in a QueryError),
// never anything else (a TypeError from inside the engine would be a 500).
// Shared by the suite's bounded run (fuzz_test.ts) and bench/fuzz.ts.

import { LochError, messageOf } from "../../lib/errors.ts";
import { ByteInput, TextInput } from "../../lib/formats/io.ts";
import { ZsonReader } from "../../lib/formats/zson/reader.ts";
import { compileQuery, runQuery } from "../../lib/query/mod.ts";
import type { Batch } from "../../lib/zed/value.ts";
import { rng } from "../formats/zng_helpers.ts";

export const SEEDS = [
  "*",
  "a > 1",
  "count()",
  "count() by s",
  "sum(a), avg(f), min(t), max(d) by b",
  "sort -r a | head 3",
  "sort s, a nulls first | tail 2",
  "cut a, s | put c := a * 2",
  "drop f | rename x := a",
  "yield {a, n: len(s)}",
  "yield [a, a + 1, ...arr]",
  "yield |[a, 1]|",
  "yield |{s: a}|",
  "where s == 'x' or not b",
  "search 'str' | count()",
  "a in [1, 2, 3]",
  "10.0.0.0/8 | count()",
  "ip in 10.0.0.0/8",
  "is(<int64>, a)",
  "typeof(this) == <{a:int64}>",
  "cast(a, <string>)",
  "yield a::string",
  "put t2 := t + 1h | put d2 := d * 2",
  "bucket(t, 1m)",
  "count() by every(1h)",
  "fuse",
  "shape({a: int64, s: string})",
  "over arr | sum(this)",
  "over arr with x = a => ( yield this + x )",
  "yield (over arr | count())",
  "uniq -c",
  "top 2 a",
  "merge a",
  "explode arr by s",
  "join on a = a x := s",
  "switch ( case a > 1 => put big := true case a <= 1 => put big := false )",
  "fork ( => count() => sum(a) )",
  "from ( pass => count() pass => head 1 )",
  "sample s",
  "summarize collect(a), union(s), dcount(s), any(f), and(b), or(b)",
  "yield regexp('s(t)r', s)",
  "yield grep('str', this)",
  "yield split(s, 't'), join(['a', 'b'], ','), upper(s), trim(' x ')",
  "yield replace(s, 's', 'z'), rune_len(s), lower(s)",
  "yield network_of(ip), cidr_match(10.0.0.0/8, ip)",
  "yield parse_uri('http://x/y?z=1'), parse_zson('{x:1}')",
  "yield now() > t, strftime('%Y', t), trunc(t, 1h)",
  "yield abs(f), ceil(f), floor(f), log(a), pow(a, 2), sqrt(a), round(f)",
  "yield has(a), missing(zz), quiet(zz), coalesce(zz, a)",
  "yield error('x'), is_error(error('x')), kind(this), nameof(this)",
  "yield fields(this), flatten(this), unflatten(flatten(this))",
  "yield len(arr), arr[0], arr[1:2], s[0:2], this['s']",
  "yield map(arr, lower), under(a)",
  "type port = uint16 yield cast(a, <port>)",
  "const x = 3 yield a + x",
  "func f(x): (x + 1) yield f(a)",
  "a == 1 ? 'one' : 'other'",
  "yield a / 0, a % 0, -a, !b",
  "yield 0x0102, 1e300 * 1e300, 18446744073709551615",
  "select a, count() as n from this group by a",
  "load p",
  "pass | pass | yield this",
  "yield {...this, x: 1}",
  "put this := {}",
  "nest_dotted()",
  "yield b ? a : 0",
];

const INPUT = [
  '{a:1,s:"str",f:1.5,b:true,t:2024-03-24T17:00:00Z,d:1m,ip:10.0.0.1,arr:[1,2,3],n:null}',
  '{a:2,s:"x",f:-0.5,b:false,t:2024-03-24T18:00:00Z,d:-3s,ip:::1,arr:[],n:null}',
  '{a:3,s:"",f:0.,b:null,t:null,d:null,ip:null,arr:null,n:null}',
  '{a:-9223372036854775808,s:"é€😀",f:NaN,b:true,t:1970-01-01T00:00:00Z,d:0s,ip:255.255.255.255,arr:[4],n:null}',
  '{x:{y:{z:"deep"}},arr:["a","b"],u:1((int64,string)),e:error("bad")}',
  "1",
  '"bare"',
  "null",
].join("\n");

const TOKEN =
  /'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[A-Za-z_][\w.]*|\d[\w.:/]*|==|!=|<=|>=|:=|=>|::|\.\.\.|\S/g;

const REPLACEMENTS = [
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  "|",
  "|[",
  "]|",
  ",",
  ":",
  "=>",
  ":=",
  "...",
  "?",
  "!",
  "-",
  "+",
  "*",
  "/",
  "%",
  "==",
  "<",
  "and",
  "or",
  "not",
  "in",
  "this",
  "null",
  "by",
  "as",
  "yield",
  "put",
  "cut",
  "sort",
  "head",
  "over",
  "with",
  "count()",
  "1",
  "0",
  "-1",
  "1.5",
  "'s'",
  '"x"',
  "<int64>",
  "<{a:int64}>",
  "1h",
  "10.0.0.1",
  "a",
  "s",
  "arr",
  "f",
  "t",
  "1e999",
  "0x",
  "`",
  "\\",
  "\u0000",
  "é",
  "from",
  "pass",
  "fork",
  "switch",
  "case",
];

export class QueryMutator {
  private next: () => number;

  constructor(seed: number) {
    this.next = rng(seed);
  }

  private int(n: number): number {
    return Math.floor(this.next() * n);
  }

  mutate(): string {
    let toks = (SEEDS[this.int(SEEDS.length)].match(TOKEN) ?? []).slice();
    const edits = 1 + this.int(3);
    for (let e = 0; e < edits; e++) {
      const at = this.int(toks.length + 1);
      switch (this.int(7)) {
        case 0:
          toks.splice(at, 1);
          break;
        case 1:
          if (at < toks.length) toks.splice(at, 0, toks[at]);
          break;
        case 2: {
          const b = this.int(toks.length);
          if (at < toks.length) [toks[at], toks[b]] = [toks[b], toks[at]];
          break;
        }
        case 3:
          toks.splice(at, 1, REPLACEMENTS[this.int(REPLACEMENTS.length)]);
          break;
        case 4:
          toks.splice(at, 0, REPLACEMENTS[this.int(REPLACEMENTS.length)]);
          break;
        case 5:
          toks = [...toks, "|", ...(SEEDS[this.int(SEEDS.length)].match(TOKEN) ?? [])];
          break;
        default: {
          const depth = 1 + this.int(40);
          toks = ["(".repeat(depth), ...toks.slice(0, at), ")".repeat(depth), ...toks.slice(at)];
        }
      }
    }
    return toks.join(" ");
  }
}

export interface QueryFuzzResult {
  cases: number;
  /** Cases that ran without error. */
  ran: number;
  faults: string[];
  slowestMs: number;
}

/** Compiles and runs count mutated queries over the input. */
export async function fuzzQueries(seed: number, count: number): Promise<QueryFuzzResult> {
  const m = new QueryMutator(seed);
  const res: QueryFuzzResult = { cases: 0, ran: 0, faults: [], slowestMs: 0 };
  const sink = { write: (_b: Batch) => Promise.resolve(), end: () => Promise.resolve() };
  for (let i = 0; i < count; i++) {
    const text = m.mutate();
    const t0 = performance.now();
    try {
      const q = compileQuery(text);
      const input = new ZsonReader(
        new TextInput(ByteInput.fromBytes(new TextEncoder().encode(INPUT))),
      );
      // Queries with sources of their own (files, pools) are not run here.
      if ((q.sources ?? []).length === 0) {
        await runQuery(q, [input], sink);
        res.ran++;
      }
    } catch (e) {
      if (!(e instanceof LochError)) {
        res.faults.push(
          `${JSON.stringify(text)}: ${(e as Error)?.name}: ${messageOf(e).slice(0, 160)}`,
        );
      }
    }
    res.slowestMs = Math.max(res.slowestMs, performance.now() - t0);
    res.cases++;
  }
  return res;
}
