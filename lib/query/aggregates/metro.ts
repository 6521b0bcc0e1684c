// MetroHash64 (J. Andrew Rogers' MetroHash, the 64-bit variant with its
// "_1" constants), the hash the reference's dcount sketch applies to each
// value (hll.ts). 64-bit words are kept as two unsigned 32-bit halves in
// local variables (hash values run through it one per value, so no BigInt
// and nothing allocated): every step below is its 64-bit operation written
// out on the halves.

const K0 = 0xd6d018f5, K1 = 0xa2aa033b, K2 = 0x62992fc1, K3 = 0x30bc5b29;

/** The hash last computed: high and low 32 bits. */
export const hashed = { hi: 0, lo: 0 };

/** The high 32 bits of the 64-bit product of two unsigned 32-bit numbers. */
function mulHi(a: number, b: number): number {
  const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16;
  const mid = a1 * b0 + ((a0 * b0) >>> 16);
  const mid2 = a0 * b1 + (mid & 0xffff);
  return (a1 * b1 + Math.floor(mid / 0x10000) + Math.floor(mid2 / 0x10000)) >>> 0;
}

/** A little-endian 32-bit word of b at i. */
function u32(b: Uint8Array, i: number): number {
  return (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
}

// Written out below, for x = xh:xl and a 32-bit constant k:
//   x * k:        lo = imul(xl, k) >>> 0, hi = (mulHi(xl, k) + imul(xh, k)) >>> 0
//   x + y:        lo = (xl + yl) >>> 0, hi = (xh + yh + (lo < xl)) >>> 0
//   rotr(x, n<32): hi = (xh >>> n | xl << 32-n) >>> 0, lo = (xl >>> n | xh << 32-n) >>> 0
//   rotr(x, n>32): rotr by n-32 of the swapped halves

/** MetroHash64 of b[0, len) with a seed below 2^32 - k2; the result in `hashed`. */
export function metroHash64(b: Uint8Array, len: number, seed: number): void {
  let t = (seed + K2) >>> 0;
  const th = seed + K2 > 0xffffffff ? 1 : 0;
  let hl = Math.imul(t, K0) >>> 0;
  let hh = (mulHi(t, K0) + Math.imul(th, K0)) >>> 0;
  let p = 0;
  let xl = 0, xh = 0, yl = 0, yh = 0;
  if (len >= 32) {
    let al = hl, ah = hh, bl = hl, bh = hh, cl = hl, ch = hh, dl = hl, dh = hh;
    while (len - p >= 32) {
      // a += w0 * k0; a = rotr(a, 29) + c
      xl = u32(b, p), xh = u32(b, p + 4);
      yl = Math.imul(xl, K0) >>> 0, yh = (mulHi(xl, K0) + Math.imul(xh, K0)) >>> 0;
      t = (al + yl) >>> 0, ah = (ah + yh + (t < al ? 1 : 0)) >>> 0, al = t;
      xh = ((ah >>> 29) | (al << 3)) >>> 0, xl = ((al >>> 29) | (ah << 3)) >>> 0;
      al = (xl + cl) >>> 0, ah = (xh + ch + (al < xl ? 1 : 0)) >>> 0;
      // b += w1 * k1; b = rotr(b, 29) + d
      xl = u32(b, p + 8), xh = u32(b, p + 12);
      yl = Math.imul(xl, K1) >>> 0, yh = (mulHi(xl, K1) + Math.imul(xh, K1)) >>> 0;
      t = (bl + yl) >>> 0, bh = (bh + yh + (t < bl ? 1 : 0)) >>> 0, bl = t;
      xh = ((bh >>> 29) | (bl << 3)) >>> 0, xl = ((bl >>> 29) | (bh << 3)) >>> 0;
      bl = (xl + dl) >>> 0, bh = (xh + dh + (bl < xl ? 1 : 0)) >>> 0;
      // c += w2 * k2; c = rotr(c, 29) + a
      xl = u32(b, p + 16), xh = u32(b, p + 20);
      yl = Math.imul(xl, K2) >>> 0, yh = (mulHi(xl, K2) + Math.imul(xh, K2)) >>> 0;
      t = (cl + yl) >>> 0, ch = (ch + yh + (t < cl ? 1 : 0)) >>> 0, cl = t;
      xh = ((ch >>> 29) | (cl << 3)) >>> 0, xl = ((cl >>> 29) | (ch << 3)) >>> 0;
      cl = (xl + al) >>> 0, ch = (xh + ah + (cl < xl ? 1 : 0)) >>> 0;
      // d += w3 * k3; d = rotr(d, 29) + b
      xl = u32(b, p + 24), xh = u32(b, p + 28);
      yl = Math.imul(xl, K3) >>> 0, yh = (mulHi(xl, K3) + Math.imul(xh, K3)) >>> 0;
      t = (dl + yl) >>> 0, dh = (dh + yh + (t < dl ? 1 : 0)) >>> 0, dl = t;
      xh = ((dh >>> 29) | (dl << 3)) >>> 0, xl = ((dl >>> 29) | (dh << 3)) >>> 0;
      dl = (xl + bl) >>> 0, dh = (xh + bh + (dl < xl ? 1 : 0)) >>> 0;
      p += 32;
    }
    // c ^= rotr(((a + d) * k0) + b, 37) * k1
    xl = (al + dl) >>> 0, xh = (ah + dh + (xl < al ? 1 : 0)) >>> 0;
    yl = Math.imul(xl, K0) >>> 0, yh = (mulHi(xl, K0) + Math.imul(xh, K0)) >>> 0;
    xl = (yl + bl) >>> 0, xh = (yh + bh + (xl < yl ? 1 : 0)) >>> 0;
    yh = ((xl >>> 5) | (xh << 27)) >>> 0, yl = ((xh >>> 5) | (xl << 27)) >>> 0;
    ch = (ch ^ ((mulHi(yl, K1) + Math.imul(yh, K1)) >>> 0)) >>> 0;
    cl = (cl ^ (Math.imul(yl, K1) >>> 0)) >>> 0;
    // d ^= rotr(((b + c) * k1) + a, 37) * k0
    xl = (bl + cl) >>> 0, xh = (bh + ch + (xl < bl ? 1 : 0)) >>> 0;
    yl = Math.imul(xl, K1) >>> 0, yh = (mulHi(xl, K1) + Math.imul(xh, K1)) >>> 0;
    xl = (yl + al) >>> 0, xh = (yh + ah + (xl < yl ? 1 : 0)) >>> 0;
    yh = ((xl >>> 5) | (xh << 27)) >>> 0, yl = ((xh >>> 5) | (xl << 27)) >>> 0;
    dh = (dh ^ ((mulHi(yl, K0) + Math.imul(yh, K0)) >>> 0)) >>> 0;
    dl = (dl ^ (Math.imul(yl, K0) >>> 0)) >>> 0;
    // a ^= rotr(((a + c) * k0) + d, 37) * k1
    xl = (al + cl) >>> 0, xh = (ah + ch + (xl < al ? 1 : 0)) >>> 0;
    yl = Math.imul(xl, K0) >>> 0, yh = (mulHi(xl, K0) + Math.imul(xh, K0)) >>> 0;
    xl = (yl + dl) >>> 0, xh = (yh + dh + (xl < yl ? 1 : 0)) >>> 0;
    yh = ((xl >>> 5) | (xh << 27)) >>> 0, yl = ((xh >>> 5) | (xl << 27)) >>> 0;
    ah = (ah ^ ((mulHi(yl, K1) + Math.imul(yh, K1)) >>> 0)) >>> 0;
    al = (al ^ (Math.imul(yl, K1) >>> 0)) >>> 0;
    // b ^= rotr(((b + d) * k1) + c, 37) * k0
    xl = (bl + dl) >>> 0, xh = (bh + dh + (xl < bl ? 1 : 0)) >>> 0;
    yl = Math.imul(xl, K1) >>> 0, yh = (mulHi(xl, K1) + Math.imul(xh, K1)) >>> 0;
    xl = (yl + cl) >>> 0, xh = (yh + ch + (xl < yl ? 1 : 0)) >>> 0;
    yh = ((xl >>> 5) | (xh << 27)) >>> 0, yl = ((xh >>> 5) | (xl << 27)) >>> 0;
    bh = (bh ^ ((mulHi(yl, K0) + Math.imul(yh, K0)) >>> 0)) >>> 0;
    bl = (bl ^ (Math.imul(yl, K0) >>> 0)) >>> 0;
    // h += a ^ b
    xl = (al ^ bl) >>> 0, xh = (ah ^ bh) >>> 0;
    t = (hl + xl) >>> 0, hh = (hh + xh + (t < hl ? 1 : 0)) >>> 0, hl = t;
  }
  if (len - p >= 16) {
    // a = rotr(h + w0 * k2, 29) * k3
    xl = u32(b, p), xh = u32(b, p + 4);
    yl = Math.imul(xl, K2) >>> 0, yh = (mulHi(xl, K2) + Math.imul(xh, K2)) >>> 0;
    xl = (hl + yl) >>> 0, xh = (hh + yh + (xl < hl ? 1 : 0)) >>> 0;
    yh = ((xh >>> 29) | (xl << 3)) >>> 0, yl = ((xl >>> 29) | (xh << 3)) >>> 0;
    let al = Math.imul(yl, K3) >>> 0, ah = (mulHi(yl, K3) + Math.imul(yh, K3)) >>> 0;
    // c = rotr(h + w1 * k2, 29) * k3
    xl = u32(b, p + 8), xh = u32(b, p + 12);
    yl = Math.imul(xl, K2) >>> 0, yh = (mulHi(xl, K2) + Math.imul(xh, K2)) >>> 0;
    xl = (hl + yl) >>> 0, xh = (hh + yh + (xl < hl ? 1 : 0)) >>> 0;
    yh = ((xh >>> 29) | (xl << 3)) >>> 0, yl = ((xl >>> 29) | (xh << 3)) >>> 0;
    let cl = Math.imul(yl, K3) >>> 0, ch = (mulHi(yl, K3) + Math.imul(yh, K3)) >>> 0;
    // a ^= rotr(a * k0, 21) + c
    xl = Math.imul(al, K0) >>> 0, xh = (mulHi(al, K0) + Math.imul(ah, K0)) >>> 0;
    yh = ((xh >>> 21) | (xl << 11)) >>> 0, yl = ((xl >>> 21) | (xh << 11)) >>> 0;
    xl = (yl + cl) >>> 0, xh = (yh + ch + (xl < yl ? 1 : 0)) >>> 0;
    ah = (ah ^ xh) >>> 0, al = (al ^ xl) >>> 0;
    // c ^= rotr(c * k3, 21) + a
    xl = Math.imul(cl, K3) >>> 0, xh = (mulHi(cl, K3) + Math.imul(ch, K3)) >>> 0;
    yh = ((xh >>> 21) | (xl << 11)) >>> 0, yl = ((xl >>> 21) | (xh << 11)) >>> 0;
    xl = (yl + al) >>> 0, xh = (yh + ah + (xl < yl ? 1 : 0)) >>> 0;
    ch = (ch ^ xh) >>> 0, cl = (cl ^ xl) >>> 0;
    // h += c
    t = (hl + cl) >>> 0, hh = (hh + ch + (t < hl ? 1 : 0)) >>> 0, hl = t;
    p += 16;
  }
  if (len - p >= 8) {
    // h += w * k3; h ^= rotr(h, 55) * k1
    xl = u32(b, p), xh = u32(b, p + 4);
    yl = Math.imul(xl, K3) >>> 0, yh = (mulHi(xl, K3) + Math.imul(xh, K3)) >>> 0;
    t = (hl + yl) >>> 0, hh = (hh + yh + (t < hl ? 1 : 0)) >>> 0, hl = t;
    yh = ((hl >>> 23) | (hh << 9)) >>> 0, yl = ((hh >>> 23) | (hl << 9)) >>> 0;
    hh = (hh ^ ((mulHi(yl, K1) + Math.imul(yh, K1)) >>> 0)) >>> 0;
    hl = (hl ^ (Math.imul(yl, K1) >>> 0)) >>> 0;
    p += 8;
  }
  if (len - p >= 4) {
    // h += w * k3; h ^= rotr(h, 26) * k1
    xl = u32(b, p);
    yl = Math.imul(xl, K3) >>> 0, yh = mulHi(xl, K3);
    t = (hl + yl) >>> 0, hh = (hh + yh + (t < hl ? 1 : 0)) >>> 0, hl = t;
    yh = ((hh >>> 26) | (hl << 6)) >>> 0, yl = ((hl >>> 26) | (hh << 6)) >>> 0;
    hh = (hh ^ ((mulHi(yl, K1) + Math.imul(yh, K1)) >>> 0)) >>> 0;
    hl = (hl ^ (Math.imul(yl, K1) >>> 0)) >>> 0;
    p += 4;
  }
  if (len - p >= 2) {
    // h += w * k3; h ^= rotr(h, 48) * k1
    xl = b[p] | (b[p + 1] << 8);
    yl = Math.imul(xl, K3) >>> 0, yh = mulHi(xl, K3);
    t = (hl + yl) >>> 0, hh = (hh + yh + (t < hl ? 1 : 0)) >>> 0, hl = t;
    yh = ((hl >>> 16) | (hh << 16)) >>> 0, yl = ((hh >>> 16) | (hl << 16)) >>> 0;
    hh = (hh ^ ((mulHi(yl, K1) + Math.imul(yh, K1)) >>> 0)) >>> 0;
    hl = (hl ^ (Math.imul(yl, K1) >>> 0)) >>> 0;
    p += 2;
  }
  if (len - p >= 1) {
    // h += byte * k3; h ^= rotr(h, 37) * k1
    xl = b[p];
    yl = Math.imul(xl, K3) >>> 0, yh = mulHi(xl, K3);
    t = (hl + yl) >>> 0, hh = (hh + yh + (t < hl ? 1 : 0)) >>> 0, hl = t;
    yh = ((hl >>> 5) | (hh << 27)) >>> 0, yl = ((hh >>> 5) | (hl << 27)) >>> 0;
    hh = (hh ^ ((mulHi(yl, K1) + Math.imul(yh, K1)) >>> 0)) >>> 0;
    hl = (hl ^ (Math.imul(yl, K1) >>> 0)) >>> 0;
  }
  // h ^= rotr(h, 28); h *= k0; h ^= rotr(h, 29)
  xh = ((hh >>> 28) | (hl << 4)) >>> 0, xl = ((hl >>> 28) | (hh << 4)) >>> 0;
  hh = (hh ^ xh) >>> 0, hl = (hl ^ xl) >>> 0;
  t = Math.imul(hl, K0) >>> 0, hh = (mulHi(hl, K0) + Math.imul(hh, K0)) >>> 0, hl = t;
  xh = ((hh >>> 29) | (hl << 3)) >>> 0, xl = ((hl >>> 29) | (hh << 3)) >>> 0;
  hashed.hi = (hh ^ xh) >>> 0;
  hashed.lo = (hl ^ xl) >>> 0;
}
