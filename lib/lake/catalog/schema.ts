// The catalog schema, as versioned migrations. A lake opened by an older
// loch is migrated forward in one transaction; a lake from a newer loch is
// refused rather than misread.

/** Each entry upgrades the schema from its index to index + 1. */
export const migrations: string[] = [
  // 0 → 1: pools, branches, commits and their actions, data objects and
  // their seek indexes, index rules and index objects.
  `
  CREATE TABLE pools (
    id BLOB PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    ts INTEGER NOT NULL,
    layout_order TEXT NOT NULL,
    layout_keys TEXT,
    seek_stride INTEGER NOT NULL,
    threshold INTEGER NOT NULL
  );
  CREATE TABLE branches (
    pool_id BLOB NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    ts INTEGER NOT NULL,
    commit_id BLOB NOT NULL,
    PRIMARY KEY (pool_id, name)
  );
  CREATE TABLE commits (
    id BLOB PRIMARY KEY,
    pool_id BLOB NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
    parent BLOB NOT NULL,
    retries INTEGER NOT NULL,
    author TEXT NOT NULL,
    date INTEGER NOT NULL,
    message TEXT NOT NULL,
    meta TEXT
  );
  CREATE INDEX commits_pool ON commits(pool_id);
  -- The actions of a commit in order: add/delete of data objects, add/delete
  -- of index objects (object_id + rule_id).
  CREATE TABLE actions (
    commit_id BLOB NOT NULL REFERENCES commits(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    object_id BLOB NOT NULL,
    rule_id BLOB,
    PRIMARY KEY (commit_id, seq)
  );
  -- Immutable data objects. first/last are the pool-key values (ZSON) of the
  -- object's first and last records; key_lo/key_hi the least and greatest
  -- non-null keys (for pruning; key_mixed when they differ in type); vector
  -- is reserved for a columnar companion of the object.
  CREATE TABLE objects (
    id BLOB PRIMARY KEY,
    pool_id BLOB NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
    first TEXT NOT NULL,
    last TEXT NOT NULL,
    key_lo TEXT,
    key_hi TEXT,
    key_mixed INTEGER NOT NULL,
    count INTEGER NOT NULL,
    size INTEGER NOT NULL,
    vector TEXT
  );
  CREATE INDEX objects_pool ON objects(pool_id);
  -- Seek index: at each ZNG stream boundary, the key there, the records before
  -- it and the stream's byte offset.
  CREATE TABLE seek_index (
    object_id BLOB NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    key TEXT NOT NULL,
    count INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    PRIMARY KEY (object_id, seq)
  );
  -- The data objects of each branch tip, kept with the branch so reading a
  -- tip costs O(objects), not a replay of its history.
  CREATE TABLE tip_objects (
    pool_id BLOB NOT NULL,
    branch TEXT NOT NULL,
    object_id BLOB NOT NULL,
    PRIMARY KEY (pool_id, branch, object_id),
    FOREIGN KEY (pool_id, branch) REFERENCES branches(pool_id, name) ON DELETE CASCADE
  );
  CREATE TABLE tip_indexes (
    pool_id BLOB NOT NULL,
    branch TEXT NOT NULL,
    rule_id BLOB NOT NULL,
    object_id BLOB NOT NULL,
    PRIMARY KEY (pool_id, branch, rule_id, object_id),
    FOREIGN KEY (pool_id, branch) REFERENCES branches(pool_id, name) ON DELETE CASCADE
  );
  CREATE TABLE index_rules (
    id BLOB PRIMARY KEY,
    ts INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    spec TEXT NOT NULL
  );
  CREATE TABLE index_objects (
    pool_id BLOB NOT NULL REFERENCES pools(id) ON DELETE CASCADE,
    rule_id BLOB NOT NULL,
    object_id BLOB NOT NULL,
    size INTEGER NOT NULL,
    PRIMARY KEY (pool_id, rule_id, object_id)
  );
  `,
  // 1 → 2: finding the commit that added an object (merge provenance).
  `
  CREATE INDEX actions_object ON actions(object_id);
  `,
  // 2 → 3: dropped index rules are kept (their index objects still refer to them).
  `
  ALTER TABLE index_rules ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
  `,
  // 3 → 4: the total size of an object's value bodies (QueryStats' bytes); the
  // vector column now holds the manifest of the object's Arrow columns (JSON).
  `
  ALTER TABLE objects ADD COLUMN bytes INTEGER;
  `,
];

export const SCHEMA_VERSION = migrations.length;

/**
 * A migration in PostgreSQL's dialect. The migrations are written for
 * SQLite; the few differences are in types: bytes are BYTEA, integers
 * BIGINT (SQLite's are 64-bit), text compares byte by byte as in SQLite
 * (COLLATE "C", not the database's locale), `offset` is a reserved word, and
 * commits keep the order they were written in a `rowid` of their own
 * (SQLite's implicit one, which the lake orders commits by).
 */
export function postgresMigration(sql: string): string {
  return sql
    .replace(/\bBLOB\b/g, "BYTEA")
    .replace(/\bINTEGER\b/g, "BIGINT")
    .replace(/\bTEXT\b/g, 'TEXT COLLATE "C"')
    .replace(/^(\s*)offset\b/gm, '$1"offset"')
    .replace(/CREATE TABLE commits \(\n/, "CREATE TABLE commits (\n    rowid BIGSERIAL,\n");
}
