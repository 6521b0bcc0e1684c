// Loads over HTTP (POST /pool/{pool}/branch/{branch}): every input format by
// Content-Type and by detection, gzip, streamed bodies, read errors as
// warnings, the reference's error bodies (curl-load-error.yaml,
// load-empty.yaml, curl-add-gzip.yaml) and the Zed-Commit header.

import assert from "node:assert/strict";
import { openReader } from "../../lib/formats/detect.ts";
import { ByteInput } from "../../lib/formats/io.ts";
import { openWriter } from "../../lib/formats/registry.ts";
import {
  createPool,
  errorBody,
  load,
  post,
  rawHTTP,
  rawRequest,
  type TestServer,
  withServer,
  zsonLines,
} from "./helpers.ts";

const encoder = new TextEncoder();

/** ZSON text re-encoded in another format. */
async function encodeAs(format: string, zson: string): Promise<Uint8Array> {
  const reader = await openReader(ByteInput.fromBytes(encoder.encode(zson)), "zson");
  const chunks: Uint8Array[] = [];
  const w = openWriter(format, (c) => {
    chunks.push(c.slice());
    return Promise.resolve();
  }, { pretty: 0 });
  for (let b = await reader.read(); b !== null; b = await reader.read()) await w.write(b);
  await w.end();
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const s = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/** The newest commit's author, message and meta. */
async function lastCommit(s: TestServer, pool = "test"): Promise<string> {
  const lines = await zsonLines(
    s,
    `from ${pool}@main:log | has(message) | head 1 | yield {author,message,meta}`,
  );
  return lines[0];
}

const DATA = '{ts:1,s:"a"}\n{ts:2,s:"b"}\n';

Deno.test("load: a curl -d body (form Content-Type) is detected; api.CommitResponse", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const r = await post(s, "/pool/test/branch/main", DATA, {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("Content-Type"), "application/x-zson");
    assert.match(
      r.text,
      /^\{commit:0x[0-9a-f]{40}\(=ksuid\.KSUID\),warnings:\[\]\(\[string\]\)\}\(=api\.CommitResponse\)\n$/,
    );
    const j = await post(s, "/pool/test/branch/main", "{ts:3}", { Accept: "application/json" });
    assert.match(j.text, /^\{"commit":"0x[0-9a-f]{40}","warnings":\[\]\}\n$/);
    assert.deepEqual(await zsonLines(s, "from test"), [
      "{ts:3}",
      '{ts:2,s:"b"}',
      '{ts:1,s:"a"}',
    ]);
  }));

Deno.test("load: curl-add-gzip.yaml", () =>
  withServer(async (s) => {
    const pool = JSON.parse(
      (await post(s, "/pool", '{"name":"test"}', { Accept: "application/json" })).text,
    );
    // `gzip -c <<<{x:1} | base64`, as in the reference's test.
    const body = Uint8Array.from(atob("H4sIAMaiGmEAA6uusDKs5QIAaI7+2QYAAAA="), (c) =>
      c.charCodeAt(0));
    const r = await post(s, `/pool/${pool.pool.id}/branch/main`, body);
    assert.equal(r.status, 200);
    assert.equal(
      r.text.replace(/0x[0-9a-f]{40}/, "0"),
      "{commit:0(=ksuid.KSUID),warnings:[]([string])}(=api.CommitResponse)\n",
    );
    assert.deepEqual(await zsonLines(s, "from test"), ["{x:1}"]);
  }));

Deno.test("load: every input format, by Content-Type and detected", () =>
  withServer(async (s) => {
    await createPool(s, "test", { order: "asc", keys: [["ts"]] });
    const formats: [string, string, boolean][] = [
      ["zson", "application/x-zson", true],
      ["json", "application/json", true],
      ["ndjson", "application/x-ndjson", true],
      ["zjson", "application/x-zjson", true],
      ["zng", "application/x-zng", true],
      ["csv", "text/csv", true],
      ["zeek", "application/x-zeek", true],
      ["parquet", "application/x-parquet", false],
    ];
    let k = 0;
    for (const [format, type, detectable] of formats) {
      const body = await encodeAs(format, DATA);
      const bodies: [Uint8Array, Record<string, string>][] = [[body, { "Content-Type": type }]];
      if (detectable) bodies.push([body, {}], [await gzip(body), {}]);
      for (const [b, headers] of bodies) {
        const what = `${format} ${JSON.stringify(headers)}`;
        const pool = `f${k++}`;
        await createPool(s, pool);
        const r = await post(s, `/pool/${pool}/branch/main`, b, {
          Accept: "application/json",
          ...headers,
        });
        assert.equal(r.status, 200, `${what}: ${r.text}`);
        assert.deepEqual(JSON.parse(r.text).warnings, [], what);
        const got = await zsonLines(s, `from ${pool} | sort ts | yield {ts:int64(ts),s}`);
        assert.deepEqual(got, ['{ts:1,s:"a"}', '{ts:2,s:"b"}'], what);
      }
    }
    // Line input: each line a string.
    await load(s, "test", "one\ntwo\n", "main", { "Content-Type": "application/x-line" });
    assert.deepEqual(await zsonLines(s, "from test"), ['"one"', '"two"']);
  }));

