// The LakeAPI over a lake service (lake-api.md §16.1): pools are looked up
// with a `from :pools` query and then addressed by id in paths, as the Go
// client does; listings are meta-queries; operations are the service's
// routes. vacuum has no route, so it fails here.
//
// Loads stream their input: a single input goes as its raw bytes (gzip
// included), with the Content-Type of -i or none for the service to detect
// the format; several inputs (each possibly another format) are read here
// and sent as one ZNG stream, as the zed command sends every load.

import type { MergeStrategy } from "../../lake/merge.ts";
import { LochError, messageOf } from "../../errors.ts";
import type { ValueWriter } from "../../formats/io.ts";
import { inputFormat } from "../../formats/registry.ts";
import { formatZson } from "../../formats/zson/formatter.ts";
import { ZngEncoder } from "../../formats/zng/writer.ts";
import { planCompaction } from "../../lake/compact.ts";
import { type KSUID, newKSUID, toBase62, toHex, tryParseID } from "../../lake/ksuid.ts";
import { type CommitRequest, requestMeta } from "../../lake/load.ts";
import { PoolKey } from "../../lake/poolkey.ts";
import type { CreatePool, PoolConfig } from "../../lake/pools.ts";
import { type IndexRule, type RuleSpec, ruleValue } from "../../lake/rules.ts";
import { Kind, typeUnder } from "../../zed/types.ts";
import { type Body, UnionBody, Value } from "../../zed/value.ts";
import {
  Connection,
  formatMediaType,
  jsonBody,
  type RequestOptions,
  segment,
  ServiceError,
  ZNG,
  zsonBody,
} from "../../client/connection.ts";
import { runQuery } from "../../client/query.ts";
import { dataObjectOf, fieldOf, idField, poolConfigOf, stringsField } from "../../client/values.ts";
import {
  type ByteSource,
  type DroppedRule,
  type LakeAPI,
  literal,
  type LoadRequest,
  type LoadResult,
  notOnService,
  type QueryOptions,
  queryValues,
  type TxCommitted,
  type VacuumReport,
} from "./api.ts";
import type { TxRequest } from "../../lake/transaction.ts";
import { sourceReader } from "./inputs.ts";
import { ConcatReader } from "../../formats/io.ts";

const NO_RECORDS = "no records in request";

export class RemoteLake implements LakeAPI {
  readonly remote = true;
  readonly conn: Connection;

  constructor(url: string) {
    this.conn = new Connection(url);
  }

  get location(): string {
    return this.conn.url;
  }

  private path(pool: PoolConfig, ...segments: string[]): string {
    return `/pool/${segment(toBase62(pool.id))}` + segments.map((s) => `/${segment(s)}`).join("");
  }

  /** A request answered with api.CommitResponse; returns the commit. */
  private async commit(path: string, opts: RequestOptions): Promise<KSUID> {
    return commitOf(await this.conn.value("POST", path, opts));
  }

  async createPool(req: CreatePool): Promise<PoolConfig> {
    const layout = req.layout ?? { order: "asc", keys: null };
    const v = await this.conn.value(
      "POST",
      "/pool",
      jsonBody({
        name: req.name,
        layout: { order: layout.order, keys: layout.keys },
        seek_stride: req.seekStride ?? 0,
        thresh: req.threshold ?? 0,
      }),
    );
    const pool = fieldOf(v ?? undefined, "pool");
    if (pool === undefined) throw new LochError("internal", "lake service sent no pool");
    return poolConfigOf(pool);
  }

  async lookupPool(nameOrId: string): Promise<PoolConfig> {
    const id = tryParseID(nameOrId);
    let text = `from :pools | name == ${literal(nameOrId)}`;
    if (id !== undefined) text += ` or id == ${toHex(id)}`;
    const pools = (await queryValues(this, text)).map(poolConfigOf);
    const found = (id === undefined ? undefined : pools.find((p) => sameID(p.id, id))) ??
      pools.find((p) => p.name === nameOrId);
    if (found !== undefined) return found;
    const shown = id !== undefined ? toBase62(id) : nameOrId;
    throw new LochError("not found", `${shown}: pool not found`);
  }

  async renamePool(pool: PoolConfig, name: string): Promise<void> {
    await this.conn.send("PUT", this.path(pool), jsonBody({ name }));
  }

  async dropPool(pool: PoolConfig): Promise<void> {
    await this.conn.send("DELETE", this.path(pool));
  }

  async branchTip(pool: PoolConfig, branch: string): Promise<KSUID> {
    return commitOf(await this.conn.value("GET", this.path(pool, "branch", branch)));
  }

  async checkCommitish(pool: PoolConfig, commitish: string): Promise<void> {
    // The service resolves `pool@x` (a commit id or a branch name) as a query does.
    const from = `${literal(toBase62(pool.id))}@${literal(commitish)}`;
    await queryValues(this, `from ${from}:log | head 1`);
  }

  async createBranch(pool: PoolConfig, name: string, commit: KSUID): Promise<void> {
    await this.conn.value("POST", this.path(pool), jsonBody({ name, commit: toBase62(commit) }));
  }

