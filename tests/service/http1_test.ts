import assert from "node:assert";
import { type Head, Http1Framing, parseHead } from "../../lib/service/http1.ts";
import { requestBody } from "../../lib/service/gate.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A framing that records its events as text. */
function recorder(
  side: "request" | "response",
  decide?: (h: Head) => "framed" | "none" | "opaque",
) {
  const log: string[] = [];
  const f = new Http1Framing(side, {
    headStart: () => log.push("start"),
    head: (h) => {
      log.push(`head ${h.method || h.status}`);
      return decide?.(h) ?? "framed";
    },
    end: () => log.push("end"),
  }, 1024);
  return { f, log };
}

/** Feeds text whole, and again one byte at a time; both must log the same. */
function feedBothWays(side: "request" | "response", text: string): string[] {
  // As the gate says: an interim answer has no body.
  const decide = (h: Head) => h.status >= 100 && h.status < 200 ? "none" : "framed";
  const whole = recorder(side, decide);
  whole.f.feed(enc(text));
  const bytes = recorder(side, decide);
  for (const b of enc(text)) bytes.f.feed(new Uint8Array([b]));
  assert.deepStrictEqual(bytes.log, whole.log);
  return whole.log;
}

Deno.test("http1: a GET ends at its head; a body of Content-Length ends at its last byte", () => {
  assert.deepStrictEqual(feedBothWays("request", "GET / HTTP/1.1\r\nHost: a\r\n\r\n"), [
    "start",
    "head GET",
    "end",
  ]);
  const { f, log } = recorder("request");
  f.feed(enc("POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhell"));
  assert.deepStrictEqual(log, ["start", "head POST"]);
  assert(f.inBody);
  f.feed(enc("o"));
  assert.deepStrictEqual(log, ["start", "head POST", "end"]);
  assert(f.between);
});

Deno.test("http1: chunked bodies with extensions and trailers, then a pipelined request", () => {
  const text = "POST /l HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" +
    "5;ext=1\r\nhello\r\n10\r\n0123456789abcdef\r\n0\r\nX-Trailer: y\r\n\r\n" +
    "\r\nGET /next HTTP/1.1\r\n\r\n";
  assert.deepStrictEqual(feedBothWays("request", text), [
    "start",
    "head POST",
    "end",
    "start",
    "head GET",
    "end",
  ]);
});

Deno.test("http1: responses: an interim 100, a chunked answer, and one without a length", () => {
  const text = "HTTP/1.1 100 Continue\r\n\r\n" +
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
  assert.deepStrictEqual(feedBothWays("response", text), [
    "start",
    "head 100",
    "end",
    "start",
    "head 200",
    "end",
  ]);
  const { f } = recorder("response");
  f.feed(enc("HTTP/1.1 200 OK\r\n\r\nbody to the close"));
  assert(f.opaque, "a response without a length runs to the close");
  const head = recorder("response", () => "none");
  head.f.feed(enc("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n"));
  assert.deepStrictEqual(head.log, ["start", "head 200", "end"], "the owner said no body (HEAD)");
});

Deno.test("http1: heads it cannot frame make the stream opaque; long heads are flagged", () => {
  for (
    const head of [
      "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
      "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
      "POST / HTTP/1.1\r\nno colon here\r\n\r\n",
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ]
  ) {
    const { f } = recorder("request");
    f.feed(enc(head));
    assert(f.opaque, JSON.stringify(head));
  }
  const { f } = recorder("request");
  f.feed(enc("GET / HTTP/1.1\r\nX: " + "a".repeat(2000)));
  assert(f.headTooLarge && f.opaque);
});

Deno.test("http1: parseHead reads the framing fields", () => {
  assert.deepStrictEqual(parseHead("PUT /a HTTP/1.1\nContent-Length:  12 \n"), {
    method: "PUT",
    status: 0,
    length: 12,
    chunked: false,
  });
  assert.deepStrictEqual(parseHead("HTTP/1.1 204 No Content\nTransfer-Encoding: gzip, chunked\n"), {
    method: "",
    status: 204,
    length: -1,
    chunked: true,
  });
  assert.strictEqual(parseHead("nonsense\n"), null);
});

Deno.test("http1: the HTTP/2 preface and CONNECT leave HTTP/1.1 framing for the gate", () => {
  const preface = recorder("request", requestBody);
  preface.f.feed(enc("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x12\x04"));
  assert(preface.f.opaque);
  assert.deepStrictEqual(preface.log, ["start", "head PRI"]);
  const connect = recorder("request", requestBody);
  connect.f.feed(enc("CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n"));
  assert(connect.f.opaque);
  const get = recorder("request", requestBody);
  get.f.feed(enc("GET / HTTP/1.1\r\n\r\n"));
  assert(get.f.between);
});
