// The columns written with every data object: an Arrow IPC file any Arrow
// reader opens, whose values (read back as vectors) are the objects' field
// values, the same for a big load as built directly, and made again when
// lost or missing.

import assert from "node:assert/strict";
import { tableFromIPC } from "apache-arrow";
import { parseZsonValue } from "../../lib/formats/zson/reader.ts";
import { formatZson } from "../../lib/formats/zson/formatter.ts";
import { buildColumns, ColumnsBuilder } from "../../lib/lake/columns/build.ts";
import { encodeColumns } from "../../lib/lake/columns/arrowfile.ts";
import { writes } from "../../lib/lake/columns/write.ts";
import { concatBytes } from "../formats/zng_helpers.ts";
import { ObjectColumnsInfo } from "../../lib/lake/columns/manifest.ts";
import { ObjectColumns } from "../../lib/lake/columns/reader.ts";
import { permuteColumns } from "../../lib/lake/columns/permute.ts";
import {
  clearColumnCache,
  columnCache,
  DEFAULT_COLUMN_CACHE,
  openColumns,
  setColumnCacheBudget,
  upgradeColumns,
  valuesFromColumns,
} from "../../lib/lake/columns/mod.ts";
import type { RecordType } from "../../lib/zed/types.ts";
import type { Body, Value } from "../../lib/zed/value.ts";
import { LocalStorage } from "../../lib/lake/storage.ts";
import { SortBuffer } from "../../lib/lake/sortbuffer.ts";
import { setUseColumns, useColumns } from "../../lib/lake/sources.ts";
import { PoolKey } from "../../lib/lake/poolkey.ts";
import { tipObjects } from "../../lib/lake/objects.ts";
import { compileFieldPath } from "../../lib/query/expr/access.ts";
import { NULL_ROW, VALUE } from "../../lib/zed/vector.ts";
import { keyedPool, lines, loadText, range, records, withDir, withLake } from "./helpers.ts";
import type { Lake } from "../../lib/lake/lake.ts";

/** Values of many shapes: every primitive, nesting, lists, nulls, named and other types. */
const SAMPLES = [
  '{ts:1,s:"a",i8:1(int8),u16:7(uint16),i32:-5(int32),u32:9(uint32),f32:1.5(float32)}',
  '{ts:2,s:"ü€",t:2024-01-01T00:00:00Z,d:1h,b:true,by:0x0102,ip:10.0.0.1,ip6:::1,n:null}',
  '{ts:3,s:"a",u:18446744073709551615(uint64),big:-9007199254740993,f:-0.,nan:NaN}',
  '{ts:4,r:{a:1,b:{c:"x"}},l:[1,2,3],st:|["x","y"]|,e:[]([int64]),ln:null([int64])}',
  "{ts:5,r:null({a:int64,b:{c:string}}),l:[null,4],port:80(port=uint16)}",
  '{ts:6,m:|{1:"a"}|,un:1((int64,string)),net:10.0.0.0/8,ty:<int64>,err:error("x")}',
  "{ts:7,s:null(string),ip:null(ip),arr:[{a:1}],nested:[[1]]}",
  '{ts:8,mixed:[1,"a"],ip:10.1.2.3,ip6:2001:db8::1}',
  "42",
  '"just a string"',
];

function bufferOf(texts: string[]): SortBuffer {
  const key = new PoolKey(["ts"], "asc");
  const buf = new SortBuffer();
  for (const t of texts) {
    const v = parseZsonValue(t);
    buf.add(v, key.keyOf(v));
  }
  return buf;
}

/** The columns of values written to a file and opened again, with the values in object order. */
async function readBack(texts: string[], dir: string) {
  const buf = bufferOf(texts);
  const order = buf.order(new PoolKey(["ts"], "asc"));
  const built = buildColumns(buf.encoded(), order);
  const { pieces, manifest } = await encodeColumns(built);
  const bytes = concatBytes([...writes(pieces)]);
  assert.equal(bytes.length, manifest.size);
  const path = `${dir}/c.arrow`;
  await Deno.writeFile(path, bytes);
  const cols = new ObjectColumns(
    "t" + Math.random(),
    new ObjectColumnsInfo(manifest),
    new LocalStorage(),
    path,
  );
  const values = [...order].map((i) => parseZsonValue(texts[i]));
  return { cols, values, bytes, manifest, built };
}

