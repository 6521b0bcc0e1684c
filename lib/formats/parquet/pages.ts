// Decoding a column chunk's data pages (v1 and v2): repetition and
// definition levels and dictionary indexes with a run-length/bit-packed
// decoder of our own, values through hyparquet's decoders. Ours never writes
// past the count it was asked for nor reads past its bytes; hyparquet's
// repeats a run of any length its input claims, so a few flipped bytes in an
// upload had it fill an array for seconds until V8 gave up.

import type { CompressionCodec, DataPageHeader, PageHeader } from "hyparquet";
import { decompressPage } from "hyparquet/src/datapage.js";
import { deltaBinaryUnpack, deltaByteArray, deltaLengthByteArray } from "hyparquet/src/delta.js";
import { byteStreamSplit } from "hyparquet/src/encoding.js";
import { readPlain } from "hyparquet/src/plain.js";
import { invalid } from "../../errors.ts";
import type { Leaf } from "./schema_read.ts";

/** What a page holds: levels (null where the leaf has none) and its defined values. */
export interface PageData {
  count: number;
  def: Int32Array | null;
  rep: Int32Array | null;
  // deno-lint-ignore no-explicit-any
  values: ArrayLike<any>;
  /** Whether the values are dictionary indexes. */
  indexes: boolean;
}

/** How a column chunk's pages are decoded. */
export interface PageDecoder {
  type: NonNullable<Leaf["element"]["type"]>;
  typeLength: number | undefined;
  codec: CompressionCodec;
  compressors: Parameters<typeof decompressPage>[3];
}

const bitWidth = (max: number) => 32 - Math.clz32(max);

/** A v1 data page from its compressed bytes. */
export function decodePageV1(
  bytes: Uint8Array,
  header: PageHeader,
  leaf: Leaf,
  d: PageDecoder,
): PageData {
  const daph = header.data_page_header as DataPageHeader;
  const page = decompressPage(bytes, header.uncompressed_page_size, d.codec, d.compressors);
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const n = daph.num_values;
  let pos = 0;
  // Levels: each a 4-byte length, then the run-length data.
  const levels = (max: number): Int32Array | null => {
    if (max === 0) return null;
    if (pos + 4 > page.length) throw invalid("parquet page levels missing");
    const len = view.getUint32(pos, true);
    const out = decodeHybrid(page, pos + 4, len, bitWidth(max), n);
    pos += 4 + len;
    return out;
  };
  const rep = levels(leaf.maxRep);
  const def = levels(leaf.maxDef);
  const defined = definedCount(def, leaf.maxDef, n);
  return { count: n, def, rep, ...decodeValues(page, pos, daph.encoding, defined, d) };
}

/** A v2 data page from its bytes (levels uncompressed before the values). */
export function decodePageV2(
  bytes: Uint8Array,
  header: PageHeader,
  leaf: Leaf,
  d: PageDecoder,
): PageData {
  const h = header.data_page_header_v2!;
  const n = h.num_values;
  const rlen = h.repetition_levels_byte_length, dlen = h.definition_levels_byte_length;
  const rep = leaf.maxRep === 0 ? null : decodeHybrid(bytes, 0, rlen, bitWidth(leaf.maxRep), n);
  const def = leaf.maxDef === 0 ? null : decodeHybrid(bytes, rlen, dlen, bitWidth(leaf.maxDef), n);
  let page = bytes.subarray(rlen + dlen);
  if (h.is_compressed !== false) {
    page = decompressPage(
      page,
      header.uncompressed_page_size - rlen - dlen,
      d.codec,
      d.compressors,
    );
  }
  const defined = definedCount(def, leaf.maxDef, n);
  return { count: n, def, rep, ...decodeValues(page, 0, h.encoding, defined, d) };
}

function definedCount(def: Int32Array | null, max: number, n: number): number {
  if (def === null) return n;
  let k = 0;
  for (let i = 0; i < def.length; i++) if (def[i] === max) k++;
  return k;
}

