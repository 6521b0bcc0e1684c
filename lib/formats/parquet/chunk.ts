// Decodes one column chunk into flat definition levels, repetition levels and
// converted values, using hyparquet's page decoders but not its row assembly
// (which turns map keys into object keys and timestamps into Dates).

import type { ColumnMetaData, CompressionCodec, DataPageHeader } from "hyparquet";
import { parquetHeader } from "hyparquet/src/column.js";
import { decompressPage, readDataPage, readDataPageV2 } from "hyparquet/src/datapage.js";
import { readPlain } from "hyparquet/src/plain.js";
import { brotliDecompressSync, gunzipSync, zstdDecompressSync } from "node:zlib";
import { invalid } from "../../errors.ts";
import { decodeUtf8 } from "../../zed/utf8.ts";
import { type Body, intBody } from "../../zed/value.ts";
import { type Leaf, LeafConv } from "./schema_read.ts";

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
  const decoder = {
    pathInSchema: leaf.path,
    type: element.type!,
    element,
    schemaPath: leaf.schemaPath,
    codec: meta.codec as CompressionCodec,
    compressors,
    // Not used by the page decoders, which never convert values.
    parsers: undefined as never,
  };
  const total = Number(meta.num_values);
  const out: LeafData = { count: 0, def: [], rep: [], values: [] };
  let dict: Body[] | undefined;
  while (out.count < total && reader.offset < size) {
    const header = parquetHeader(reader);
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
      let page, n: number, encoding: string;
      if (header.type === "DATA_PAGE") {
        const daph = header.data_page_header as DataPageHeader;
        const raw = decompressPage(
          bytes,
          header.uncompressed_page_size,
          decoder.codec,
          compressors,
        );
        page = readDataPage(raw, daph, decoder);
        n = daph.num_values;
        encoding = daph.encoding;
      } else {
        page = readDataPageV2(bytes, header, decoder);
        n = header.data_page_header_v2!.num_values;
        encoding = header.data_page_header_v2!.encoding;
      }
      appendLevels(out.def, page.definitionLevels, n, leaf.maxDef);
      appendLevels(out.rep, page.repetitionLevels, n, leaf.maxRep);
      if (encoding === "PLAIN_DICTIONARY" || encoding === "RLE_DICTIONARY") {
        if (dict === undefined) throw invalid("parquet dictionary page missing");
        const idx = page.dataPage as ArrayLike<number>;
        for (let i = 0; i < idx.length; i++) out.values.push(dict[idx[i]]);
      } else {
        const conv = convertAll(page.dataPage, leaf.conv);
        for (let i = 0; i < conv.length; i++) out.values.push(conv[i]);
      }
      out.count += n;
    }
    // Index pages carry nothing the reader needs.
  }
  return out;
}

function appendLevels(
  dst: number[],
  src: ArrayLike<number> | undefined,
  n: number,
  max: number,
): void {
  if (max === 0) return;
  // hyparquet drops the levels of a page without nulls; they are all max then.
  if (src === undefined || src.length === 0) {
    for (let i = 0; i < n; i++) dst.push(max);
  } else {
    for (let i = 0; i < src.length; i++) dst.push(src[i]);
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
