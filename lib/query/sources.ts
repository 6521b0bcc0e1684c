// `file` and `get` sources (language.md §3.5): a local file (`-` is stdin) or
// an http(s) URL, read like a command-line input, its format detected unless
// `format` names one. The `order` clause is a hint the reference uses to
// plan merges; it is accepted and not used here.
//
// Who may read what: the command line reads local files and any URL (it is
// the user's own machine). The service never reads the server's filesystem
// or stdin (the reference's refusal: its storage engine knows no "file" or
// "stdio" scheme), and fetches only URLs under prefixes its operator allows
// (none by default): otherwise any client could reach whatever the server
// can (SECURITY.md). Redirects are followed only within the allowed
// prefixes; a fetch waits a bounded time for its response and for each read,
// and is closed when the query ends, however it ends.

import { invalid, LochError, messageOf } from "../errors.ts";
import { openReader } from "../formats/detect.ts";
import { ByteInput, type ValueReader } from "../formats/io.ts";
import type { Batch } from "../zed/value.ts";
import type * as ast from "./ast.ts";
import type { SourcePlan } from "./compiler/compile.ts";
import { scanKeeps } from "./ops/where.ts";
import type { Expr } from "./runtime/expr.ts";

export interface SourceAccess {
  /** Whether `file` may read local files and stdin. */
  files: boolean;
  /** The URLs `get` may fetch: any, or those under one of these prefixes. */
  urls: "any" | readonly string[];
  /** Longest wait for a URL's response, and then for each read of its body (ms; 0: none). */
  timeoutMs?: number;
}

/** The command line's access: its user's own files and network. */
export const LOCAL_ACCESS: SourceAccess = { files: true, urls: "any" };

/** The service's access unless its operator allows URLs: nothing. */
export const NO_ACCESS: SourceAccess = { files: false, urls: [] };

/** How long the service waits on a URL it fetches (for the response, and for each read). */
export const SERVICE_FETCH_TIMEOUT_MS = 30_000;

/** Redirects followed at most (Go's client's limit). */
const MAX_REDIRECTS = 10;

/** Whether url is under one of the prefixes: the same origin, and a path starting with the prefix's. */
export function urlAllowed(url: string, urls: SourceAccess["urls"]): boolean {
  if (urls === "any") return true;
  if (!URL.canParse(url)) return false;
  const u = new URL(url);
  for (const prefix of urls) {
    if (!URL.canParse(prefix)) continue;
    const p = new URL(prefix);
    if (u.origin === p.origin && u.pathname.startsWith(p.pathname)) return true;
  }
  return false;
}

/** Where a `file` path or `get` URL points (the reference's URI rules). */
type Location =
  | { kind: "stdin" }
  | { kind: "file"; path: string }
  | { kind: "url"; url: string };

/** The readers of a query's sources when there is no lake (`loch query` over files). */
export function openSources(plans: SourcePlan[] | null, access: SourceAccess): ValueReader[] {
  return (plans ?? []).map((plan) => {
    const src = plan.source;
    if (src.kind === "File" || src.kind === "HTTP") {
      return openFileSource(src, plan.filter, access);
    }
    if (src.kind === "Pool") {
      throw invalid("semantic analyzer: from pool cannot be used without a lake");
    }
    throw new LochError("internal", "pass-through branch opened as a source");
  });
}

/**
 * A reader of a `file` or `get` source that applies the plan's filter. A
 * refused location fails here, before anything runs; the file or URL is
 * opened on the first read (or by open()). When signal aborts (the query's
 * client went away), a fetch under way is abandoned.
 */
