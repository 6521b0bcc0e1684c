// Writing an object's columns file, on the thread that writes the object's
// rows. (A separate thread fed as values arrived was tried: it saved ~5% of a
// warm load, cost ~1 s on the first big load while its code was cold, and
// held another isolate's memory; loads in parallel use the pool's workers.)

import { concatBytes } from "../../formats/io.ts";
import type { Storage } from "../storage.ts";
import type { EncodedValues } from "./build.ts";
import { buildColumns } from "./build.ts";
import type { ColumnsManifest } from "./manifest.ts";

// apache-arrow loads with the first columns written: a thread that only
// serves (the workers write) never holds its ~18 MB.
let arrowFile: Promise<typeof import("./arrowfile.ts")> | undefined;

/** Builds an object's columns and writes them to path; returns their manifest. */
export async function writeColumns(
  storage: Storage,
  path: string,
  vals: EncodedValues,
  order: Uint32Array,
): Promise<ColumnsManifest> {
  arrowFile ??= import("./arrowfile.ts");
  const { encodeColumns } = await arrowFile;
  const { pieces, manifest } = await encodeColumns(buildColumns(vals, order));
  await storage.createAtomic(path, async (sink) => {
    for (const w of writes(pieces)) await sink.write(w);
  }, { durable: false });
  return manifest;
}

/** Pieces under this size are gathered into one write... */
const SMALL = 64 << 10;
/** ...of at most this size. */
const GATHER = 1 << 20;

/**
 * The writes that put a file's pieces down in order: big pieces as they are
 * (views of the columns), runs of small ones (the Arrow framing, paddings,
 * short columns) gathered, rather than a write each.
 */
export function* writes(pieces: readonly Uint8Array[]): Generator<Uint8Array> {
  let run: Uint8Array[] = [];
  let runBytes = 0;
  for (const p of pieces) {
    if (p.length >= SMALL || runBytes + p.length > GATHER) {
      if (runBytes > 0) yield concatBytes(run, runBytes);
      run = [];
      runBytes = 0;
      if (p.length >= SMALL) {
        yield p;
        continue;
      }
    }
    run.push(p);
    runBytes += p.length;
  }
  if (runBytes > 0) yield concatBytes(run, runBytes);
}
