// Minimal path helpers (std/path is on JSR, which these machines cannot reach).

export function join(...parts: string[]): string {
  const joined = parts.filter((p) => p.length > 0).join("/");
  const abs = joined.startsWith("/");
  const out: string[] = [];
  for (const seg of joined.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(seg);
  }
  return (abs ? "/" : "") + out.join("/");
}

export function fromFileUrl(u: URL): string {
  return decodeURIComponent(u.pathname);
}