export function openFileSource(
  src: ast.FileSource | ast.HTTPSource,
  filter: SourcePlan["filter"],
  access: SourceAccess,
  signal?: AbortSignal,
): ValueReader & { open(): Promise<void> } {
  const given = src.kind === "File" ? src.path : src.url;
  const loc = locate(given);
  const name = loc.kind === "stdin" ? "stdio:stdin" : given;
  if (loc.kind !== "url" && !access.files) {
    const scheme = loc.kind === "stdin" ? "stdio" : "file";
    throw invalid(`${name}: scheme "${scheme}" not allowed`);
  }
  if (loc.kind === "url" && !urlAllowed(loc.url, access.urls)) {
    throw invalid(
      `${name}: fetching this URL is not allowed here (the server's operator allows URL prefixes with -allow-get)`,
    );
  }
  return new SourceReader(name, loc, src.format ?? "auto", filter?.pred ?? null, access, signal);
}

const SCHEME = /^([a-z0-9]+):/;

function locate(path: string): Location {
  if (path === "-") return { kind: "stdin" };
  const scheme = SCHEME.exec(path)?.[1];
  switch (scheme) {
    case "http":
    case "https":
      return { kind: "url", url: path };
    case "stdio":
      return { kind: "stdin" };
    case "file":
      return { kind: "file", path: decodeURIComponent(new URL(path).pathname) };
    case "s3":
      throw invalid(`${path}: scheme "s3" not supported`);
  }
  // Anything else (no scheme, or one the reference does not know) is a path.
  return { kind: "file", path };
}

/** Opens the location's bytes; errors are the reference's texts (without the name). */
async function openBytes(
  loc: Location,
  name: string,
  access: SourceAccess,
  abort: AbortController,
): Promise<ByteInput> {
  switch (loc.kind) {
    case "stdin":
      return ByteInput.fromStream(Deno.stdin.readable, name);
    case "file":
      return ByteInput.fromFile(await openFile(loc.path), name);
    case "url": {
      const body = await fetchBody(loc.url, access, abort);
      const ms = access.timeoutMs ?? 0;
      return ByteInput.fromStream(ms > 0 ? readsWithin(body, ms, abort) : body, name);
    }
  }
}

async function openFile(path: string): Promise<Deno.FsFile> {
  const abs = path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
  let file: Deno.FsFile;
  try {
    file = await Deno.open(abs);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new LochError("not found", `${new URL(`file://${abs}`).href}: file does not exist`);
    }
    if (e instanceof Deno.errors.PermissionDenied) {
      throw new LochError("invalid", `open ${abs}: permission denied`);
    }
    throw new LochError("invalid", messageOf(e));
  }
  if ((await file.stat()).isDirectory) {
    file.close();
    throw new LochError("invalid", `read ${abs}: is a directory`);
  }
  return file;
}

/**
 * GETs a URL, following redirects that stay within the allowed URLs; anything
 * but 200 OK is an error, as in the reference.
 */
async function fetchBody(
  url: string,
  access: SourceAccess,
  abort: AbortController,
): Promise<ReadableStream<Uint8Array>> {
  const ms = access.timeoutMs ?? 0;
  const timer = ms > 0 ? setTimeout(() => abort.abort(new FetchTimeout()), ms) : undefined;
  let resp: Response;
  try {
    resp = await fetchWithin(url, access.urls, abort.signal);
  } catch (e) {
    if (e instanceof LochError) throw e;
    const why = abort.signal.reason instanceof FetchTimeout
      ? `no response within ${ms / 1000} s`
      : fetchFailure(e, url);
    throw new LochError("upstream", `Get "${url}": ${why}`);
  } finally {
    clearTimeout(timer);
  }
  if (resp.status !== 200) {
    await resp.body?.cancel();
    if (resp.status === 404) throw new LochError("not found", "file does not exist");
    throw new LochError("upstream", `${resp.status} ${resp.statusText}`.trimEnd());
  }
  return resp.body ?? new ReadableStream({ start: (c) => c.close() });
}

class FetchTimeout extends Error {}

