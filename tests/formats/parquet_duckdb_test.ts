// Parquet that other readers open: what loch writes, read back by DuckDB
// (a test-only dependency), for every Zed type Parquet can hold. Before,
// DuckDB refused any file with an integer column (TProtocolException).

import assert from "node:assert/strict";
import { DuckDBInstance } from "@duckdb/node-api";
import { encodeAs } from "./encode_helpers.ts";
import { ROWS } from "../fixtures/parquet_types.ts";

Deno.test("parquet: DuckDB reads what loch writes, every type, values and nulls", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/all.parquet`;
    await Deno.writeFile(file, await encodeAs("parquet", ROWS.join("\n")));
    const db = await DuckDBInstance.create(":memory:");
    const c = await db.connect();
    const r = await c.runAndReadAll(
      `SELECT i8, i16, i32, i64, u8, u16, u32, u64::VARCHAR AS u64, f32, f64, b, s, "by", ` +
        `epoch_ns(t) AS t, d, ip, net, r, arr, st, m FROM read_parquet('${file}')`,
    );
    const rows = r.getRowObjectsJson();
    assert.deepEqual(rows[0], {
      i8: -8,
      i16: -16,
      i32: -32,
      i64: "-64",
      u8: 8,
      u16: 16,
      u32: 32,
      u64: "18446744073709551615",
      f32: 1.5,
      f64: -2.25,
      b: true,
      s: "é€",
      by: "\\x01\\xFF",
      t: "1711299600123456789",
      d: "90000000000",
      ip: "10.0.0.1",
      net: "10.0.0.0/8",
      r: { x: "1", y: "z" },
      arr: ["1", "2"],
      st: ["a", "b"],
      m: [{ key: "k", value: "1" }],
    });
    for (const [k, v] of Object.entries(rows[1])) assert.equal(v, null, k);
    const types = await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
    const byName = Object.fromEntries(
      types.getRowObjectsJson().map((t) => [t.column_name, t.column_type]),
    );
    assert.deepEqual(
      [
        byName.i8,
        byName.i16,
        byName.i32,
        byName.i64,
        byName.u8,
        byName.u16,
        byName.u32,
        byName.u64,
      ],
      ["TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"],
    );
    c.closeSync();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
