// A lake on disk: the catalog (lake.sqlite) and the data objects under
// pools/<pool-id>/data/. Opening a directory that does not exist creates an
// empty lake there.

import { LochError } from "../errors.ts";
import { Catalog } from "./catalog/catalog.ts";
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
  /** Commits to one branch from this process, one at a time (keyed pool/branch). */
  readonly commits = new KeyedQueue();

  private constructor(
    readonly root: string,
    readonly catalog: Catalog,
    readonly storage: Storage,
  ) {}

  static async open(root: string): Promise<Lake> {
    columnCacheFromEnv();
    try {
      await Deno.mkdir(`${root}/pools`, { recursive: true });
    } catch (e) {
      throw new LochError("internal", `cannot open lake at ${root}: ${(e as Error).message}`);
    }
    return new Lake(root, new Catalog(`${root}/${CATALOG_FILE}`), new LocalStorage());
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
    return () => this.listeners.delete(fn);
  }

  emit(e: LakeEvent): void {
    for (const fn of this.listeners) fn(e);
  }

  close(): void {
    this.storage.close?.();
    this.catalog.close();
  }
}
