/// <reference lib="dom" />
// The web console end to end in headless Chromium (Debian's `chromium`,
// which .ci/run installs), driven by puppeteer-core: create a pool, load a
// file, run queries, page the table, read its type hovers, see the
// histogram's bars and the server's errors where they happened, and use a
// token when the server wants one. Skipped, saying so, where no Chromium
// is installed. A screenshot is left in tests/artifacts/.

import assert from "node:assert/strict";
import puppeteer, { type Browser, type ElementHandle, type Page } from "puppeteer-core";
import { Authenticator } from "../../../lib/service/auth/mod.ts";
import { addToken } from "../../../lib/service/auth/tokens.ts";
import { post, type ServerOptions, type TestServer, withServer } from "../helpers.ts";

const FIXTURE = new URL("../../fixtures/zeek-sample.ndjson.gz", import.meta.url).pathname;
const ARTIFACTS = new URL("../../artifacts/", import.meta.url).pathname;

function chromiumPath(): string | undefined {
  const candidates = [
    Deno.env.get("CHROMIUM_PATH"),
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
  ];
  return candidates.find((p) => {
    if (!p) return false;
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
}

const CHROMIUM = chromiumPath();
if (CHROMIUM === undefined) {
  console.warn(
    "console browser tests skipped: no chromium (apt-get install chromium, or set CHROMIUM_PATH)",
  );
}

/** Runs fn with a page on a fresh server; the browser is always closed. */
function withConsole(
  fn: (page: Page, s: TestServer) => Promise<void>,
  opts: ServerOptions = {},
): Promise<void> {
  return withServer(async (s) => {
    let browser: Browser | undefined;
    try {
      browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
      });
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      const pageErrors: string[] = [];
      page.on("pageerror", (e) => pageErrors.push(String(e)));
      await page.goto(s.url);
      await page.waitForSelector("body[data-ready]");
      await fn(page, s);
      assert.deepEqual(pageErrors, [], "the console threw");
    } finally {
      await browser?.close();
    }
  }, opts);
}

const text = (page: Page, sel: string) => page.$eval(sel, (e) => e.textContent ?? "");
const visible = (page: Page, sel: string) => page.waitForSelector(`${sel}:not([hidden])`);

async function createPool(page: Page, name: string): Promise<void> {
  await page.$eval("#pool-name", (e) => (e as HTMLInputElement).value = "");
  await page.type("#pool-name", name);
  await page.click("#create-pool button");
}

/** Picks a file for loading, as the file dialog would. */
async function pick(page: Page, path: string): Promise<void> {
  const input = await page.$("input#file") as ElementHandle<HTMLInputElement> | null;
  await input!.uploadFile(path);
}

/** Runs the editor's query with the keyboard; waits for the first page or an error. */
async function run(page: Page, query: string): Promise<void> {
  await page.$eval("#query", (e) => (e as HTMLTextAreaElement).value = "");
  await page.type("#query", query);
  await page.keyboard.down("Control");
  await page.keyboard.press("Enter");
  await page.keyboard.up("Control");
  await page.waitForFunction(() =>
    document.getElementById("page-info")?.closest("[hidden]") === null ||
    !document.getElementById("query-error")!.hidden
  );
}

/** The pixels of the histogram's canvas in its bar colour. */
function barPixels(page: Page): Promise<number> {
  return page.$eval("#histogram canvas", (c) => {
    const canvas = c as HTMLCanvasElement;
    const d = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      // The bars' rgb(42,111,219), at any opacity (the canvas has no background).
      if (
        d[i + 3] > 0 && Math.abs(d[i] - 42) < 8 && Math.abs(d[i + 1] - 111) < 8 &&
        Math.abs(d[i + 2] - 219) < 8
      ) n++;
    }
    return n;
  });
}