Deno.test("columns hold every leaf value of the objects' records, and say which rows lack one", async () => {
  await withDir(async (dir) => {
    const { cols, values } = await readBack(SAMPLES, dir);
    let checked = 0;
    for (const c of cols.columns()) {
      const vec = await cols.vector(c);
      const get = compileFieldPath(c.path as string[]);
      for (let i = 0; i < values.length; i++) {
        const f = get(values[i]);
        if (f.type !== c.type) {
          assert.notEqual(vec.state[i], VALUE, `${c.path} row ${i}: no value of this type`);
          continue;
        }
        if (f.body === null) {
          assert.equal(vec.state[i], NULL_ROW, `${c.path} row ${i}: null`);
          continue;
        }
        assert.equal(vec.state[i], VALUE, `${c.path} row ${i}`);
        assert.equal(formatZson(c.type, vec.body(i)), formatZson(f.type, f.body), `${c.path} ${i}`);
        checked++;
      }
    }
    assert.ok(checked >= 30, `${checked} values checked`);
  });
});

Deno.test("types columns cannot hold are incomplete; the rest of their fields still have columns", async () => {
  await withDir(async (dir) => {
    const { cols } = await readBack(SAMPLES, dir);
    const complete = (text: string) => {
      const t = parseZsonValue(text).type;
      const k = cols.types.indexOf(t);
      assert.ok(k >= 0, text);
      return cols.complete[k];
    };
    assert.equal(complete(SAMPLES[0]), true);
    assert.equal(complete(SAMPLES[3]), true);
    assert.equal(complete(SAMPLES[4]), false, "a null nested record");
    assert.equal(complete(SAMPLES[5]), false, "a map, union, net, type value, error");
    assert.equal(complete(SAMPLES[6]), false, "records inside arrays, nested arrays");
    assert.equal(complete(SAMPLES[7]), false, "an array of a union");
    assert.equal(complete("42"), false);
    // The ts of the incomplete types are still in the ts column.
    const ts = cols.columnsOf(["ts"]);
    assert.equal(ts.length, 1);
    assert.equal(ts[0].covers.length, 8);
  });
});

Deno.test("the columns file is Arrow that apache-arrow reads: fields by path, Zed types in metadata", async () => {
  await withDir(async (dir) => {
    const { bytes, manifest } = await readBack(SAMPLES.slice(0, 4), dir);
    const table = tableFromIPC(bytes);
    assert.equal(table.numRows, 4);
    const names = table.schema.fields.map((f) => f.name);
    for (const n of ["zed.type_index", "zed.size", "zed.prefix", "ts", "s", "r.b.c", "l"]) {
      assert.ok(names.includes(n), `${n} in ${names}`);
    }
    const s = table.schema.fields.find((f) => f.name === "r.b.c")!;
    assert.equal(s.metadata.get("zed.path"), JSON.stringify(["r", "b", "c"]));
    assert.equal(s.metadata.get("zed.type"), "string");
    assert.deepEqual(
      JSON.parse(table.schema.metadata.get("zed.types")!),
      manifest.types,
    );
    // Values as Arrow sees them.
    assert.deepEqual(table.getChild("i32")!.toArray()[0], -5);
    assert.equal(table.getChild("s")!.get(0), "a");
    assert.equal(table.getChild("s")!.get(1), "ü€");
    assert.equal(String(table.getChild("t")!.get(1)), String(Date.UTC(2024, 0, 1)));
  });
});

Deno.test("low-cardinality columns are dictionaries; unique ones are not", async () => {
  await withDir(async (dir) => {
    const texts: string[] = [];
    for (let i = 0; i < 5000; i++) {
      texts.push(`{ts:${i},path:"p${i % 3}",id:"u${i}",port:${i % 5}}`);
    }
    const { manifest, cols } = await readBack(texts, dir);
    const enc = (p: string) => manifest.columns.find((c) => c.path[0] === p)!;
    assert.ok(enc("path").dict !== undefined);
    assert.ok(enc("port").dict !== undefined);
    assert.equal(enc("id").dict, undefined);
    assert.equal(enc("ts").dict, undefined);
    const v = await cols.vector(cols.columnsOf(["path"])[0]);
    assert.equal(v.body(4), "p1");
  });
});

