// `file` and `get` sources (language.md §3.5): a local file (`-` is stdin) or
// an http(s) URL, read like a command-line input, its format detected unless
// `format` names one. The `order` clause is a hint the reference uses to
// plan merges; it is accepted and not used here.
//
// Who may read what: the command line reads local files (it is the user's own
// machine); the service passes allowFiles: false, so a client's query can
// fetch URLs (as the reference's service does) but never read the server's
// filesystem or stdin. The refusal is the reference's: its service's storage
// engine knows no "file" or "stdio" scheme.

import { invalid, LochError, messageOf } from "../errors.ts";
import { openReader } from "../formats/detect.ts";
import { ByteInput, type ValueReader } from "../formats/io.ts";
import type { Batch } from "../zed/value.ts";
import type * as ast from "./ast.ts";
import type { SourcePlan } from "./compiler/compile.ts";
import { filterOne } from "./ops/where.ts";
import type { Expr } from "./runtime/expr.ts";

export interface SourceAccess {
  /** Whether `file` may read local files and stdin (else only http(s) URLs). */
  allowFiles: boolean;
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
    if (src.kind === "File" || src.kind === "HTTP") return openFileSource(src, plan.filter, access);
    if (src.kind === "Pool") {
      throw invalid("semantic analyzer: from pool cannot be used without a lake");
    }
    throw new LochError("internal", "pass-through branch opened as a source");
  });
}

/**
 * A reader of a `file` or `get` source that applies the plan's filter. A
 * refused location fails here, before anything runs; the file or URL is
 * opened on the first read (or by open()).
 */
export function openFileSource(
  src: ast.FileSource | ast.HTTPSource,
  filter: SourcePlan["filter"],
  access: SourceAccess,
): ValueReader & { open(): Promise<void> } {
  const given = src.kind === "File" ? src.path : src.url;
  const loc = locate(given);
  const name = loc.kind === "stdin" ? "stdio:stdin" : given;
  if (loc.kind !== "url" && !access.allowFiles) {
    const scheme = loc.kind === "stdin" ? "stdio" : "file";
    throw invalid(`${name}: scheme "${scheme}" not allowed`);
  }
  return new SourceReader(name, loc, src.format ?? "auto", filter?.pred ?? null);
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
async function openBytes(loc: Location, name: string, signal: AbortSignal): Promise<ByteInput> {
  switch (loc.kind) {
    case "stdin":
      return ByteInput.fromStream(Deno.stdin.readable, name);
    case "file":
      return ByteInput.fromFile(await openFile(loc.path), name);
    case "url":
      return ByteInput.fromStream(await fetchBody(loc.url, signal), name);
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

/** GETs a URL; anything but 200 OK is an error, as in the reference. */
async function fetchBody(url: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  let resp: Response;
  try {
    resp = await fetch(url, { signal });
  } catch (e) {
    throw new LochError("internal", `Get "${url}": ${fetchFailure(e, url)}`);
  }
  if (resp.status !== 200) {
    await resp.body?.cancel();
    if (resp.status === 404) throw new LochError("not found", "file does not exist");
    throw new LochError("internal", `${resp.status} ${resp.statusText}`.trimEnd());
  }
  return resp.body ?? new ReadableStream({ start: (c) => c.close() });
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
  ) {}

  /** Opens the source now (so that a missing file or a failing URL is reported early). */
  open(): Promise<void> {
    this.opening ??= this.named(async () => {
      this.input = await openBytes(this.loc, this.name, this.abort.signal);
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
          const r = filterOne(v, pred(v));
          if (r !== undefined) out.push(r);
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
