// The catalog's migrations in PostgreSQL's dialect (catalog/schema.ts).

import assert from "node:assert/strict";
import { migrations, postgresMigration } from "../../lib/lake/catalog/schema.ts";

Deno.test("catalog schema: migrations translate to PostgreSQL's types and words", () => {
  const pg = migrations.map(postgresMigration);
  const all = pg.join("\n");
  assert.doesNotMatch(all, /\bBLOB\b|\bINTEGER\b/);
  assert.match(all, /id BYTEA PRIMARY KEY/);
  assert.match(all, /ts BIGINT NOT NULL/);
  assert.match(all, /"offset" BIGINT NOT NULL/);
  assert.match(all, /name TEXT COLLATE "C" NOT NULL UNIQUE/);
  assert.match(all, /CREATE TABLE commits \(\n {4}rowid BIGSERIAL,\n {4}id BYTEA PRIMARY KEY/);
  assert.match(pg[2], /ALTER TABLE index_rules ADD COLUMN dropped BIGINT NOT NULL DEFAULT 0/);
  // Nothing else changes.
  assert.equal(pg[1], migrations[1]);
});
