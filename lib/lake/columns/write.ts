// Writing an object's columns file, on the thread that writes the object's
// rows. (A separate thread fed as values arrived was tried: it saved ~5% of a
// warm load, cost ~1 s on the first big load while its code was cold, and
// held another isolate's memory; loads in parallel use the pool's workers.)

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
  const { bytes, manifest } = encodeColumns(buildColumns(vals, order));
  await storage.createAtomic(path, (sink) => sink.write(bytes), { durable: false });
  return manifest;
}
