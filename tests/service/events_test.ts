// GET /events: every event kind in ZSON, JSON and ZJSON with the
// reference's framing (the payload's own newline, then a blank line), the
// seed spec's pool-commit, keep-alive comments (none for the Go client),
// Accept handling and the end of streams (TestEventsHandler).

import assert from "node:assert/strict";
import {
  call,
  createPool,
  errorBody,
  get,
  load,
  post,
  type TestServer,
  within,
  withServer,
} from "./helpers.ts";

/** An open event stream, accumulating what arrives. */
class EventStream {
  text = "";
  ended = false;
  private reader: ReadableStreamDefaultReader<Uint8Array>;
  private decoder = new TextDecoder();
  private pump: Promise<void>;
  private wake: (() => void) | null = null;

  constructor(readonly res: Response) {
    const reader = res.body!.getReader();
    this.reader = reader;
    this.pump = (async () => {
      try {
        for (let c = await reader.read(); !c.done; c = await reader.read()) {
          this.text += this.decoder.decode(c.value, { stream: true });
          this.wake?.();
        }
      } catch {
        // cancelled
      }
      this.ended = true;
      this.wake?.();
    })();
  }

  static async open(s: TestServer, headers: Record<string, string> = {}): Promise<EventStream> {
    const res = await fetch(`${s.url}/events`, { headers });
    assert.equal(res.status, 200);
    return new EventStream(res);
  }

  /** Waits until the text received satisfies pred. */
  async until(pred: (text: string) => boolean, what: string, ms = 2000): Promise<void> {
    const deadline = performance.now() + ms;
    while (!pred(this.text)) {
      if (this.ended) throw new Error(`stream ended before ${what}: ${JSON.stringify(this.text)}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(this.text)}`);
      await within(new Promise<void>((r) => (this.wake = r)), left, what).catch(() => {});
    }
  }

  /** Waits for exactly `want` (and fails on anything else). */
  async expect(want: string): Promise<void> {
    await this.until((t) => t.length >= want.length, "events");
    assert.equal(this.text, want);
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
    await this.pump;
  }
}

const frame = (name: string, data: string) => `event: ${name}\ndata: ${data}\n\n\n`;

interface Ids {
  pool: string;
  commit: string;
}

/** Every kind of event: create, load, branch, delete the branch, rename, drop. */
async function everyEvent(s: TestServer): Promise<Ids> {
  const pool = await createPool(s, "test");
  const commit = await load(s, "test", "{ts:0}");
  assert.equal((await post(s, "/pool/test", JSON.stringify({ name: "dev", commit }))).status, 200);
  assert.equal((await call(s, "DELETE", "/pool/test/branch/dev")).status, 204);
  assert.equal((await call(s, "PUT", "/pool/test", { body: '{"name":"new"}' })).status, 204);
  assert.equal((await call(s, "DELETE", "/pool/new")).status, 204);
  return { pool, commit };
}

function zsonEvents({ pool: P, commit: C }: Ids): string {
  return frame("pool-new", `{pool_id:${P}(=KSUID)}(=EventPool)`) +
    frame(
      "branch-commit",
      `{commit_id:${C}(=KSUID),pool_id:${P}(KSUID),branch:"main",parent:""}(=EventBranchCommit)`,
    ) +
    frame("pool-commit", `{pool_id:${P}(=KSUID),commit_id:${C}(KSUID)}(=EventPoolCommit)`) +
    frame("branch-update", `{pool_id:${P}(=KSUID),branch:"dev"}(=EventBranch)`) +
    frame("branch-delete", `{pool_id:${P}(=KSUID),branch:"dev"}(=EventBranch)`) +
    frame("pool-update", `{pool_id:${P}(=KSUID)}(=EventPool)`) +
    frame("pool-delete", `{pool_id:${P}(=KSUID)}(=EventPool)`);
}

function jsonEvents({ pool: P, commit: C }: Ids): string {
  return frame("pool-new", `{"pool_id":"${P}"}`) +
    frame("branch-commit", `{"commit_id":"${C}","pool_id":"${P}","branch":"main","parent":""}`) +
    frame("pool-commit", `{"pool_id":"${P}","commit_id":"${C}"}`) +
    frame("branch-update", `{"pool_id":"${P}","branch":"dev"}`) +
    frame("branch-delete", `{"pool_id":"${P}","branch":"dev"}`) +
    frame("pool-update", `{"pool_id":"${P}"}`) +
    frame("pool-delete", `{"pool_id":"${P}"}`);
}

const KSUID = '{"kind":"named","id":30,"name":"KSUID","type":{"kind":"primitive","name":"bytes"}}';
const STRING = '{"kind":"primitive","name":"string"}';

