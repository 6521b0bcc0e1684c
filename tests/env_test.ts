// Numeric settings from the environment: the number when it is one in range,
// else the default.

import assert from "node:assert/strict";
import { envNumber, envPositive } from "../lib/env.ts";

const NAME = "LOCH_TEST_ENV_NUMBER";

function withEnv(text: string | undefined, fn: () => void): void {
  if (text === undefined) Deno.env.delete(NAME);
  else Deno.env.set(NAME, text);
  try {
    fn();
  } finally {
    Deno.env.delete(NAME);
  }
}

Deno.test("env: a number in range is taken; unset, empty, not a number or below the least give the default", () => {
  withEnv(undefined, () => assert.equal(envNumber(NAME, 7), 7));
  withEnv("", () => assert.equal(envNumber(NAME, 7), 7));
  withEnv("  ", () => assert.equal(envNumber(NAME, 7), 7));
  withEnv("12x", () => assert.equal(envNumber(NAME, 7), 7));
  withEnv("Infinity", () => assert.equal(envNumber(NAME, 7), 7));
  withEnv("12.5", () => assert.equal(envNumber(NAME, 7), 12.5));
  withEnv("-3", () => assert.equal(envNumber(NAME, 7), -3));
  withEnv("-3", () => assert.equal(envNumber(NAME, 7, 0), 7));
  withEnv("0", () => assert.equal(envNumber(NAME, 7, 0), 0));
});

Deno.test("env: a setting that must be above zero gives the default for zero or less", () => {
  withEnv("0", () => assert.equal(envPositive(NAME, 256), 256));
  withEnv("-1", () => assert.equal(envPositive(NAME, 256), 256));
  withEnv("", () => assert.equal(envPositive(NAME, 256), 256));
  withEnv("0.5", () => assert.equal(envPositive(NAME, 256), 0.5));
  withEnv("1024", () => assert.equal(envPositive(NAME, 256), 1024));
});
