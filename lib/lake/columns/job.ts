// Messages between a loading thread and the columns worker. A session
// builds one object's columns: values are added as they arrive (their
// bodies stay in the sort buffer's shared memory; their types go as ZSON
// text, since each thread has its own type context), then the object's
// order comes, and the worker lays the columns out and writes them.

export type ColumnsRequest =
  | {
    kind: "add";
    session: number;
    /** ZSON text of the types first used in this batch, numbered on from the session's last. */
    newTypes: string[];
    /** Per value, its type's number in the session. */
    typeOf: Uint32Array;
    bufs: Uint8Array[];
    chunk: Int32Array;
    start: Int32Array;
    end: Int32Array;
  }
  | { kind: "finish"; session: number; path: string; order: Uint32Array }
  | { kind: "cancel"; session: number };

export type ColumnsReply =
  | { session: number; manifest: string }
  | { session: number; error: string };