Deno.test({
  name: "console: create a pool, load a file, query, page, hover, histogram, errors",
  ignore: CHROMIUM === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withConsole(async (page, s) => {
      assert.match(await text(page, "#version"), /loch/);
      assert.match(await text(page, "#pools"), /no pools yet/);

      await createPool(page, "zeek");
      await visible(page, "#pool-detail");
      assert.equal(await text(page, "#pool-title"), "zeek");
      assert.equal(
        await page.$eval("#query", (e) => (e as HTMLTextAreaElement).value),
        "from zeek",
      );

      // Loading by picking a file; the commit shows in the log.
      await pick(page, FIXTURE);
      await page.waitForFunction(() =>
        /^loaded /.test(document.getElementById("load-status")!.textContent ?? "")
      );
      await page.waitForFunction(() => document.querySelectorAll("#log li").length === 1);
      assert.match(await text(page, "#log"), /loaded 1 data object/);
      assert.match(await text(page, "#pools"), /zeek.*KB · ts desc/);

      // The table pages through the results, 100 rows at a time.
      await run(page, "from zeek");
      assert.match(await text(page, "#page-info"), /^rows 1–100 of \d+\+?$/);
      assert.equal(await page.$$eval("#results tbody tr", (r) => r.length), 100);
      const firstHeaders = await page.$$eval("#results th", (th) => th.map((e) => e.textContent));
      assert.deepEqual(firstHeaders.slice(0, 3), ["_path", "_write_ts", "ts"]);
      await page.click("#next");
      await page.waitForFunction(() =>
        /^rows 101–200/.test(document.getElementById("page-info")!.textContent ?? "")
      );
      for (let i = 0; i < 3; i++) await page.click("#next");
      await page.waitForFunction(() =>
        document.getElementById("page-info")!.textContent === "rows 401–413 of 413"
      );
      assert.equal(await page.$eval("#next", (b) => (b as HTMLButtonElement).disabled), true);
      // Records without the pool key sort last (a "nulls last" order).
      const headers = await page.$$eval("#results th", (th) => th.map((e) => e.textContent));
      assert.deepEqual(headers, ["_path", "_write_ts", "name"]);

      // The histogram of the query has bars.
      await page.waitForSelector("#histogram canvas");
      await page.waitForFunction(() => document.querySelector("#histogram canvas") !== null);
      assert.ok(await barPixels(page) > 50, "the histogram has bars");
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: `${ARTIFACTS}console.png` });

      // Each cell's hover is its Zed type.
      await run(page, "from zeek | count() by _path | sort -r count, _path");
      const first = await page.$$eval(
        "#results tbody tr:first-child td",
        (td) => td.map((e) => [e.textContent, e.getAttribute("title")]),
      );
      assert.deepEqual(first, [["x509", "string"], ["15", "uint64"]]);

      // Errors show the server's own message where they happened.
      await run(page, "from zeek | count(");
      const queryError = await text(page, "#query-error");
      const direct = await post(s, "/query", JSON.stringify({ query: "from zeek | count(" }), {
        "Content-Type": "application/json",
        Accept: "application/json",
      });
      assert.equal(queryError, (JSON.parse(direct.text) as { error: string }).error);

      await createPool(page, "zeek");
      await visible(page, "#create-error");
      assert.equal(await text(page, "#create-error"), "zeek: pool already exists");

      const junk = await Deno.makeTempFile({ suffix: ".txt" });
      await Deno.writeTextFile(junk, "this is not\x00 any format {[\n");
      await pick(page, junk);
      await visible(page, "#load-error");
      assert.match(await text(page, "#load-error"), /format detection error/);
      await Deno.remove(junk);
    }),
});

Deno.test({
  name: "console: asks for a token when the server wants one and uses it",
  ignore: CHROMIUM === undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "loch-console-auth-" });
    try {
      const tokens = `${dir}/tokens.json`;
      const reader = await addToken(tokens, { name: "reader", access: "read" });
      const auth = await Authenticator.open({ tokensPath: tokens });
      await withConsole(async (page) => {
        // Without a token the pools cannot be listed: the box shows, with the reason.
        await visible(page, "#token-form");
        assert.equal(await text(page, "#pools-error"), "missing authentication credentials");
        await page.type("#token", reader);
        await page.click("#token-form button");
        await page.waitForFunction(() =>
          /no pools yet/.test(document.getElementById("pools")!.textContent ?? "")
        );
        assert.equal(await page.$eval("#pools-error", (e) => (e as HTMLElement).hidden), true);
        // A read-only token cannot create a pool; the server's 403 shows by the form.
        await createPool(page, "p");
        await visible(page, "#create-error");
        assert.match(await text(page, "#create-error"), /this token may only read/);
      }, { auth });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