  async deleteBranch(pool: PoolConfig, name: string): Promise<void> {
    await this.conn.send("DELETE", this.path(pool, "branch", name));
  }

  async load(pool: PoolConfig, branch: string, req: LoadRequest): Promise<LoadResult> {
    requestMeta(req.commit.meta); // bad metadata fails before any data is sent
    const path = this.path(pool, "branch", branch);
    const failure: Failure = {};
    const opts = req.inputs.length === 1
      ? await rawBody(req.inputs[0], req, failure)
      : { body: await zngBody(req, failure), contentType: ZNG };
    let v: Value | null;
    try {
      v = await this.conn.value("POST", path, { ...opts, commit: req.commit });
    } catch (e) {
      // A local read error aborts the upload; it is the error to report.
      if (failure.error !== undefined) throw failure.error;
      // The service's reader errors do not name the input; a local load's do.
      if (
        req.inputs.length === 1 && e instanceof ServiceError && e.status === 400 &&
        e.message !== NO_RECORDS
      ) {
        throw new ServiceError(e.kind, `${req.inputs[0].name}: ${e.message}`, e.status);
      }
      throw e;
    }
    return { commit: commitOf(v), warnings: stringsField(v ?? undefined, "warnings") ?? [] };
  }

  query(text: string, writer: ValueWriter, opts: QueryOptions = {}): Promise<void> {
    return runQuery(this.conn, text, writer, opts);
  }

  merge(
    pool: PoolConfig,
    child: string,
    parent: string,
    commit: CommitRequest,
    strategy?: MergeStrategy,
  ): Promise<KSUID> {
    const path = this.path(pool, "branch", parent, "merge", child);
    return this.commit(strategy === undefined ? path : `${path}?strategy=${strategy}`, { commit });
  }

  revert(pool: PoolConfig, branch: string, id: KSUID, commit: CommitRequest): Promise<KSUID> {
    return this.commit(this.path(pool, "branch", branch, "revert", toBase62(id)), { commit });
  }

  deleteObjects(
    pool: PoolConfig,
    branch: string,
    ids: KSUID[],
    commit: CommitRequest,
  ): Promise<KSUID> {
    return this.commit(this.path(pool, "branch", branch, "delete"), {
      ...jsonBody({ object_ids: ids.map(toBase62) }),
      commit,
    });
  }

  deleteWhere(
    pool: PoolConfig,
    branch: string,
    where: string,
    commit: CommitRequest,
  ): Promise<KSUID> {
    return this.commit(this.path(pool, "branch", branch, "delete"), {
      ...jsonBody({ where }),
      commit,
    });
  }

  /**
   * With "auto", the branch's objects are planned here as a local compaction
   * plans them, and each run is compacted by its own request (so by its own
   * commit: the service compacts the objects of one request together).
   */
  async compact(
    pool: PoolConfig,
    branch: string,
    ids: KSUID[] | "auto",
    commit: CommitRequest,
  ): Promise<KSUID[]> {
    let runs: KSUID[][];
    if (ids === "auto") {
      const from = `${literal(toBase62(pool.id))}@${literal(branch)}`;
      const objects = (await queryValues(this, `from ${from}:objects`)).map(dataObjectOf);
      runs = planCompaction(objects, PoolKey.of(pool), pool.threshold)
        .map((run) => run.map((o) => o.id));
    } else {
      runs = [ids];
    }
    const path = this.path(pool, "branch", branch, "compact");
    const commits: KSUID[] = [];
    for (const run of runs) {
      const body = zsonBody(`{object_ids:[${run.map(toHex).join(",")}]}`);
      commits.push(await this.commit(path, { ...body, commit }));
    }
    return commits;
  }

  /**
   * The rules get their ids and times here (as the Go client's do). Rules of
   * one kind share a type and go in one request; a mix goes kind by kind, in
   * order, since the service reads an array of mixed rule types as a union.
   */
  async addIndexRules(specs: RuleSpec[]): Promise<void> {
    const base = BigInt(Date.now()) * 1000000n;
    const rules = specs.map((s, i): IndexRule =>
      ({ ...s, id: s.id ?? newKSUID(), ts: s.ts ?? base + BigInt(i) }) as IndexRule
    );
    for (let i = 0; i < rules.length;) {
      let j = i + 1;
      while (j < rules.length && rules[j].kind === rules[i].kind) j++;
      const values = rules.slice(i, j).map(ruleValue);
      const text = `{rules:[${values.map((v) => formatZson(v.type, v.body)).join(",")}]}`;
      await this.conn.send("POST", "/index", zsonBody(text));
      i = j;
    }
  }

  async dropIndexRules(ids: KSUID[]): Promise<DroppedRule[]> {
    const v = await this.conn.value(
      "DELETE",
      "/index",
      jsonBody({ rule_ids: ids.map(toBase62) }),
    );
    return elements(fieldOf(v ?? undefined, "rules")).map((r) => {
      const id = idField(r, "id");
      const name = fieldOf(r, "name")?.body;
      if (id === undefined || typeof name !== "string") {
        throw new LochError("internal", "lake service sent a malformed index rule");
      }
      return { id, name };
    });
  }