/** The defined values of a page, from pos in its (decompressed) bytes. */
function decodeValues(
  page: Uint8Array,
  pos: number,
  encoding: string,
  n: number,
  d: PageDecoder,
  // deno-lint-ignore no-explicit-any
): { values: ArrayLike<any>; indexes: boolean } {
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const reader = { view, offset: pos };
  switch (encoding) {
    case "PLAIN":
      return { values: readPlain(reader, d.type, n, d.typeLength), indexes: false };
    case "PLAIN_DICTIONARY":
    case "RLE_DICTIONARY": {
      if (pos >= page.length) {
        if (n === 0) return { values: [], indexes: true };
        throw invalid("parquet dictionary indexes missing");
      }
      const width = page[pos];
      return {
        values: decodeHybrid(page, pos + 1, page.length - pos - 1, width, n),
        indexes: true,
      };
    }
    case "RLE": {
      if (d.type !== "BOOLEAN") throw invalid(`parquet RLE encoding of ${d.type} not supported`);
      if (pos + 4 > page.length) throw invalid("parquet boolean run-length data missing");
      const len = view.getUint32(pos, true);
      const bits = decodeHybrid(page, pos + 4, len, 1, n);
      const out = new Array<boolean>(n);
      for (let i = 0; i < n; i++) out[i] = bits[i] !== 0;
      return { values: out, indexes: false };
    }
    case "BYTE_STREAM_SPLIT":
      return { values: byteStreamSplit(reader, n, d.type, d.typeLength), indexes: false };
    case "DELTA_BINARY_PACKED": {
      const out = d.type === "INT32" ? new Int32Array(n) : new BigInt64Array(n);
      deltaBinaryUnpack(reader, n, out);
      return { values: out, indexes: false };
    }
    case "DELTA_LENGTH_BYTE_ARRAY": {
      const out = new Array(n);
      deltaLengthByteArray(reader, n, out);
      return { values: out, indexes: false };
    }
    case "DELTA_BYTE_ARRAY": {
      const out = new Array(n);
      deltaByteArray(reader, n, out);
      return { values: out, indexes: false };
    }
  }
  throw invalid(`parquet unsupported encoding: ${encoding}`);
}

/**
 * Decodes count values of width bits from the run-length/bit-packed hybrid
 * data in bytes[start, start + length). Runs past count are cut; data that
 * ends before count values is an error.
 */
export function decodeHybrid(
  bytes: Uint8Array,
  start: number,
  length: number,
  width: number,
  count: number,
): Int32Array {
  if (width > 32) throw invalid(`parquet run-length bit width ${width} out of range`);
  const end = start + length;
  if (length < 0 || end > bytes.length) throw invalid("parquet run-length data out of bounds");
  const out = new Int32Array(count);
  const valueBytes = (width + 7) >> 3;
  let pos = start, seen = 0;
  while (seen < count) {
    // The run's header: a uvarint (at most 5 bytes).
    let header = 0;
    for (let shift = 0;; shift += 7) {
      if (pos >= end || shift > 28) throw invalid("parquet run-length data ends early");
      const b = bytes[pos++];
      header += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
    }
    if (header % 2 === 1) {
      // Bit-packed: groups of 8 values, width bits each, least significant first.
      const groups = Math.floor(header / 2);
      const take = Math.min(groups * 8, count - seen);
      const bits = take * width;
      if (pos + Math.ceil(bits / 8) > end) throw invalid("parquet run-length data ends early");
      if (width <= 24) {
        // A window of bits: up to 31 held at once.
        const mask = (1 << width) - 1;
        let acc = 0, held = 0, p = pos;
        for (let i = 0; i < take; i++) {
          while (held < width) {
            acc |= bytes[p++] << held;
            held += 8;
          }
          out[seen++] = acc & mask;
          acc >>>= width;
          held -= width;
        }
      } else {
        let bit = pos * 8;
        for (let i = 0; i < take; i++) {
          let v = 0;
          for (let k = 0; k < width; k++, bit++) {
            if (bytes[bit >> 3] & (1 << (bit & 7))) v |= 1 << k;
          }
          out[seen++] = v;
        }
      }
      pos += groups * width;
    } else {
      // A run: one value repeated.
      const run = Math.floor(header / 2);
      if (pos + valueBytes > end) throw invalid("parquet run-length data ends early");
      let v = 0;
      for (let k = 0; k < valueBytes; k++) v |= bytes[pos + k] << (8 * k);
      pos += valueBytes;
      const stop = Math.min(count, seen + run);
      out.fill(v, seen, stop);
      seen = stop;
    }
  }
  return out;
}