Deno.test("load: curl-load-error.yaml and other request errors", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const r = await post(s, "/pool/test/branch/main", "This is not a detectable format.", {
      "Content-Type": "application/x-www-form-urlencoded",
    });
    assert.equal(r.status, 400);
    assert.equal(r.headers.get("Content-Type"), "application/json");
    assert.equal(
      r.text,
      '{"type":"Error","kind":"invalid operation","error":"format detection error\\n\\tzeek: ' +
        "line 1: bad types/fields definition in zeek header\\n\\tzjson: line 1: invalid character " +
        "'T' looking for beginning of value\\n\\tzson: ZSON syntax error\\n\\tzng: malformed zng " +
        "record\\n\\tzng21: malformed zng record\\n\\tcsv: line 1: EOF\\n\\tjson: invalid character 'T' looking for beginning of " +
        "value\\n\\tparquet: auto-detection not supported\\n\\tzst: auto-detection not supported" +
        '\\n\\tline: auto-detection not supported"}\n',
    );
    const cases: [string, string | Uint8Array, Record<string, string>, number, string][] = [
      [
        "/pool/test/branch/main",
        "",
        { "Content-Type": "unsupported" },
        400,
        errorBody("invalid operation", "unsupported MIME type: unsupported"),
      ],
      [
        "/pool/test/branch/main",
        "",
        { "Content-Type": "application/" },
        400,
        errorBody("invalid operation", "mime: expected token after slash"),
      ],
      [
        "/pool/test/branch/main",
        "",
        {},
        400,
        errorBody("invalid operation", "no records in request"),
      ],
      [
        "/pool/test/branch/main",
        "  \n",
        {},
        400,
        errorBody("invalid operation", "no records in request"),
      ],
      [
        "/pool/test/branch/main",
        await gzip(new Uint8Array()),
        {},
        400,
        errorBody("invalid operation", "no records in request"),
      ],
      [
        "/pool/test/branch/nope",
        "{x:1}",
        {},
        404,
        errorBody("item does not exist", '"nope": branch not found'),
      ],
      [
        "/pool/nope/branch/main",
        "{x:1}",
        {},
        404,
        errorBody("item does not exist", "nope: pool not found"),
      ],
      // The pool is resolved first, then the Content-Type and the header, then the branch.
      [
        "/pool/nope/branch/main",
        "{x:1}",
        { "Content-Type": "bad" },
        404,
        errorBody("item does not exist", "nope: pool not found"),
      ],
      [
        "/pool/test/branch/nope",
        "{x:1}",
        { "Content-Type": "bad" },
        400,
        errorBody("invalid operation", "unsupported MIME type: bad"),
      ],
      [
        "/pool/test/branch/nope",
        "{x:1}",
        { "Zed-Commit": "{" },
        400,
        errorBody(
          "invalid operation",
          "load endpoint encountered invalid JSON in Zed-Commit header: unexpected end of JSON input",
        ),
      ],
      [
        "/pool/test/branch/main",
        "{x:1}",
        { "Zed-Commit": '{"meta":"{a:"}' },
        400,
        errorBody("invalid operation", "invalid commit metadata in request"),
      ],
    ];
    for (const [path, body, headers, status, text] of cases) {
      const r = await post(s, path, body, headers);
      assert.equal(r.status, status, `${path} ${JSON.stringify(headers)}`);
      assert.equal(r.text, text, `${path} ${JSON.stringify(headers)}`);
    }
    assert.deepEqual(await zsonLines(s, "from test"), []);
  }));

Deno.test("load: a read error ends the input; what came before is committed with a warning", () =>
  withServer(async (s) => {
    await createPool(s, "test", { order: "asc", keys: [["x"]] });
    const cases: [string, Record<string, string>, string][] = [
      ['{"x":1} {"x":2', { "Content-Type": "application/json" }, "EOF"],
      ["{x:3} {x:1}}", {}, "ZSON syntax error"],
      ["x,b\n4,2\n3\n", { "Content-Type": "text/csv" }, "record on line 3: wrong number of fields"],
    ];
    for (const [body, headers, warning] of cases) {
      const r = await post(s, "/pool/test/branch/main", body, {
        Accept: "application/json",
        ...headers,
      });
      assert.equal(r.status, 200, r.text);
      // The reference prefixes Go's rendering of its reader to the message.
      assert.deepEqual(JSON.parse(r.text).warnings, [warning]);
    }
    assert.deepEqual(await zsonLines(s, "from test | yield x"), ["1", "1", "3", "4."]);
  }));