  applyIndexRules(
    pool: PoolConfig,
    branch: string,
    rules: string[],
    tags: string[],
  ): Promise<KSUID> {
    return this.commit(this.path(pool, "branch", branch, "index"), jsonBody({ rules, tags }));
  }

  updateIndex(pool: PoolConfig, branch: string, rules: string[]): Promise<KSUID> {
    return this.commit(this.path(pool, "branch", branch, "index", "update"), jsonBody({ rules }));
  }

  vacuum(_pool: PoolConfig, _dryRun: boolean): Promise<VacuumReport> {
    return Promise.reject(notOnService(this, "vacuum"));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  async transaction(req: TxRequest): Promise<TxCommitted[]> {
    const ops = req.operations.map((o) =>
      o.op === "load" && o.data instanceof Uint8Array
        ? { ...o, data: new TextDecoder().decode(o.data) }
        : o
    );
    const v = await this.conn.value("POST", "/transaction", jsonBody({ ...req, operations: ops }));
    const commits = fieldOf(v ?? undefined, "commits");
    if (commits === undefined || commits.body === null) {
      throw new LochError("internal", "lake service sent no commits");
    }
    const et = (commits.type as { elem: Value["type"] }).elem;
    return (commits.body as Body[]).map((b) => {
      const e = new Value(et, b);
      return {
        pool: String(fieldOf(e, "pool")?.body ?? ""),
        branch: String(fieldOf(e, "branch")?.body ?? ""),
        commit: idField(e, "commit")!,
      };
    });
  }
}

/** The commit of an api.CommitResponse. */
function commitOf(v: Value | null): KSUID {
  const id = idField(v ?? undefined, "commit");
  if (id === undefined) throw new LochError("internal", "lake service sent no commit id");
  return id;
}

function sameID(a: KSUID, b: KSUID): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The elements of an array value (union members unwrapped). */
function elements(v: Value | undefined): Value[] {
  if (v === undefined || v.body === null) return [];
  const t = typeUnder(v.type);
  if (t.kind !== Kind.Array && t.kind !== Kind.Set) return [];
  const elem = typeUnder(t.elem);
  return (v.body as Body[]).map((b) => {
    if (elem.kind === Kind.Union && b instanceof UnionBody) {
      return new Value(elem.types[b.tag], b.body);
    }
    return new Value(t.elem, b);
  });
}

/** Where a request body's stream records the local error that ended it. */
interface Failure {
  error?: unknown;
}

/** An input's bytes as a request body, with the Content-Type -i asks for (none: detect). */
async function rawBody(
  src: ByteSource,
  req: LoadRequest,
  failure: Failure,
): Promise<RequestOptions> {
  let contentType: string | undefined;
  if (req.format !== "" && req.format !== "auto") {
    if (inputFormat(req.format) === undefined) {
      throw new LochError("invalid", `${src.name}: no such format: ${JSON.stringify(req.format)}`);
    }
    contentType = formatMediaType(req.format);
  }
  req.counters.countsRecords = false; // the service reads the values
  let chunks: AsyncIterator<Uint8Array>;
  try {
    chunks = (await src.open())[Symbol.asyncIterator]();
  } catch (e) {
    const kind = e instanceof LochError ? e.kind : "invalid";
    throw new LochError(kind, `${src.name}: ${messageOf(e)}`);
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await chunks.next();
        if (r.done) {
          controller.close();
          return;
        }
        req.onProgress?.();
        controller.enqueue(r.value);
      } catch (e) {
        const kind = e instanceof LochError ? e.kind : "invalid";
        failure.error = new LochError(kind, `${src.name}: ${messageOf(e)}`);
        controller.error(failure.error);
      }
    },
    async cancel() {
      await chunks.return?.();
    },
  });
  return { body, contentType };
}

/**
 * Several inputs read here (each named in its errors) and sent as one ZNG
 * stream. The first batch is read before the request starts, so an input
 * that cannot be read at all fails without contacting the service.
 */
async function zngBody(req: LoadRequest, failure: Failure): Promise<ReadableStream<Uint8Array>> {
  const reader = new ConcatReader(
    req.inputs.map((src) => sourceReader(src, req.format, req.counters)),
  );
  const encoder = new ZngEncoder();
  let done = false;
  const step = async () => {
    const batch = await reader.read();
    if (batch === null) {
      encoder.endStream();
      done = true;
    } else {
      encoder.writeBatch(batch);
      req.onProgress?.();
    }
  };
  try {
    await step();
  } catch (e) {
    await reader.close().catch(() => {});
    throw e;
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        while (!done && encoder.pending === 0) await step();
        if (encoder.pending > 0) controller.enqueue(encoder.take());
        if (done) {
          await reader.close();
          controller.close();
        }
      } catch (e) {
        await reader.close().catch(() => {});
        failure.error = e;
        controller.error(e);
      }
    },
    async cancel() {
      await reader.close();
    },
  });
}