Deno.test("columns built as values arrive, then put in order, are those built in order", async () => {
  const texts: string[] = [];
  for (let i = 0; i < 300; i++) {
    texts.push(
      i % 7 === 0
        ? `{ts:${(i * 37) % 300},a:[${i},${i + 1}],s:"x${i % 4}"}`
        : `{ts:${(i * 37) % 300},s:"y${i}",f:${i / 3},r:{b:${i % 2 === 0}}}`,
    );
  }
  const buf = bufferOf(texts);
  const order = buf.order(new PoolKey(["ts"], "asc"));
  const direct = buildColumns(buf.encoded(), order);
  const b = new ColumnsBuilder(16);
  b.add(buf.encoded(), null, 0, 100);
  b.add(buf.encoded(), null, 100, 300);
  const permuted = permuteColumns(b.finish(), order);
  assert.deepEqual(
    (await encodeColumns(permuted)).manifest,
    (await encodeColumns(direct)).manifest,
  );
  assert.deepEqual(permuted.columns, direct.columns);
  assert.deepEqual(permuted.sizes, direct.sizes);
  assert.deepEqual(permuted.prefixes, direct.prefixes);
});

Deno.test("a big load (several buffer chunks) writes the columns built directly from its values", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "big", "ts");
    const rows: string[] = [];
    // Past the sort buffer's first chunks (4 MB of values).
    for (let i = 0; i < 30000; i++) {
      rows.push(`{ts:${i},s:"${"v".repeat(200)}${i % 10}",n:${i},tag:"t${i % 4}"}`);
    }
    const r = await loadText(lake, p, rows.join("\n"));
    const o = r.objects[0];
    assert.ok(o.bytes > 4 << 20);
    const buf = bufferOf(rows);
    const built = buildColumns(buf.encoded(), buf.order(new PoolKey(["ts"], "asc")));
    const direct = await encodeColumns(built);
    assert.deepEqual(
      o.columns!.columns.map((c) => [c.path, c.type, c.enc, c.dict?.length]),
      direct.manifest.columns.map((c) => [c.path, c.type, c.enc, c.dict?.length]),
    );
    const size = direct.pieces.reduce((n, p) => n + p.length, 0);
    assert.equal(o.columns!.size, size);
    // Columns written piece by piece: the big ones as they are, not copied into one buffer.
    const n = built.columns.find((c) => c.path[0] === "n")!.column.values!;
    assert.ok(direct.pieces.some((p) => p.buffer === n.buffer), "a column's array is a piece");
    const file = tipObjects(lake.catalog, p.id, "main")[0];
    assert.equal((await lake.storage.stat(lake.objectPaths(p.id, file.id).columns))?.size, size);
    assert.deepEqual(await lines(lake, 'from big | tag=="t1" | count()'), ["{count:7500(uint64)}"]);
  });
});

Deno.test("a columns file's pieces are written in order: big ones as they are, small ones gathered", () => {
  const piece = (n: number, fill: number) => new Uint8Array(n).fill(fill);
  const big = piece(200 << 10, 9);
  const pieces = [piece(8, 1), piece(4, 2), big, piece(3, 3)];
  for (let k = 0; k < 40; k++) pieces.push(piece(40 << 10, 10 + k));
  pieces.push(piece(5, 99));
  const out = [...writes(pieces)];
  assert.deepEqual(concatBytes(out), concatBytes(pieces));
  assert.ok(out.includes(big), "a big piece is written as it is");
  assert.deepEqual(out.slice(0, 2).map((w) => w.length), [12, big.length]);
  for (const w of out) assert.ok(w.length <= 1 << 20);
  assert.ok(out.length < 8, `${out.length} writes for ${pieces.length} pieces`);
});

