// Reading a byte range of an object with ranged GETs, chunk by chunk as the
// answer arrives. Shared by S3Storage.readRange and the bridge worker (for
// synchronous reads). A body that breaks off is resumed at its next byte
// with a new ranged GET, a few times, so a long scan survives a dropped
// connection.

import type { S3Location } from "./config.ts";
import { pause, type S3Client, upstream } from "./client.ts";

/** Past this, ranges are open-ended ("bytes=a-"): some servers refuse huge numbers. */
const OPEN_ENDED = 2 ** 48;

/**
 * Yields length bytes at offset (fewer at the end of the object; none past
 * it). A missing object is a "not found" LochError. onTotal, if given, learns
 * the object's size from the first answer, before any bytes; false from it
 * ends the read there. (An empty object answers nothing, and onTotal is not called.)
 */
export async function* readObject(
  client: S3Client,
  loc: S3Location,
  offset: number,
  length: number,
  onTotal?: (total: number) => boolean,
): AsyncGenerator<Uint8Array> {
  if (length <= 0) return;
  const end = offset + length; // exclusive; may be past the object's end
  let pos = offset;
  let total: number | undefined;
  for (let failures = 0;; failures++) {
    const range = end > OPEN_ENDED ? `bytes=${pos}-` : `bytes=${pos}-${end - 1}`;
    const res = await client.send("GET", loc, { headers: { Range: range } });
    if (res.status === 416) { // at or past the end
      await res.body?.cancel();
      return;
    }
    if ((res.status !== 200 && res.status !== 206) || res.body === null) {
      throw await client.error("GET", loc, res);
    }
    // Where the body starts in the object (a 200 ignored the range), and the object's size.
    let start = 0;
    const m = /^bytes (\d+)-\d+\/(\d+)/.exec(res.headers.get("content-range") ?? "");
    if (res.status === 206 && m !== null) [start, total] = [Number(m[1]), Number(m[2])];
    else if (res.status === 200) total = Number(res.headers.get("content-length"));
    else start = pos;
    if (failures === 0 && onTotal !== undefined && total !== undefined && !onTotal(total)) {
      await res.body.cancel();
      return;
    }
    const stop = Math.min(end, total ?? end);
    const reader = res.body.getReader();
    let at = start;
    let broke: unknown;
    try {
      while (pos < stop) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (e) {
          broke = e;
          break;
        }
        if (r.done) {
          if (total !== undefined) broke = new Error(`the answer ended at byte ${pos} of ${stop}`);
          break;
        }
        let chunk = r.value;
        if (at < pos) chunk = chunk.subarray(Math.min(pos - at, chunk.length));
        at += r.value.length;
        if (chunk.length > stop - pos) chunk = chunk.subarray(0, stop - pos);
        if (chunk.length === 0) continue;
        pos += chunk.length;
        yield chunk;
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
    if (broke === undefined) return;
    if (failures >= client.config.retries) {
      throw upstream("GET", loc, `reading the answer: ${(broke as Error).message ?? broke}`);
    }
    await pause(failures);
  }
}