/** fetch, with each redirect checked against the allowed URLs. */
async function fetchWithin(
  url: string,
  urls: SourceAccess["urls"],
  signal: AbortSignal,
): Promise<Response> {
  if (urls === "any") return await fetch(url, { signal });
  let at = url;
  for (let hops = 0;; hops++) {
    const resp = await fetch(at, { signal, redirect: "manual" });
    const location = resp.headers.get("Location");
    if (resp.status < 300 || resp.status > 399 || location === null) return resp;
    await resp.body?.cancel();
    if (hops === MAX_REDIRECTS) {
      throw new LochError("invalid", `Get "${at}": stopped after ${MAX_REDIRECTS} redirects`);
    }
    const next = new URL(location, at).href;
    if (!urlAllowed(next, urls)) {
      throw new LochError("invalid", `Get "${at}": redirect to a URL not allowed here`);
    }
    at = next;
  }
}

/** A body whose every read must arrive within ms, else the fetch is aborted and reading fails. */
function readsWithin(
  body: ReadableStream<Uint8Array>,
  ms: number,
  abort: AbortController,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          // Settled before the abort fails the read, so that this is the error.
          reject(new LochError("upstream", `no data within ${ms / 1000} s`));
          abort.abort(new FetchTimeout());
        }, ms);
      });
      try {
        const r = await Promise.race([reader.read(), late]);
        if (r.done) c.close();
        else c.enqueue(r.value);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Why a fetch failed, in the words of Go's HTTP client where the cause is a common one. */
function fetchFailure(e: unknown, url: string): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : messageOf(e);
  const u = URL.canParse(url) ? new URL(url) : null;
  if (u !== null && /connection refused/i.test(cause)) {
    const port = u.port || (u.protocol === "https:" ? "443" : "80");
    return `dial tcp ${u.hostname}:${port}: connect: connection refused`;
  }
  if (u !== null && /dns error|failed to lookup/i.test(cause)) {
    return `dial tcp: lookup ${u.hostname}: no such host`;
  }
  return cause;
}

/**
 * Opens the readers that fetch URLs, so that a URL that fails fails the
 * request (before any output) rather than ending its output.
 */
export async function openURLSources(readers: readonly ValueReader[]): Promise<void> {
  for (const r of readers) {
    if (r instanceof SourceReader && r.fetches) await r.open();
  }
}

/** A source's values, filtered; every error names the source, as `name: ...`. */
class SourceReader implements ValueReader {
  private reader: ValueReader | undefined;
  private input: ByteInput | undefined;
  private opening: Promise<void> | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly name: string,
    private readonly loc: Location,
    private readonly format: string,
    private readonly filter: Expr | null,
    private readonly access: SourceAccess,
    signal?: AbortSignal,
  ) {
    // A query whose client went away abandons its fetch (which may be waiting).
    signal?.addEventListener("abort", () => this.abort.abort(), { once: true });
  }

  get fetches(): boolean {
    return this.loc.kind === "url";
  }

  /** Opens the source now (so that a missing file or a failing URL is reported early). */
  open(): Promise<void> {
    this.opening ??= this.named(async () => {
      this.input = await openBytes(this.loc, this.name, this.access, this.abort);
      this.reader = await openReader(this.input, this.format);
    });
    return this.opening;
  }

  async read(): Promise<Batch | null> {
    await this.open();
    return await this.named(async () => {
      const pred = this.filter;
      for (;;) {
        const batch = await this.reader!.read();
        if (batch === null || pred === null) return batch;
        const out: Batch = [];
        for (const v of batch) {
          if (scanKeeps(pred(v))) out.push(v);
        }
        if (out.length > 0) return out;
      }
    });
  }

  async close(): Promise<void> {
    await this.reader?.close?.();
    // Stops a download (or a file read) cut short, e.g. by `head`.
    if (this.loc.kind !== "stdin") await this.input?.cancel().catch(() => {});
    this.abort.abort();
  }

  private async named<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      const kind = e instanceof LochError ? e.kind : "invalid";
      throw new LochError(kind, `${this.name}: ${messageOf(e)}`);
    }
  }
}