Deno.test("a lost columns file is noticed and made again; queries do not change", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    const r = await loadText(lake, p, '{ts:1,a:"x"}\n{ts:2,a:"y"}\n{ts:3,a:"x"}');
    const o = r.objects[0];
    await lake.storage.remove(lake.columnsPath(p.id, o.id));
    const [obj] = tipObjects(lake.catalog, p.id, "main");
    assert.equal(openColumns(lake, p.id, obj), null, "no usable columns");
    assert.deepEqual(await lines(lake, 'from p | a=="x" | count()'), ["{count:2(uint64)}"]);
    // The rewrite runs in the background.
    for (let i = 0; i < 100 && !(await stored(lake, lake.columnsPath(p.id, o.id))); i++) {
      await new Promise((res) => setTimeout(res, 10));
    }
    assert.ok(await stored(lake, lake.columnsPath(p.id, o.id)), "written again");
  });
});

Deno.test("objects of lakes written without columns get them from the upgrade", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    const r = await loadText(lake, p, '{ts:1,a:"x"}\n{ts:2,a:"y"}');
    const o = r.objects[0];
    // As an older loch left it: no manifest, no file.
    lake.catalog.run("UPDATE objects SET vector = NULL WHERE id = ?", o.id);
    await lake.storage.remove(lake.columnsPath(p.id, o.id));
    const progress: string[] = [];
    const n = await upgradeColumns(lake, (u) => progress.push(`${u.pool} ${u.done}/${u.total}`));
    assert.equal(n, 1);
    assert.deepEqual(progress, ["p 1/1"]);
    assert.ok(await stored(lake, lake.columnsPath(p.id, o.id)));
    const row = lake.catalog.get<{ vector: string }>(
      "SELECT vector FROM objects WHERE id = ?",
      o.id,
    );
    assert.ok(row?.vector?.startsWith("{"));
    assert.equal(await upgradeColumns(lake), 0, "once only");
  });
});

async function stored(lake: Lake, path: string): Promise<boolean> {
  return (await lake.storage.stat(path)) !== undefined;
}

Deno.test("the column cache keeps within its budget (LOCH_COLUMN_CACHE) and refuses bad sizes", async () => {
  const q = 'from p | s=="v7" and x > 5 | count()';
  const budget = 200 << 10;
  const using = useColumns();
  setUseColumns(true); // (also when the suite runs with LOCH_COLUMNS=off)
  try {
    await withLake(async (lake) => {
      const p = keyedPool(lake, "p", "ts");
      await loadText(lake, p, records(range(20000), (n) => `{ts:${n},s:"v${n % 100}",x:${n}}`));
      clearColumnCache();
      assert.deepEqual(await lines(lake, q), ["{count:200(uint64)}"]);
      assert.ok(columnCache.bytes > budget, `${columnCache.bytes} held by default`);
      setColumnCacheBudget("200KiB");
      assert.equal(columnCache.budget, budget);
      clearColumnCache();
      assert.deepEqual(await lines(lake, q), ["{count:200(uint64)}"]);
      assert.ok(columnCache.bytes > 0 && columnCache.bytes <= budget, `${columnCache.bytes}`);
    });
    assert.throws(() => setColumnCacheBudget("lots"), /invalid LOCH_COLUMN_CACHE: lots/);
  } finally {
    setColumnCacheBudget(undefined);
    setUseColumns(using);
  }
  assert.equal(columnCache.budget, DEFAULT_COLUMN_CACHE);
});

Deno.test("what is made from a column's data is kept in the column cache, counted, until dropped", async () => {
  await withLake(async (lake) => {
    const p = keyedPool(lake, "p", "ts");
    await loadText(lake, p, records(range(100), (n) => `{ts:${n},s:"v${n % 3}"}`));
    const cols = openColumns(lake, p.id, tipObjects(lake.catalog, p.id, "main")[0])!;
    const [ref] = cols.columnsOf(["s"]);
    clearColumnCache();
    let made = 0;
    const make = () => ({ bytes: 1000, n: ++made });
    const first = cols.fromColumn(ref, "test", make);
    assert.equal(columnCache.bytes, 1000, "its bytes are held");
    assert.equal(cols.fromColumn(ref, "test", make), first, "kept");
    assert.notEqual(cols.fromColumn(ref, "other", make), first, "one per kind");
    assert.equal(made, 2);
    clearColumnCache();
    assert.equal(cols.fromColumn(ref, "test", make).n, 3, "made again once dropped");
  });
});

