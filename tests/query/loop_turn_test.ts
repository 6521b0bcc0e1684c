// The self-pipe turn (lib/query/runtime/loop-turn.ts): a turn lets I/O that
// is ready in, which microtasks never do; turns asked for together share one
// poll; a closed pair falls back to timer turns and leaves nothing open.

import assert from "node:assert/strict";
import { LoopTurns } from "../../lib/query/runtime/loop-turn.ts";

async function loopbackPair(): Promise<[Deno.Conn, Deno.Conn, Deno.Listener]> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const [a, b] = await Promise.all([
    Deno.connect({ hostname: "127.0.0.1", port }),
    listener.accept(),
  ]);
  return [a, b, listener];
}

async function microtasks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

Deno.test("loop turn: lets a ready socket read complete, as microtasks do not", async () => {
  const turns = (await LoopTurns.open())!;
  assert.ok(turns !== null);
  const [a, b, listener] = await loopbackPair();
  try {
    await a.write(new Uint8Array([7, 8, 9]));
    let got: number | null = null;
    const buf = new Uint8Array(8);
    const reading = b.read(buf).then((n) => got = n);
    await microtasks(100);
    assert.equal(got, null, "microtasks alone do not poll I/O");
    await turns.turn();
    await microtasks(2);
    assert.equal(got, 3);
    await reading;
  } finally {
    a.close();
    b.close();
    listener.close();
    await turns.close();
  }
});

Deno.test("loop turn: turns asked for together share one poll", async () => {
  const turns = (await LoopTurns.open())!;
  try {
    const first = turns.turn(), second = turns.turn();
    assert.equal(first, second);
    await first;
    const third = turns.turn();
    assert.notEqual(third, first, "a new turn once the last is over");
    await third;
  } finally {
    await turns.close();
  }
});

Deno.test("loop turn: close waits for the turn in flight; later turns use the timer", async () => {
  const turns = (await LoopTurns.open())!;
  const inFlight = turns.turn();
  await turns.close();
  await inFlight;
  let fired = false;
  setTimeout(() => fired = true, 0);
  await turns.turn();
  assert.equal(fired, true, "a timer turn waits for the timer's tick");
  await turns.close(); // closing twice is harmless
});
