// Runs one fuzzing job (formats.ts, queries.ts, loads.ts) on its own thread, so that a
// decoder or query that never ends can be stopped by the test that started it.

import { fuzzFormat } from "./formats.ts";
import { fuzzJsonLoads } from "./loads.ts";
import { fuzzQueries } from "./queries.ts";

export interface FuzzJob {
  /** An input format's name, "query", or "json-load". */
  target: string;
  seed: number;
  count: number;
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<FuzzJob>) => void) | null;
  postMessage(m: unknown): void;
};

scope.onmessage = async (e) => {
  const { target, seed, count } = e.data;
  try {
    const result = target === "query"
      ? await fuzzQueries(seed, count)
      : target === "json-load"
      ? await fuzzJsonLoads(seed, count)
      : await fuzzFormat(target, seed, count);
    scope.postMessage({ result });
  } catch (err) {
    scope.postMessage({ error: String(err) });
  }
};
