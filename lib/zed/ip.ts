// IP addresses and networks: bodies are network-order bytes (ip: 4 or 16;
// net: address then mask, 8 or 32). Text follows Go's netip (ip) and
// net.IPNet (net) formatting and net.ParseIP / net.ParseCIDR parsing.

function parseIPv4(s: string): Uint8Array | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (p.length === 0 || p.length > 3 || !/^\d+$/.test(p)) return undefined;
    if (p.length > 1 && p[0] === "0") return undefined; // Go rejects leading zeros
    const n = Number(p);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIPv6(s: string): Uint8Array | undefined {
  const out = new Uint8Array(16);
  let ellipsis = -1;
  let i = 0;
  if (s.startsWith("::")) {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return out;
  }
  while (i < 16) {
    // A trailing IPv4 address fills the last 4 bytes.
    const colon = s.indexOf(":");
    const head = colon < 0 ? s : s.slice(0, colon);
    if (head.indexOf(".") >= 0) {
      if (colon >= 0 || i > 12) return undefined;
      const v4 = parseIPv4(head);
      if (v4 === undefined) return undefined;
      out.set(v4, i);
      i += 4;
      s = "";
      break;
    }
    if (!/^[0-9a-fA-F]{1,4}$/.test(head)) return undefined;
    const n = parseInt(head, 16);
    out[i] = n >> 8;
    out[i + 1] = n & 0xff;
    i += 2;
    if (colon < 0) {
      s = "";
      break;
    }
    s = s.slice(colon + 1);
    if (s.startsWith(":")) {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    } else if (s.length === 0) {
      return undefined;
    }
  }
  if (s.length !== 0) return undefined;
  if (i < 16) {
    if (ellipsis < 0) return undefined;
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) out[j + n] = out[j];
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) out[j] = 0;
  } else if (ellipsis >= 0) {
    return undefined;
  }
  return out;
}

/** An ip body (4 bytes for IPv4 text, 16 for IPv6), or undefined. */
export function parseIP(s: string): Uint8Array | undefined {
  if (s.indexOf(":") < 0) return parseIPv4(s);
  return parseIPv6(s);
}

/** Go's net.ParseCIDR, masked: a net body of 8 or 32 bytes, or undefined. */
export function parseNet(s: string): Uint8Array | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash), len = s.slice(slash + 1);
  if (!/^\d+$/.test(len)) return undefined;
  const ip = parseIP(addr);
  if (ip === undefined) return undefined;
  const bits = Number(len);
  if (bits > ip.length * 8) return undefined;
  const out = new Uint8Array(ip.length * 2);
  for (let i = 0; i < ip.length; i++) {
    const m = bits >= (i + 1) * 8
      ? 0xff
      : bits <= i * 8
      ? 0
      : (0xff << (8 - (bits - i * 8))) & 0xff;
    out[ip.length + i] = m;
    out[i] = ip[i] & m;
  }
  return out;
}

function formatIPv4(b: Uint8Array, off: number): string {
  return b[off] + "." + b[off + 1] + "." + b[off + 2] + "." + b[off + 3];
}

function isV4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

function formatIPv6(b: Uint8Array): string {
  // RFC 5952: the first longest run of two or more zero groups becomes "::".
  let zs = -1, ze = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && b[2 * j] === 0 && b[2 * j + 1] === 0) j++;
    if (j - i >= 2 && j - i > ze - zs) {
      zs = i;
      ze = j;
    }
  }
  let s = "";
  for (let i = 0; i < 8; i++) {
    if (i === zs) {
      s += "::";
      i = ze - 1;
      continue;
    }
    if (i > 0 && i !== ze) s += ":";
    s += ((b[2 * i] << 8) | b[2 * i + 1]).toString(16);
  }
  return s;
}

/** netip.Addr.String() of an ip body. */
export function formatIP(b: Uint8Array): string {
  if (b.length === 4) return formatIPv4(b, 0);
  if (b.length !== 16) return "invalid IP";
  if (isV4Mapped(b)) return "::ffff:" + formatIPv4(b, 12);
  return formatIPv6(b);
}

/** net.IP.String(): like formatIP but IPv4-mapped addresses print as IPv4. */
function formatNetIP(b: Uint8Array): string {
  if (b.length === 16 && isV4Mapped(b)) return formatIPv4(b, 12);
  return formatIP(b);
}

function maskLength(m: Uint8Array): number {
  let n = 0, i = 0;
  for (; i < m.length && m[i] === 0xff; i++) n += 8;
  if (i < m.length) {
    let v = m[i];
    while (v & 0x80) {
      n++;
      v = (v << 1) & 0xff;
    }
    if (v !== 0) return -1;
    for (i++; i < m.length; i++) if (m[i] !== 0) return -1;
  }
  return n;
}

/** net.IPNet.String() of a net body. */
export function formatNet(b: Uint8Array): string {
  const half = b.length / 2;
  const ip = b.subarray(0, half), mask = b.subarray(half);
  const ones = maskLength(mask);
  if (ones < 0) {
    let hex = "";
    for (const x of mask) hex += (x < 16 ? "0" : "") + x.toString(16);
    return formatNetIP(ip) + "/" + hex;
  }
  return formatNetIP(ip) + "/" + ones;
}