function zjsonEvents({ pool: P, commit: C }: Ids): string {
  const named = (name: string, fields: string, value: string) =>
    `{"type":{"kind":"named","id":32,"name":"${name}","type":{"kind":"record","id":31,` +
    `"fields":[${fields}]}},"value":${value}}`;
  const pool = named("EventPool", `{"name":"pool_id","type":${KSUID}}`, `["${P}"]`);
  const branch = (b: string) =>
    named(
      "EventBranch",
      `{"name":"pool_id","type":${KSUID}},{"name":"branch","type":${STRING}}`,
      `["${P}","${b}"]`,
    );
  return frame("pool-new", pool) +
    frame(
      "branch-commit",
      named(
        "EventBranchCommit",
        `{"name":"commit_id","type":${KSUID}},{"name":"pool_id","type":{"kind":"ref","id":30}},` +
          `{"name":"branch","type":${STRING}},{"name":"parent","type":${STRING}}`,
        `["${C}","${P}","main",""]`,
      ),
    ) +
    frame(
      "pool-commit",
      named(
        "EventPoolCommit",
        `{"name":"pool_id","type":${KSUID}},{"name":"commit_id","type":{"kind":"ref","id":30}}`,
        `["${P}","${C}"]`,
      ),
    ) +
    frame("branch-update", branch("dev")) + frame("branch-delete", branch("dev")) +
    frame("pool-update", pool) + frame("pool-delete", pool);
}

Deno.test("events: every kind in ZSON, JSON and ZJSON, framed as the reference frames them", () =>
  withServer(async (s) => {
    const zson = await EventStream.open(s);
    assert.equal(zson.res.headers.get("Content-Type"), "text/event-stream");
    assert.equal(zson.res.headers.get("Cache-Control"), "no-cache");
    assert.ok(zson.res.headers.get("X-Request-Id"));
    const json = await EventStream.open(s, { Accept: "application/json" });
    const zjson = await EventStream.open(s, { Accept: "application/x-zjson" });
    const ndjson = await EventStream.open(s, { Accept: "application/x-ndjson" });
    assert.equal(s.server.service.events.subscribers, 4);
    const ids = await everyEvent(s);
    await zson.expect(zsonEvents(ids));
    await json.expect(jsonEvents(ids));
    await zjson.expect(zjsonEvents(ids));
    // NDJSON is JSON here (the reference breaks on it).
    await ndjson.expect(jsonEvents(ids));
    for (const e of [zson, json, zjson, ndjson]) await e.close();
  }));

Deno.test("events: TestEventsHandler's sequence, as the Go client reads it", () =>
  withServer(async (s) => {
    const ev = await EventStream.open(s, { "User-Agent": "Go-http-client/1.1" });
    const id = await createPool(s, "test");
    const commit = await load(s, id, "{ts:0}");
    assert.equal((await call(s, "DELETE", `/pool/${id}`)).status, 204);
    await ev.until((t) => t.includes("pool-delete"), "pool-delete");
    await ev.until((t) => t.endsWith("\n\n\n"), "the end of the frame");
    // The Go client scans each frame with "event: %s\ndata: %s\n\n\n".
    const frames = ev.text.split("\n\n\n").slice(0, -1).map((f) => {
      const m = f.match(/^event: (\S+)\ndata: (\S+)$/);
      assert.ok(m, f);
      return [m[1], m[2]];
    });
    assert.deepEqual(frames, [
      ["pool-new", `{pool_id:${id}(=KSUID)}(=EventPool)`],
      [
        "branch-commit",
        `{commit_id:${commit}(=KSUID),pool_id:${id}(KSUID),branch:"main",parent:""}(=EventBranchCommit)`,
      ],
      ["pool-commit", `{pool_id:${id}(=KSUID),commit_id:${commit}(KSUID)}(=EventPoolCommit)`],
      ["pool-delete", `{pool_id:${id}(=KSUID)}(=EventPool)`],
    ]);
    await ev.close();
  }));

Deno.test("events: keep-alive comments, but none for the Go client", () =>
  withServer(async (s) => {
    const browser = await EventStream.open(s, { Accept: "application/json" });
    const go = await EventStream.open(s, {
      Accept: "application/json",
      "User-Agent": "Go-http-client/1.1",
    });
    await browser.until((t) => t.split(":\n\n").length > 3, "three keep-alives", 1000);
    assert.match(browser.text, /^(:\n\n)+$/);
    const id = await createPool(s, "test");
    const want = frame("pool-new", `{"pool_id":"${id}"}`);
    await browser.until((t) => t.includes(want), "the event");
    await go.expect(want);
    // Comments come only between frames.
    assert.equal(browser.text.replaceAll(":\n\n", ""), want);
    await browser.close();
    await go.close();
  }, { eventKeepAliveMs: 40 }));

Deno.test("events: Accept", () =>
  withServer(async (s) => {
    // The whole header is one media type in the reference (a list breaks it); loch negotiates.
    const list = await EventStream.open(s, { Accept: "application/json, text/plain" });
    const id = await createPool(s, "test");
    await list.expect(frame("pool-new", `{"pool_id":"${id}"}`));
    await list.close();
    for (
      const [accept, error] of [
        ["text/csv", "events cannot be sent as csv"],
        ["application/x-parquet", "events cannot be sent as parquet"],
        ["application/xml", "could not find supported MIME type in Accept header"],
      ]
    ) {
      const r = await get(s, "/events", { Accept: accept });
      assert.equal(r.status, 400, accept);
      assert.equal(r.text, errorBody("invalid operation", error), accept);
    }
  }));

