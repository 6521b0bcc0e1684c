// Routing on URLPattern (lake-api.md §1.2–1.4): a route is a method and a
// path template; path parameters match one segment each and are decoded
// once. As the reference: an unclean path (`//`, `/./`, `/../`) is
// redirected to its clean form, a trailing slash is not ignored, a known
// path with the wrong method gets 405 and an unknown path `404 page not
// found`.

import { invalid } from "../errors.ts";

export type Params = Record<string, string>;

interface Route<T> {
  method: string;
  pattern: URLPattern;
  target: T;
}

export type Match<T> =
  | { kind: "route"; target: T; params: Params }
  | { kind: "redirect"; location: string }
  | { kind: "method not allowed"; allowed: string[] }
  | { kind: "not found" };

/** Routes to targets of type T (handlers, route definitions). */
export class Router<T> {
  private routes: Route<T>[] = [];
  /** Routes by literal path, for paths no pattern with parameters also matches. */
  private exact: Map<string, Route<T>[]> | null = null;
  private literal = new Map<Route<T>, string>();

  add(method: string, path: string, target: T): this {
    const r = { method, pattern: new URLPattern({ pathname: path }), target };
    this.routes.push(r);
    if (!/[:*(){}?+\\]/.test(path)) this.literal.set(r, path);
    this.exact = null;
    return this;
  }

  /** The literal-path table: built once, from paths only their own routes match. */
  private exactRoutes(): Map<string, Route<T>[]> {
    if (this.exact !== null) return this.exact;
    const exact = new Map<string, Route<T>[]>();
    for (const path of new Set(this.literal.values())) {
      const all = this.routes.filter((x) => x.pattern.test({ pathname: path }));
      if (all.every((x) => this.literal.get(x) === path)) exact.set(path, all);
    }
    return this.exact = exact;
  }

  /** The methods some route accepts for a path. */
  methods(pathname: string): string[] {
    return this.routes.filter((r) => r.pattern.test({ pathname })).map((r) => r.method);
  }

  match(method: string, url: URL): Match<T> {
    const clean = cleanPath(url.pathname);
    if (clean !== url.pathname) return { kind: "redirect", location: clean + url.search };
    // The common case (POST /query): a literal path, found without matching patterns.
    const literal = this.exactRoutes().get(url.pathname);
    const hit = literal?.find((r) => r.method === method);
    if (hit !== undefined) return { kind: "route", target: hit.target, params: {} };
    let allowed: string[] | undefined;
    for (const r of this.routes) {
      const m = r.pattern.exec({ pathname: url.pathname });
      if (m === null) continue;
      if (r.method !== method) {
        (allowed ??= []).push(r.method);
        continue;
      }
      const params: Params = {};
      for (const [k, v] of Object.entries(m.pathname.groups)) {
        if (v !== undefined) params[k] = decodeSegment(k, v);
      }
      return { kind: "route", target: r.target, params };
    }
    if (allowed !== undefined) return { kind: "method not allowed", allowed };
    return { kind: "not found" };
  }
}

function decodeSegment(name: string, text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalid(`invalid path param ${JSON.stringify(name)}: bad escape in ${text}`);
  }
}

/** Go's path.Clean for URL paths: no empty, `.` or `..` elements; a trailing slash kept. */
export function cleanPath(p: string): string {
  if (p === "") return "/";
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  let clean = "/" + out.join("/");
  if (p.endsWith("/") && clean !== "/") clean += "/";
  return clean;
}