Deno.test("load: a large body is streamed in", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const n = 20000;
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (i >= n) return c.close();
        let text = "";
        for (let k = 0; k < 1000; k++, i++) text += `{ts:${i},s:"${"x".repeat(100)}"}\n`;
        c.enqueue(encoder.encode(text));
      },
    });
    const r = await fetch(`${s.url}/pool/test/branch/main`, { method: "POST", body });
    assert.equal(r.status, 200, await r.text());
    assert.deepEqual(await zsonLines(s, "from test | count()"), [`{count:${n}(uint64)}`]);
  }));

Deno.test("Zed-Commit: author, body and meta are recorded", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    await load(s, "test", "{x:1}", "main", {
      "Zed-Commit": '{"author":"alice","body":"first load","meta":"{a:1,b:\\"x\\"}"}',
    });
    assert.equal(await lastCommit(s), '{author:"alice",message:"first load",meta:{a:1,b:"x"}}');
    // Keys match case-insensitively, as Go's decoder matches them; unknown keys are ignored.
    await load(s, "test", "{x:2}", "main", {
      "Zed-Commit": '{"AUTHOR":"bob","Body":"second","other":1,"meta":null}',
    });
    assert.equal(await lastCommit(s), '{author:"bob",message:"second",meta:null}');
    // No header: no author, the generated message.
    await load(s, "test", "{x:3}");
    assert.match(
      await lastCommit(s),
      /^\{author:"",message:"loaded 1 data object\\n\\n {2}\w{27} 1 record in 14 data bytes\\n",meta:null\}$/,
    );
  }));

Deno.test("Zed-Commit: \\u escapes and raw UTF-8 bytes", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    // zed-js and Python send \u escapes.
    await load(s, "test", "{x:1}", "main", {
      "Zed-Commit": '{"author":"zo\\u00eb","body":"\\u30ed\\u30b0 \\ud83d\\ude00"}',
    });
    assert.equal(await lastCommit(s), '{author:"zoë",message:"ログ 😀",meta:null}');
    // The Go client sends the UTF-8 bytes as they are; fetch sends a header's
    // characters as bytes, so each byte goes as one character.
    const utf8 = encoder.encode('{"author":"zoë","body":"ログ"}');
    await load(s, "test", "{x:2}", "main", { "Zed-Commit": String.fromCharCode(...utf8) });
    assert.equal(await lastCommit(s), '{author:"zoë",message:"ログ",meta:null}');
    // The same over a raw connection.
    const res = await rawRequest(
      s,
      rawHTTP("POST", "/pool/test/branch/main", [
        ["Zed-Commit", encoder.encode('{"author":"Jürgen","body":"Größe ✓"}')],
      ], encoder.encode("{x:3}")),
    );
    assert.match(res, /^HTTP\/1\.1 200 OK\r\n/);
    assert.equal(await lastCommit(s), '{author:"Jürgen",message:"Größe ✓",meta:null}');
  }));

Deno.test("Zed-Commit: invalid JSON gets the reference's 400 messages", () =>
  withServer(async (s) => {
    await createPool(s, "test");
    const prefix = "load endpoint encountered invalid JSON in Zed-Commit header: ";
    const cases: [string, string][] = [
      ['{"author":', "unexpected end of JSON input"],
      ["[]", "json: cannot unmarshal array into Go value of type api.CommitMessage"],
      ['"s"', "json: cannot unmarshal string into Go value of type api.CommitMessage"],
      [
        '{"author":1}',
        "json: cannot unmarshal number into Go struct field CommitMessage.Author of type string",
      ],
      [
        '{"Body":true,"author":[1]}',
        "json: cannot unmarshal bool into Go struct field CommitMessage.Body of type string",
      ],
      [
        '{"meta":{}}',
        "json: cannot unmarshal object into Go struct field CommitMessage.Meta of type string",
      ],
      ["tru", "invalid character ' ' in literal true (expecting 'e')"],
      ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
      ['{"a":"\\u12"}', `invalid character '"' in \\u hexadecimal character escape`],
      ['{"a" 1}', "invalid character '1' after object key"],
      ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
      ['{"a":1 x', "invalid character 'x' after object key:value pair"],
      ["[1 2]", "invalid character '2' after array element"],
      ["1.", "invalid character ' ' after decimal point in numeric literal"],
      ['{"a":-}', "invalid character '}' in numeric literal"],
      ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
      ['{"a":01}', "invalid character '1' after object key:value pair"],
      ["{} x", "invalid character 'x' after top-level value"],
      ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
      ["x", "invalid character 'x' looking for beginning of value"],
    ];
    for (const [header, message] of cases) {
      const r = await post(s, "/pool/test/branch/main", "{x:1}", { "Zed-Commit": header });
      assert.equal(r.status, 400, header);
      assert.equal(r.text, errorBody("invalid operation", prefix + message), header);
    }
    // null is an empty commit message.
    await load(s, "test", "{x:1}", "main", { "Zed-Commit": "null" });
    assert.deepEqual(await zsonLines(s, "from test"), ["{x:1}"]);
  }));
