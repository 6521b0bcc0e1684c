// A lake on disk: the catalog (lake.sqlite) and the data objects under
// pools/<pool-id>/data/. Opening a directory that does not exist creates an
// empty lake there.

import { LochError } from "../errors.ts";
import type { Catalog } from "./catalog/catalog.ts";
import { SqliteCatalog } from "./catalog/sqlite.ts";
import { PostgresCatalog } from "./catalog/postgres.ts";
import { encodeEvent, EVENT_CHANNEL, EventListener } from "./catalog/pgevents.ts";
import { isS3, parseS3URL } from "./s3/config.ts";
import { S3Storage, type S3StorageOptions } from "./s3/storage.ts";
import { type KSUID, toBase62 } from "./ksuid.ts";
import { LocalStorage, type Storage } from "./storage.ts";
import { columnCacheFromEnv } from "./columns/mod.ts";
import { KeyedQueue } from "./queue.ts";

export const CATALOG_FILE = "lake.sqlite";

/** Something that happened to the lake, for subscribers (the service's event stream). */
export type LakeEvent =
  | { kind: "pool-new" | "pool-update" | "pool-delete"; poolId: KSUID }
  | { kind: "branch-update" | "branch-delete"; poolId: KSUID; branch: string }
  | {
    kind: "branch-commit";
    poolId: KSUID;
    branch: string;
    commitId: KSUID;
    /** The commit's parent commit. */
    parent: KSUID;
    /** For a merge, the branch merged into (the reference announces the child as `branch`). */
    parentBranch?: string;
  };

export class Lake {
  private listeners = new Set<(e: LakeEvent) => void>();
  /** This process's name among the nodes sharing a PostgreSQL catalog. */
  private readonly node = crypto.randomUUID();
  /** Other nodes' events (PostgreSQL catalogs), listened for once someone subscribes. */
  private remote: Promise<EventListener | null> | null = null;
  /** Commits to one branch from this process, one at a time (keyed pool/branch). */
  readonly commits = new KeyedQueue();

  private constructor(
    readonly root: string,
    readonly catalog: Catalog,
    readonly storage: Storage,
    /** Where the catalog is when not in the lake's directory (a postgres:// URL). */
    readonly catalogURL?: string,
  ) {}

  /**
   * Opens the lake at root (made if missing): a directory, or S3-compatible
   * storage (`s3://bucket/prefix`; endpoint and credentials from AWS_*
   * unless opts.s3 gives them). Its catalog is the SQLite file in the
   * directory unless opts.catalog (else LOCH_CATALOG) names a PostgreSQL
   * database (`postgres://user:password@host:port/db`), which any number of
   * processes may share; a lake in S3 needs one.
   */
  static async open(
    root: string,
    opts: { catalog?: string; s3?: S3StorageOptions } = {},
  ): Promise<Lake> {
    columnCacheFromEnv();
    const url = opts.catalog ?? envCatalog();
    if (isS3(root)) {
      parseS3URL(root);
      root = root.replace(/\/+$/, "");
      if (url === undefined || !/^postgres(ql)?:\/\//.test(url)) {
        throw new LochError(
          "invalid",
          "a lake in S3 needs its catalog in PostgreSQL (-catalog or LOCH_CATALOG)",
        );
      }
      const storage = new S3Storage(opts.s3);
      try {
        return new Lake(root, PostgresCatalog.open(url), storage, url);
      } catch (e) {
        storage.close();
        throw e;
      }
    }
    try {
      await Deno.mkdir(`${root}/pools`, { recursive: true });
    } catch (e) {
      throw new LochError("internal", `cannot open lake at ${root}: ${(e as Error).message}`);
    }
    if (url === undefined || url === "") {
      return new Lake(root, new SqliteCatalog(`${root}/${CATALOG_FILE}`), new LocalStorage());
    }
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new LochError("invalid", `unsupported catalog: ${redactURL(url)} (want postgres://…)`);
    }
    return new Lake(root, PostgresCatalog.open(url), new LocalStorage(), url);
  }

  poolDir(poolId: KSUID): string {
    return `${this.root}/pools/${toBase62(poolId)}`;
  }

  objectPath(poolId: KSUID, objectId: KSUID): string {
    return `${this.poolDir(poolId)}/data/${toBase62(objectId)}.zng`;
  }

  /** The Arrow file of an object's columns. */
  columnsPath(poolId: KSUID, objectId: KSUID): string {
    return `${this.poolDir(poolId)}/columns/${toBase62(objectId)}.arrow`;
  }

  /** Removes an object's files (after a failed write; vacuum for committed ones). */
  async removeObjectFiles(poolId: KSUID, objectId: KSUID): Promise<void> {
    await this.storage.remove(this.objectPath(poolId, objectId)).catch(() => {});
    await this.storage.remove(this.columnsPath(poolId, objectId)).catch(() => {});
  }

  /** Where a new object's files go. */
  objectPaths(poolId: KSUID, objectId: KSUID): { data: string; columns: string } {
    return { data: this.objectPath(poolId, objectId), columns: this.columnsPath(poolId, objectId) };
  }

  /** Subscribes to lake events; returns the unsubscribe function. */
  subscribe(fn: (e: LakeEvent) => void): () => void {
    this.listeners.add(fn);
    if (this.catalogURL !== undefined && this.remote === null) this.listenRemote(this.catalogURL);
    return () => this.listeners.delete(fn);
  }

  /**
   * Starts taking other nodes' events; settles once listening (tests wait
   * for it). Without a shared catalog there are none: settles at once.
   */
  listening(): Promise<unknown> {
    return this.remote ?? Promise.resolve();
  }

  private listenRemote(url: string): void {
    this.remote = EventListener.start(url, this.node, (e) => this.deliver(e)).catch((err) => {
      console.error(`loch: not listening for other nodes' events: ${(err as Error).message}`);
      return null;
    });
  }

  /** Tells subscribers, and (sharing a catalog) the other nodes, of a change. */
  emit(e: LakeEvent): void {
    this.deliver(e);
    if (this.catalogURL !== undefined) {
      this.catalog.run("SELECT pg_notify(?, ?)", EVENT_CHANNEL, encodeEvent(this.node, e));
    }
  }

  private deliver(e: LakeEvent): void {
    for (const fn of this.listeners) fn(e);
  }

  close(): void {
    this.remote?.then((l) => l?.close()).catch(() => {});
    this.storage.close?.();
    this.catalog.close();
  }
}

function envCatalog(): string | undefined {
  try {
    return Deno.env.get("LOCH_CATALOG");
  } catch {
    return undefined; // no --allow-env
  }
}

/** A URL with its password hidden (for messages and logs). */
export function redactURL(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@/]*@/i, "$1***@");
}
