// parse_uri (language.md §6): a port of the parts of Go's net/url.Parse the
// function exposes, with Go's error texts.

import { zctx } from "../../zed/context.ts";
import { quoteGoString } from "../../zed/goquote.ts";
import { normalizeMap } from "../../zed/normalize.ts";
import { TypeString, TypeUint16, typeUnder } from "../../zed/types.ts";
import { type Body, Value } from "../../zed/value.ts";
import { errorValue } from "../runtime/values.ts";
import { unary } from "./define.ts";

const QUERY = zctx.lookupMap(TypeString, zctx.lookupArray(TypeString));
const URI = zctx.lookupRecordOf(
  ["scheme", "opaque", "user", "password", "host", "port", "path", "query", "fragment"],
  [
    TypeString,
    TypeString,
    TypeString,
    TypeString,
    TypeString,
    TypeUint16,
    TypeString,
    QUERY,
    TypeString,
  ],
);

class UrlError extends Error {}

interface Url {
  scheme: string;
  opaque: string;
  user: string | null;
  password: string | null;
  host: string;
  path: string;
  rawQuery: string;
  fragment: string;
}

type Mode = "path" | "host" | "user" | "fragment" | "query";

const HEX = /^[0-9a-fA-F]{2}$/;

/** Go's url.unescape (percent-decoding; '+' is a space only in query components). */
function unescape(s: string, mode: Mode): string {
  if (s.indexOf("%") < 0 && (mode !== "query" || s.indexOf("+") < 0)) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "%") {
      const h = s.slice(i + 1, i + 3);
      if (!HEX.test(h)) {
        const bad = s.slice(i, i + 3);
        throw new UrlError(`invalid URL escape ${quoteGoString(bad)}`);
      }
      bytes.push(parseInt(h, 16));
      i += 2;
    } else if (c === "+" && mode === "query") {
      bytes.push(0x20);
    } else {
      for (const b of new TextEncoder().encode(c)) bytes.push(b);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z")) continue;
    if ((c >= "0" && c <= "9") || c === "+" || c === "-" || c === ".") {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === ":") {
      if (i === 0) throw new UrlError("missing protocol scheme");
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ["", raw];
  }
  return ["", raw];
}

function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  return port[0] === ":" && /^[0-9]*$/.test(port.slice(1));
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) {
      throw new UrlError(`invalid port ${quoteGoString(colonPort)} after host`);
    }
  } else {
    const i = host.lastIndexOf(":");
    if (i >= 0 && !validOptionalPort(host.slice(i))) {
      throw new UrlError(`invalid port ${quoteGoString(host.slice(i))} after host`);
    }
  }
  return unescape(host, "host");
}

const USERINFO_RE = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

function parseAuthority(u: Url, authority: string): void {
  const i = authority.lastIndexOf("@");
  u.host = parseHost(i < 0 ? authority : authority.slice(i + 1));
  if (i < 0) return;
  const info = authority.slice(0, i);
  if (!USERINFO_RE.test(info)) throw new UrlError("net/url: invalid userinfo");
  const colon = info.indexOf(":");
  if (colon < 0) {
    u.user = unescape(info, "user");
  } else {
    u.user = unescape(info.slice(0, colon), "user");
    u.password = unescape(info.slice(colon + 1), "user");
  }
}

// deno-lint-ignore no-control-regex
const CTL_RE = /[\x00-\x1f\x7f]/;

function parse(raw: string): Url {
  const u: Url = {
    scheme: "",
    opaque: "",
    user: null,
    password: null,
    host: "",
    path: "",
    rawQuery: "",
    fragment: "",
  };
  if (CTL_RE.test(raw)) throw new UrlError("net/url: invalid control character in URL");
  if (raw === "*") {
    u.path = "*";
    return u;
  }
  let rest: string;
  [u.scheme, rest] = getScheme(raw);
  u.scheme = u.scheme.toLowerCase();
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (u.scheme !== "") {
      u.opaque = rest;
      return u;
    }
    const slash = rest.indexOf("/");
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.indexOf(":") >= 0) {
      throw new UrlError("first path segment in URL cannot contain colon");
    }
  }
  if ((u.scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    parseAuthority(u, authority);
  }
  u.path = unescape(rest, "path");
  return u;
}

/** Go's url.Parse: the fragment is split off first. */
function parseUrl(raw: string): Url {
  const hash = raw.indexOf("#");
  const main = hash < 0 ? raw : raw.slice(0, hash);
  let u: Url;
  try {
    u = parse(main);
  } catch (e) {
    if (!(e instanceof UrlError)) throw e;
    throw new UrlError(`parse ${quoteGoString(main)}: ${e.message}`);
  }
  if (hash >= 0) {
    try {
      u.fragment = unescape(raw.slice(hash + 1), "fragment");
    } catch (e) {
      if (!(e instanceof UrlError)) throw e;
      throw new UrlError(`parse ${quoteGoString(raw)}: ${e.message}`);
    }
  }
  return u;
}

/** Go's URL.Hostname and URL.Port. */
function splitHostPort(host: string): [string, string] {
  let h = host, port = "";
  const colon = host.lastIndexOf(":");
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    h = host.slice(0, colon);
    port = host.slice(colon + 1);
  }
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return [h, port];
}

/** Go's url.ParseQuery, ignoring malformed pairs; values in order per key. */
function parseQuery(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of raw.split("&")) {
    if (part === "" || part.indexOf(";") >= 0) continue;
    const eq = part.indexOf("=");
    let key: string, value: string;
    try {
      key = unescape(eq < 0 ? part : part.slice(0, eq), "query");
      value = unescape(eq < 0 ? "" : part.slice(eq + 1), "query");
    } catch {
      continue;
    }
    const list = out.get(key);
    if (list === undefined) out.set(key, [value]);
    else list.push(value);
  }
  return out;
}

function orNull(s: string | null): string | null {
  return s === "" ? null : s;
}

unary("parse_uri", (a) => {
  if (typeUnder(a.type) !== TypeString || a.body === null) {
    return errorValue("parse_uri: non-empty string arg required");
  }
  const s = a.body as string;
  let u: Url;
  try {
    u = parseUrl(s);
  } catch (e) {
    if (!(e instanceof UrlError)) throw e;
    return errorValue(`parse_uri: ${e.message} (${quoteGoString(s)})`);
  }
  const [host, portText] = splitHostPort(u.host);
  let port: number | null = null;
  if (portText !== "") {
    port = /^[0-9]+$/.test(portText) ? Number(portText) : NaN;
    if (!(port <= 65535)) {
      return errorValue(`parse_uri: invalid port: ${portText} (${quoteGoString(s)})`);
    }
  }
  let query: Body = null;
  const q = parseQuery(u.rawQuery);
  if (q.size > 0) {
    const kv: Body[] = [];
    for (const [k, vs] of q) kv.push(k, vs);
    query = normalizeMap(TypeString, kv);
  }
  return new Value(URI, [
    orNull(u.scheme),
    orNull(u.opaque),
    orNull(u.user),
    u.password,
    orNull(host),
    port,
    orNull(u.path),
    query,
    orNull(u.fragment),
  ]);
});
