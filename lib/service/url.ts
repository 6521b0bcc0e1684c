// A request's URL. Behind the connection gate (gate.ts) the server listens
// on a Unix socket and Deno names its requests' URLs `http+unix://host/…`;
// parsed as that non-special scheme they would differ from `http://` in the
// details (default ports, backslashes), so the scheme is put back first.

export function requestURL(req: Request): URL {
  const u = req.url;
  return new URL(u.startsWith("http+unix:") ? "http:" + u.slice(10) : u);
}
