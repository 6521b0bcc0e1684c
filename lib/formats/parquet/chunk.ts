// Decodes one column chunk into flat definition levels, repetition levels and
// converted values: pages through pages.ts, with hyparquet's page headers,
// decompression and plain decoding but not its row assembly (which turns map
// keys into object keys and timestamps into Dates).

import type { ColumnMetaData, CompressionCodec } from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
import { decompressPage } from "hyparquet/src/datapage.js";
import { readPlain } from "hyparquet/src/plain.js";
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from "node:zlib";
import { invalid } from "../../errors.ts";
import { decodeUtf8 } from "../../zed/utf8.ts";
import { type Body, intBody } from "../../zed/value.ts";
import { type Leaf, LeafConv } from "./schema_read.ts";
import { decodePageV1, decodePageV2, type PageDecoder } from "./pages.ts";

/** A leaf column's entries: one per value, null, or empty/null container. */
export interface LeafData {
  count: number;
  /** Definition level per entry (empty when the leaf is never undefined). */
  def: number[];
  /** Repetition level per entry (empty when the leaf is not repeated). */
  rep: number[];
  /** The defined values, in order. */
  values: Body[];
}

const compressors = {
  GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)),
  BROTLI: (input: Uint8Array) => new Uint8Array(brotliDecompressSync(input)),
  ZSTD: (input: Uint8Array) => new Uint8Array(zstdDecompressSync(input)),
};

/** Reads the chunk described by meta from the whole file. */
export function readChunk(file: Uint8Array, meta: ColumnMetaData, leaf: Leaf): LeafData {
  const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
  const size = Number(meta.total_compressed_size);
  if (start < 0 || start + size > file.length) throw invalid("parquet column chunk out of bounds");
  const reader = { view: new DataView(file.buffer, file.byteOffset + start, size), offset: 0 };
  // INT96 is read as 12-byte fixed-length values: hyparquet's INT96 decoding
  // folds the bytes into a bigint and loses the high word of negative values.
  const element = leaf.element.type === "INT96"
    ? { ...leaf.element, type: "FIXED_LEN_BYTE_ARRAY" as const, type_length: 12 }
    : leaf.element;
  const decoder: PageDecoder = {
    type: element.type!,
    typeLength: element.type_length,
    codec: meta.codec as CompressionCodec,
    compressors,
  };
  const total = Number(meta.num_values);
  if (!isCount(total)) throw invalid("parquet column chunk has an invalid value count");
  if (total > MAX_CHUNK_VALUES) {
    throw invalid(
      `parquet column chunk too large: ${total} values (at most ${MAX_CHUNK_VALUES} in one row group)`,
    );
  }
  const out: LeafData = { count: 0, def: [], rep: [], values: [] };
  let dict: Body[] | undefined;
  while (out.count < total && reader.offset < size) {
    const header = parquetHeader(reader);
    checkPageHeader(header, size - reader.offset, total - out.count);
    const bytes = new Uint8Array(
      reader.view.buffer,
      reader.view.byteOffset + reader.offset,
      header.compressed_page_size,
    );
    reader.offset += header.compressed_page_size;
    if (header.type === "DICTIONARY_PAGE") {
      const page = decompressPage(bytes, header.uncompressed_page_size, decoder.codec, compressors);
      const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
      const n = header.dictionary_page_header?.num_values ?? 0;
      const raw = readPlain({ view, offset: 0 }, decoder.type, n, element.type_length);
      dict = convertAll(raw, leaf.conv);
    } else if (header.type === "DATA_PAGE" || header.type === "DATA_PAGE_V2") {
      const page = header.type === "DATA_PAGE"
        ? decodePageV1(bytes, header, leaf, decoder)
        : decodePageV2(bytes, header, leaf, decoder);
      if (page.def !== null) { for (let i = 0; i < page.count; i++) out.def.push(page.def[i]); }
      if (page.rep !== null) { for (let i = 0; i < page.count; i++) out.rep.push(page.rep[i]); }
      if (page.indexes) {
        if (dict === undefined) throw invalid("parquet dictionary page missing");
        const idx = page.values as Int32Array;
        for (let i = 0; i < idx.length; i++) {
          const v = dict[idx[i]];
          if (v === undefined) throw invalid("parquet dictionary index out of range");
          out.values.push(v);
        }
      } else {
        const conv = convertAll(page.values, leaf.conv);
        for (let i = 0; i < conv.length; i++) out.values.push(conv[i]);
      }
      out.count += page.count;
    }
    // Index pages carry nothing the reader needs.
  }
  return out;
}

