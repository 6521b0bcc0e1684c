// Network functions: network_of and cidr_match (language.md §6). Bodies are
// network-order bytes: ip 4 or 16, net address then mask (8 or 32).

import {
  ID_IP,
  ID_NET,
  isInteger,
  isSigned,
  Kind,
  type Type,
  TypeNet,
  typeUnder,
} from "../../zed/types.ts";
import { type Body, type UnionBody, Value } from "../../zed/value.ts";
import { typeId } from "../expr/coerce.ts";
import { boolValue, errorValue, FALSE, zson } from "../runtime/values.ts";
import { binary, variadic } from "./define.ts";

function isV4Mapped(b: Uint8Array): boolean {
  if (b.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** A mask of `bits` leading ones, `len` bytes long. */
function prefixMask(bits: number, len: number): Uint8Array {
  const m = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    const n = bits - i * 8;
    m[i] = n >= 8 ? 0xff : n <= 0 ? 0 : (0xff << (8 - n)) & 0xff;
  }
  return m;
}

function network(ip: Uint8Array, mask: Uint8Array): Value {
  const n = ip.length;
  const out = new Uint8Array(2 * n);
  for (let i = 0; i < n; i++) {
    out[i] = ip[i] & mask[i];
    out[n + i] = mask[i];
  }
  return new Value(TypeNet, out);
}

variadic("network_of", 1, 2, (args) => {
  const addr = args[0];
  if (typeId(addr.type) !== ID_IP) return errorValue("network_of: not an IP");
  let ip = addr.body as Uint8Array | null;
  if (ip !== null && isV4Mapped(ip)) ip = ip.subarray(12);
  if (args.length === 1) {
    if (ip === null || ip.length !== 4) return errorValue("network_of: not an IPv4 address");
    const bits = ip[0] < 0x80 ? 8 : ip[0] < 0xc0 ? 16 : 24;
    return network(ip, prefixMask(bits, 4));
  }
  const arg = args[1];
  const id = typeId(arg.type);
  let mask: Uint8Array;
  if (id === ID_NET) {
    const net = arg.body as Uint8Array | null;
    const half = net === null ? 0 : net.length / 2;
    let same = net !== null;
    for (let i = 0; same && i < half; i++) same = net![i] === net![half + i];
    if (!same) return errorValue("network_of: network arg not a cidr mask");
    mask = net!.subarray(half);
  } else if (isInteger(id)) {
    const body = (arg.body ?? 0) as number | bigint;
    // Go converts to uint: a negative count becomes huge.
    const bits = isSigned(id) && body < 0 ? Infinity : Number(body);
    if (bits > 64) return errorValue("network_of: cidr bit count out of range");
    if (ip === null) return new Value(TypeNet, null);
    if (bits > ip.length * 8) return errorValue("network_of: cidr bit count out of range");
    mask = prefixMask(bits, ip.length);
  } else {
    return errorValue("network_of: bad arg for cidr mask");
  }
  if (ip === null) return new Value(TypeNet, null);
  if (mask.length !== ip.length) return errorValue("network_of: network arg not a cidr mask");
  return network(ip, mask);
});

/** Whether ip lies in the network of a net body (Go's IPNet address/mask test). */
function inNet(net: Uint8Array, ip: Uint8Array): boolean {
  const n = net.length / 2;
  let off = 0;
  if (ip.length === 16 && n === 4) {
    if (!isV4Mapped(ip)) return false;
    off = 12;
  } else if (ip.length === 4 && n === 16) {
    // A 16-byte network matches IPv4 only in its IPv4-mapped form.
    for (let i = 0; i < 12; i++) if (net[n + i] !== 0xff) return false;
    if (!isV4Mapped(net.subarray(0, 16))) return false;
    for (let i = 0; i < 4; i++) if ((ip[i] & net[n + 12 + i]) !== net[12 + i]) return false;
    return true;
  } else if (ip.length !== n) {
    return false;
  }
  for (let i = 0; i < n; i++) if ((ip[off + i] & net[n + i]) !== net[i]) return false;
  return true;
}

/** Whether any ip found by walking the value (t, body) is in net. */
function anyIPIn(net: Uint8Array, t: Type, body: Body): boolean {
  const u = typeUnder(t);
  if (body === null) return false;
  switch (u.kind) {
    case Kind.Primitive:
      return u.id === ID_IP && inNet(net, body as Uint8Array);
    case Kind.Record: {
      const fields = body as Body[];
      for (let i = 0; i < u.fields.length; i++) {
        if (anyIPIn(net, u.fields[i].type, fields[i])) return true;
      }
      return false;
    }
    case Kind.Array:
    case Kind.Set:
      for (const e of body as Body[]) if (anyIPIn(net, u.elem, e)) return true;
      return false;
    case Kind.Map: {
      const kv = body as Body[];
      for (let i = 0; i < kv.length; i += 2) {
        if (anyIPIn(net, u.key, kv[i]) || anyIPIn(net, u.value, kv[i + 1])) return true;
      }
      return false;
    }
    case Kind.Union: {
      const ub = body as UnionBody;
      return anyIPIn(net, u.types[ub.tag], ub.body);
    }
    case Kind.Error:
      return anyIPIn(net, u.inner, body);
  }
  return false;
}

binary("cidr_match", (mask, val) => {
  if (typeId(mask.type) !== ID_NET) return errorValue(`cidr_match: not a net: ${zson(mask)}`);
  if (mask.body === null) return FALSE;
  return boolValue(anyIPIn(mask.body as Uint8Array, val.type, val.body));
});
