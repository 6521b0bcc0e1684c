// The web console's files, served by `loch serve` at `/` and under
// `/console/`. They are imported as text so that `deno compile` embeds them
// with the program (nothing is read from disk at run time); uPlot, the
// histogram's chart library, comes the same way from its pinned npm package.
// The console is a static page: everything it shows it asks of the public
// API with the caller's own token (assets/api.js).

import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };
import uplotJs from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import api from "./assets/api.js" with { type: "text" };
import app from "./assets/app.js" with { type: "text" };
import histogram from "./assets/histogram.js" with { type: "text" };
import index from "./assets/index.html" with { type: "text" };
import style from "./assets/style.css" with { type: "text" };
import table from "./assets/table.js" with { type: "text" };
import zjson from "./assets/zjson.js" with { type: "text" };

export interface Asset {
  body: string;
  contentType: string;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ["/", { body: index, contentType: "text/html; charset=utf-8" }],
  ["/console/app.js", { body: app, contentType: JS }],
  ["/console/api.js", { body: api, contentType: JS }],
  ["/console/histogram.js", { body: histogram, contentType: JS }],
  ["/console/table.js", { body: table, contentType: JS }],
  ["/console/zjson.js", { body: zjson, contentType: JS }],
  ["/console/style.css", { body: style, contentType: CSS }],
  ["/console/uplot.js", { body: uplotJs, contentType: JS }],
  ["/console/uplot.css", { body: uplotCss, contentType: CSS }],
]);

/** The console file served at a path, or undefined. */
export function consoleAsset(path: string): Asset | undefined {
  return ASSETS.get(path);
}

/**
 * Headers every console file carries: scripts and styles only from this
 * server (uPlot sets element styles, which CSP allows through the DOM), no
 * framing by other pages, no sniffing, no referrer sent on.
 */
export function consoleHeaders(asset: Asset): Headers {
  return new Headers({
    "Content-Type": asset.contentType,
    "Content-Security-Policy":
      "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
  });
}
