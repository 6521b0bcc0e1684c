// Fuzzing the input decoders: valid bodies of each format (written by loch's
// own writers from a sample of every kind of Zed value), mutated (bits
// flipped, bytes set, cut short, random or troublesome bytes inserted, slices
// repeated), then decoded to the end. Every case must end, and an error must
// be a format error (a LochError of kind "invalid", a 400), never anything
// else (a TypeError or RangeError would be a 500, a hang a frozen worker).
// Shared by the suite's bounded run (fuzz_test.ts) and the long run
// (bench/fuzz.ts).

import { LochError, messageOf } from "../../lib/errors.ts";
import { openReader } from "../../lib/formats/detect.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { encodeAs } from "../formats/encode_helpers.ts";
import { concatBytes, rng } from "../formats/zng_helpers.ts";

/** Input formats fuzzed, each with the writer that makes its valid bodies. */
export const FUZZED: Record<
  string,
  { writer: string; records: "any" | "flat" | "uniform"; read?: string; compress?: boolean }
> = {
  zng: { writer: "zng", records: "any" },
  "zng-uncompressed": { writer: "zng", records: "any", read: "zng", compress: false },
  zson: { writer: "zson", records: "any" },
  zjson: { writer: "zjson", records: "any" },
  json: { writer: "json", records: "any" },
  csv: { writer: "csv", records: "flat" },
  zeek: { writer: "zeek", records: "flat" },
  parquet: { writer: "parquet", records: "uniform" },
  line: { writer: "zson", records: "any" },
  // Detection over every format's bodies.
  auto: { writer: "zng", records: "any" },
};

const ANY = [
  '{a:1,s:"str",f:1.5,b:true,n:null,t:2024-03-24T17:00:00.123Z,d:3m2s,ip:10.0.0.1,net:10.0.0.0/8}',
  '{arr:[1,2,3],set:|["x","y"]|,map:|{"k":1,"l":2}|,rec:{x:{y:"deep"}},u:1((int64,string)),by:0x0102ff}',
  '{e:error("bad"),nested:[[1],[2,3]],empty:[],s:"quote\\" and \\\\ back",uni:"é€😀"}',
  '{a:2,s:"again",f:-0.,b:false,n:null,t:1970-01-01T00:00:00Z,d:-1ns,ip:::1,net:::/0}',
  "1",
  '"a bare string"',
  "[1,2]",
  "{x:1}(=named)",
];
const FLAT = [
  '{a:1,s:"str",f:1.5,b:true,t:2024-03-24T17:00:00.123Z,ip:10.0.0.1}',
  '{a:2,s:"with,comma and \\"quote\\"",f:-2.25,b:false,t:2024-03-24T17:00:01Z,ip:10.0.0.2}',
  '{a:3,s:"tab\\tand newline\\n",f:0.,b:true,t:2024-03-24T17:00:02Z,ip:10.0.0.3}',
];
const UNIFORM = Array.from(
  { length: 40 },
  (_, i) =>
    `{a:${i},s:"s${i % 7}",f:${i}.5,b:${i % 2 === 0},arr:[${i},${i + 1}],r:{x:${i},y:"y${i}"},` +
    `t:2024-03-24T17:00:0${i % 10}Z,ip:10.0.0.${i},by:0x0${i % 10}}`,
);

/** A valid body of the format. */
export async function validBody(format: string): Promise<Uint8Array> {
  const spec = FUZZED[format];
  const lines = spec.records === "any" ? ANY : spec.records === "flat" ? FLAT : UNIFORM;
  return await encodeAs(spec.writer, lines.join("\n"), {
    pretty: 0,
    zngCompress: spec.compress,
  });
}

/** Bytes that trouble text decoders. */
const TROUBLE = [..."{}[]()|,:;\"'\\\n\r\t\0 -+.eE0189xn#@%"].map((c) => c.charCodeAt(0))
  .concat([0x80, 0xbf, 0xc0, 0xe2, 0xf0, 0xff, 0x1f, 0x8b]);

/** A deterministic generator of mutations. */
export class Mutator {
  private next: () => number;

  constructor(seed: number) {
    this.next = rng(seed);
  }

  private int(n: number): number {
    return Math.floor(this.next() * n);
  }

  mutate(body: Uint8Array): Uint8Array {
    let b: Uint8Array = body.slice();
    const edits = 1 + this.int(4);
    for (let e = 0; e < edits && b.length > 0; e++) {
      const at = this.int(b.length);
      switch (this.int(6)) {
        case 0:
          b[at] ^= 1 << this.int(8);
          break;
        case 1:
          b[at] = this.int(256);
          break;
        case 2:
          b = b.subarray(0, at).slice();
          break;
        case 3: {
          const ins = Uint8Array.from(
            { length: 1 + this.int(8) },
            () => TROUBLE[this.int(TROUBLE.length)],
          );
          b = concatBytes([b.subarray(0, at), ins, b.subarray(at)]);
          break;
        }
        case 4: {
          const len = 1 + this.int(Math.min(64, b.length - at));
          b = concatBytes([
            b.subarray(0, at + len),
            b.subarray(at, at + len),
            b.subarray(at + len),
          ]);
          break;
        }
        default:
          b[at] = TROUBLE[this.int(TROUBLE.length)];
      }
    }
    return b;
  }
}

export interface FuzzResult {
  format: string;
  cases: number;
  /** Cases decoded to the end without error. */
  decoded: number;
  /** Errors other than a format error: "case N: message". */
  faults: string[];
  /** The slowest case, in ms. */
  slowestMs: number;
}

/** Decodes count mutations of a valid body of the format. */
export async function fuzzFormat(format: string, seed: number, count: number): Promise<FuzzResult> {
  const body = await validBody(format);
  const m = new Mutator(seed);
  const res: FuzzResult = { format, cases: 0, decoded: 0, faults: [], slowestMs: 0 };
  const readAs = FUZZED[format].read ?? format;
  for (let i = 0; i < count; i++) {
    const bytes = m.mutate(body);
    const t0 = performance.now();
    try {
      const r = await openReader(ByteInput.fromBytes(bytes), readAs);
      while ((await r.read()) !== null) {
        // decode everything
      }
      res.decoded++;
    } catch (e) {
      if (!(e instanceof LochError && e.kind === "invalid")) {
        const kind = e instanceof LochError ? e.kind : (e as Error)?.name;
        res.faults.push(`case ${i} (${kind}): ${messageOf(e).slice(0, 200)}`);
      }
    }
    res.slowestMs = Math.max(res.slowestMs, performance.now() - t0);
    res.cases++;
  }
  return res;
}
