// Running queries with `file`/`get` sources in tests: the query's sources are
// opened as `loch query` opens them (or with the access the service gives),
// an optional ZSON input feeds the caller's port, and the output is
// one-line ZSON.

import assert from "node:assert/strict";
import { LochError } from "../../lib/errors.ts";
import { ByteInput, TextInput, type ValueReader } from "../../lib/formats/io.ts";
import { ZsonReader } from "../../lib/formats/zson/reader.ts";
import { ZsonWriter } from "../../lib/formats/zson/writer.ts";
import { compileQuery } from "../../lib/query/compiler/compile.ts";
import { runQuery } from "../../lib/query/run.ts";
import { LOCAL_ACCESS, openSources, type SourceAccess } from "../../lib/query/sources.ts";

export interface RunOptions {
  /** ZSON fed to the query's own input (as stdin is to `loch query ... -`). */
  input?: string;
  /** Default: the command line's (files and any URL). */
  access?: SourceAccess;
}

export async function run(text: string, opts: RunOptions = {}): Promise<string[]> {
  const q = compileQuery(text);
  const readers: ValueReader[] = [];
  if (opts.input !== undefined) {
    const bytes = new TextEncoder().encode(opts.input);
    readers.push(new ZsonReader(new TextInput(ByteInput.fromBytes(bytes))));
  }
  readers.push(...openSources(q.sources, opts.access ?? LOCAL_ACCESS));
  let out = "";
  const decoder = new TextDecoder();
  const writer = new ZsonWriter((c) => {
    out += decoder.decode(c, { stream: true });
    return Promise.resolve();
  });
  await runQuery(q, readers, writer);
  return out.split("\n").filter((l) => l.length > 0);
}

/** Asserts that running the query fails with exactly this message (and kind, if given). */
export async function fails(
  text: string,
  message: string | RegExp,
  opts: RunOptions & { kind?: LochError["kind"] } = {},
): Promise<void> {
  await assert.rejects(() => run(text, opts), (e: unknown) => {
    assert.ok(e instanceof LochError, `not a LochError: ${e}`);
    if (typeof message === "string") assert.equal(e.message, message);
    else assert.match(e.message, message);
    if (opts.kind !== undefined) assert.equal(e.kind, opts.kind);
    return true;
  });
}

/** A temporary directory with the given files (name to content), removed after fn. */
export async function withFiles(
  files: Record<string, string | Uint8Array>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "loch-sources-test-" });
  try {
    for (const [name, body] of Object.entries(files)) {
      if (typeof body === "string") await Deno.writeTextFile(`${dir}/${name}`, body);
      else await Deno.writeFile(`${dir}/${name}`, body);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** gzip-compressed bytes of text. */
export async function gzip(
  text: string | Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  const s = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}