Deno.test("events: streams end when the hub closes; gone clients are dropped", () =>
  withServer(async (s) => {
    const a = await EventStream.open(s);
    const b = await EventStream.open(s);
    await b.close();
    // The server notices b is gone at its next event at the latest.
    await createPool(s, "test");
    await a.until((t) => t.includes("pool-new"), "pool-new");
    const deadline = performance.now() + 2000;
    while (s.server.service.events.subscribers > 1 && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(s.server.service.events.subscribers, 1);
    s.server.service.events.close();
    await a.until(() => a.ended, "the end of the stream");
    assert.equal(s.server.service.events.subscribers, 0);
    await a.close();
  }));

Deno.test("events: frames follow the order of the changes", () =>
  withServer(async (s) => {
    const ev = await EventStream.open(s, { Accept: "application/json" });
    const names: string[] = [];
    await createPool(s, "test");
    for (let i = 0; i < 20; i++) await load(s, "test", `{ts:${i}}`);
    await ev.until((t) => t.split("pool-commit").length === 21, "20 commits");
    for (const m of ev.text.matchAll(/^event: (\S+)$/gm)) names.push(m[1]);
    assert.deepEqual(names, [
      "pool-new",
      ...Array(20).fill(["branch-commit", "pool-commit"]).flat(),
    ]);
    const commits = [...ev.text.matchAll(/"commit_id":"(0x[0-9a-f]+)","pool_id"/g)].map((m) =>
      m[1]
    );
    assert.equal(new Set(commits).size, 20);
    await ev.close();
  }));

/** The ids of the frames in a stream's text, in order. */
const frameIds = (text: string) => [...text.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]);

Deno.test("events: streams with ids resume after Last-Event-ID with what was missed", () =>
  withServer(async (s) => {
    // Without asking, no ids (the Go client's reader takes event: and data: only).
    const plain = await EventStream.open(s, { Accept: "application/json" });
    const withIds = await EventStream.open(s, { Accept: "text/event-stream" });
    await createPool(s, "a");
    await createPool(s, "b");
    await withIds.until((t) => (t.match(/event: pool-new/g) ?? []).length === 2, "two pools");
    await plain.until((t) => (t.match(/event: pool-new/g) ?? []).length === 2, "two pools");
    assert.deepEqual(frameIds(plain.text), []);
    const ids = frameIds(withIds.text);
    assert.equal(ids.length, 2);
    // EventSource gets JSON data.
    assert.match(
      withIds.text,
      /event: pool-new\nid: \S+\ndata: \{"pool_id":"0x[0-9a-f]{40}"\}\n\n\n/,
    );
    await plain.close();
    await withIds.close();

    // Gone after the first; meanwhile a third pool; back with the first's id.
    await createPool(s, "c");
    const back = await EventStream.open(s, { Accept: "application/json", "Last-Event-ID": ids[0] });
    await back.until((t) => (t.match(/event: pool-new/g) ?? []).length === 2, "the missed two");
    const missed = frameIds(back.text);
    assert.equal(missed[0], ids[1]);
    // Then the live stream, in order.
    await createPool(s, "d");
    await back.until((t) => (t.match(/event: pool-new/g) ?? []).length === 3, "the live one");
    const all = frameIds(back.text);
    assert.equal(all.length, 3);
    assert.deepEqual(
      [...all].sort((x, y) => Number(x.split("-")[1]) - Number(y.split("-")[1])),
      all,
    );
    await back.close();

    // An id not known (from another run, or long gone): events-missed first.
    const lost = await EventStream.open(s, { Accept: "application/json", "Last-Event-ID": "zz-1" });
    await lost.until((t) => t.includes("event: events-missed"), "events-missed");
    assert.match(
      lost.text,
      /^event: events-missed\nid: \S+\ndata: \{"last_event_id":"zz-1"\}\n\n\n$/,
    );
    await lost.close();
  }));

Deno.test("events: the window of kept events is bounded", () =>
  withServer(async (s) => {
    const first = await EventStream.open(s, { Accept: "application/json", "Last-Event-ID": "x" });
    await first.until((t) => t.includes("events-missed"), "events-missed");
    const start = frameIds(first.text)[0];
    await first.close();
    for (const n of ["a", "b", "c", "d"]) await createPool(s, n);
    // Only the last three are kept: resuming from before them is not possible.
    const old = await EventStream.open(s, { Accept: "application/json", "Last-Event-ID": start });
    await old.until((t) => t.includes("event: events-missed"), "events-missed");
    await old.close();
  }, { eventWindowCount: 3 }));