Deno.test("values made from columns are the values, for the types whose fields columns hold", async () => {
  await withDir(async (dir) => {
    const texts = [
      ...SAMPLES,
      '{ts:9,r:{a:2,b:{c:"y"}},l:[5],st:|["z"]|,e:[]([int64]),ln:[7]}',
      '{ts:10,s:"b",i8:2(int8),u16:8(uint16),i32:6(int32),u32:1(uint32),f32:2.5(float32)}',
    ];
    const { cols, values } = await readBack(texts, dir);
    const rows = values.map((_, i) => i);
    // Rows of incomplete types (a null nested record, maps, unions, ...) cannot be made.
    assert.equal(await valuesFromColumns(cols, rows, null), null);
    const complete = rows.filter((i) => {
      const t = zson(values[i]);
      return /^\{ts:(1|2|3|4|9|10),/.test(t);
    });
    const made = await valuesFromColumns(cols, complete.slice().reverse(), null);
    assert.deepEqual(
      made!.map(zson),
      complete.slice().reverse().map((i) => zson(values[i])),
    );
    // Only some fields: the others are null; incomplete types are fine for plain leaves.
    const picked = [0, 1, 4];
    const some = await valuesFromColumns(cols, picked, new Set(["ts", "s"]));
    some!.forEach((v, n) => {
      const orig = values[picked[n]];
      assert.equal(v.type, orig.type);
      const fields = (v.type as RecordType).fields;
      fields.forEach((f, i) => {
        const want = f.name === "ts" || f.name === "s" ? (orig.body as Body[])[i] : null;
        assert.deepEqual((v.body as Body[])[i], want, `${zson(orig)}: ${f.name}`);
      });
    });
  });
});

function zson(v: Value): string {
  return formatZson(v.type, v.body);
}

Deno.test("a column's first rows read alone are those of the whole column, for every encoding", async () => {
  await withDir(async (dir) => {
    const { cols } = await readBack(SAMPLES, dir);
    for (const ref of cols.columns()) {
      const whole = await cols.vector(ref);
      clearColumnCache();
      for (let n = 1; n < cols.rows; n++) {
        const part = cols.prefixVectorNow(ref, n);
        assert.equal(part.length, n);
        for (let i = 0; i < n; i++) {
          const what = `${ref.path.join(".")} row ${i} of ${n}`;
          assert.equal(part.state[i], whole.state[i], what);
          if (whole.state[i] === VALUE) assert.deepEqual(part.body(i), whole.body(i), what);
        }
        clearColumnCache();
      }
    }
  });
});

Deno.test("a head's first rows of sizes, type indexes and prefixes are read once, then kept", async () => {
  await withDir(async (dir) => {
    // Two record types, so the object has a type index.
    const texts = range(300).map((i) => i % 3 === 0 ? `{ts:${i},a:"x${i}"}` : `{ts:${i},b:${i}}`);
    const { cols } = await readBack(texts, dir);
    let reads = 0;
    const storage = new class extends LocalStorage {
      override readSync(path: string, offset: number, into: Uint8Array): number {
        reads++;
        return super.readSync(path, offset, into);
      }
    }();
    const counted = new ObjectColumns(cols.key, cols.info, storage, `${dir}/c.arrow`);
    const lead = async (n: number) => ({
      sizes: [...(await counted.sizesPrefix(n)).subarray(0, n)],
      types: [...(await counted.typeIndexUpTo(n))!.subarray(0, n)],
      prefixes: [...(await counted.prefixes(n)).subarray(0, n * 8)],
    });
    clearColumnCache();
    const first = await lead(20);
    assert.equal(reads, 3);
    assert.deepEqual(await lead(20), first, "the same rows again");
    assert.deepEqual(await lead(5), { ...first, ...await lead(5) }, "fewer rows");
    assert.equal(reads, 3, "read nothing more");
    const more = await lead(50);
    assert.equal(reads, 6, "more rows are read");
    // What they hold is the whole columns' first rows.
    clearColumnCache();
    const whole = {
      sizes: [...(await cols.sizes()).subarray(0, 50)],
      types: [...(await cols.typeIndex())!.subarray(0, 50)],
      prefixes: [...(await cols.prefixes()).subarray(0, 400)],
    };
    assert.deepEqual(more, whole);
    assert.deepEqual(first.sizes, whole.sizes.slice(0, 20));
  });
});
