// The worker behind S3Storage's synchronous reads (readSync, sizeSync): the
// storage's thread blocks in SyncBridge.call (bridge.ts) while this worker
// makes the signed requests. A whole small object is written straight into
// the read cache's directory (under the temporary name it is given; the
// storage then admits it), so its bytes need not cross the shared buffer;
// ranges of larger objects come back in the answer.

import { serveBridge } from "../syncbridge.ts";
import { LochError } from "../../errors.ts";
import { S3Client, where } from "./client.ts";
import type { S3Config, S3Location } from "./config.ts";
import { readObject } from "./read.ts";

let client: S3Client | undefined;

serveBridge(async (req, init) => {
  client ??= new S3Client(init as S3Config);
  const loc: S3Location = { bucket: req.bucket as string, key: req.key as string };
  switch (req.op) {
    case "head": {
      const info = await client.head(loc);
      return { ok: true, size: info?.size ?? null };
    }
    case "fetch":
      return await fetchWhole(client, loc, req.file as string, req.max as number);
    case "range": {
      const out = new Uint8Array(req.length as number);
      let n = 0;
      for await (const chunk of readObject(client, loc, req.offset as number, out.length)) {
        out.set(chunk, n);
        n += chunk.length;
      }
      return { ok: true, bytes: out.subarray(0, n) };
    }
    default:
      throw new Error(`S3 bridge: unknown request ${String(req.op)}`);
  }
});

/**
 * Writes the object to file when it has at most max bytes: { size, file: true }.
 * A larger one is left unread: { size, file: false }; so is one the local
 * file could not take (the storage then reads ranges instead).
 */
async function fetchWhole(client: S3Client, loc: S3Location, file: string, max: number) {
  let size: number | undefined;
  let out: Deno.FsFile | undefined;
  try {
    out = await Deno.open(file, { write: true, createNew: true });
  } catch {
    // no local copy: size only
  }
  let written = 0;
  try {
    const want = (total: number) => {
      size = total;
      return out !== undefined && total <= max;
    };
    for await (const chunk of readObject(client, loc, 0, Number.MAX_SAFE_INTEGER, want)) {
      try {
        for (let p = 0; p < chunk.length;) p += await out!.write(chunk.subarray(p));
      } catch {
        break; // the local file failed: written !== size below
      }
      written += chunk.length;
    }
  } catch (e) {
    out?.close();
    await Deno.remove(file).catch(() => {});
    throw e;
  }
  out?.close();
  if (size === undefined) { // nothing answered: empty, or gone
    const info = await client.head(loc);
    if (info === undefined) {
      await Deno.remove(file).catch(() => {});
      throw new LochError("not found", `${where(loc)}: file does not exist`);
    }
    size = info.size;
  }
  if (out === undefined || size > max || written !== size) {
    await Deno.remove(file).catch(() => {});
    return { ok: true, size, file: false };
  }
  return { ok: true, size, file: true };
}
