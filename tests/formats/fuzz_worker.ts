// Runs one format's fuzzing (fuzz.ts) on its own thread, so that a decoder
// that never ends can be stopped by the test that started it.

import { fuzzFormat } from "./fuzz.ts";

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<{ format: string; seed: number; count: number }>) => void) | null;
  postMessage(m: unknown): void;
};

scope.onmessage = async (e) => {
  const { format, seed, count } = e.data;
  try {
    scope.postMessage({ result: await fuzzFormat(format, seed, count) });
  } catch (err) {
    scope.postMessage({ error: String(err) });
  }
};