/**
 * The most values one column chunk may hold (a row group is decoded whole,
 * so this bounds the memory one upload can make the decoder take).
 */
const MAX_CHUNK_VALUES = 1 << 24;

/** The most bytes a page may decompress to, and its ratio to its compressed size. */
const MAX_PAGE_BYTES = 1 << 30;
const MAX_PAGE_RATIO = 1024;

function isCount(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}

/**
 * Checks what hyparquet's page decoders take on trust. A corrupt header
 * (a field missing, a size past the chunk, a count past the column's) would
 * otherwise have them read at NaN offsets for ever, or allocate without
 * bound; here it is a format error.
 */
// deno-lint-ignore no-explicit-any
function checkPageHeader(h: any, remaining: number, valuesLeft: number): void {
  const bad = (what: string) => invalid(`parquet page header: ${what}`);
  if (!isCount(h.compressed_page_size) || h.compressed_page_size > remaining) {
    throw bad("compressed size out of bounds");
  }
  const out = h.uncompressed_page_size;
  if (
    !isCount(out) || out > MAX_PAGE_BYTES || out > MAX_PAGE_RATIO * (h.compressed_page_size + 64)
  ) {
    throw bad("uncompressed size out of bounds");
  }
  if (h.type === "DICTIONARY_PAGE") {
    const d = h.dictionary_page_header;
    if (d === undefined || !isCount(d.num_values) || d.num_values > out) {
      throw bad("dictionary size out of bounds");
    }
  } else if (h.type === "DATA_PAGE") {
    const d = h.data_page_header;
    if (d === undefined || !isCount(d.num_values) || d.num_values > valuesLeft) {
      throw bad("value count out of bounds");
    }
    if (typeof d.encoding !== "string") throw bad("encoding missing");
  } else if (h.type === "DATA_PAGE_V2") {
    const d = h.data_page_header_v2;
    if (d === undefined || !isCount(d.num_values) || d.num_values > valuesLeft) {
      throw bad("value count out of bounds");
    }
    if (!isCount(d.num_nulls) || d.num_nulls > d.num_values || !isCount(d.num_rows)) {
      throw bad("null or row count out of bounds");
    }
    const levels = d.definition_levels_byte_length + d.repetition_levels_byte_length;
    if (
      !isCount(d.definition_levels_byte_length) || !isCount(d.repetition_levels_byte_length) ||
      levels > h.compressed_page_size || levels > out
    ) {
      throw bad("level sizes out of bounds");
    }
    if (typeof d.encoding !== "string") throw bad("encoding missing");
  }
}

// deno-lint-ignore no-explicit-any
function convertAll(raw: ArrayLike<any>, conv: LeafConv): Body[] {
  const n = raw.length;
  const out = new Array<Body>(n);
  switch (conv) {
    case LeafConv.Same:
      for (let i = 0; i < n; i++) out[i] = raw[i];
      break;
    case LeafConv.Uint32:
      for (let i = 0; i < n; i++) out[i] = raw[i] >>> 0;
      break;
    case LeafConv.Int64:
      for (let i = 0; i < n; i++) out[i] = intBody(raw[i]);
      break;
    case LeafConv.Uint64:
      for (let i = 0; i < n; i++) out[i] = intBody(BigInt.asUintN(64, raw[i]));
      break;
    case LeafConv.Utf8:
      for (let i = 0; i < n; i++) out[i] = decodeUtf8(raw[i]);
      break;
    case LeafConv.Bytes:
      // Copies, so values do not pin the whole file in memory.
      for (let i = 0; i < n; i++) out[i] = (raw[i] as Uint8Array).slice();
      break;
  }
  return out;
}
