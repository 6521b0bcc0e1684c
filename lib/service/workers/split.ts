// A big load split across workers. Parsing, sorting and encoding take most
// of a load's time and one worker does them for one body; a JSON body is cut
// into parts at line breaks, a ZNG body where frames start, each part loaded
// by its own worker into its own objects, and the objects committed
// together. A body of known length is cut into one part per worker; one sent
// without a length (chunked, as `curl -T -` and scripts that stream a body
// send it) is cut as it arrives, into parts that grow from STREAM_PART, so a
// short one is still one part. A ZNG body's parts are ZNG_DENSITY times
// shorter, for about as many records a part as JSON's.
//
// The parts are parsed as if each were the whole input, which is exactly
// what reading the body straight through gives as long as every part before
// a cut ends between top-level values: JSON is cut only where
// formats/json/cuts.ts allows, and each part is told what follows it; a ZNG
// part begins with the types frames the stream defined before its cut
// (formats/zng/cuts.ts), so its type ids mean what they mean in the whole. A
// part that fails ends the input, as a format error does: the parts after
// it are dropped.

import { LochError, messageOf } from "../../errors.ts";
import { ByteInput } from "../../formats/io.ts";
import { detectedFormat } from "../../formats/detect.ts";
import type { ObjectRecord } from "../../lake/objects.ts";
import { BODY_WINDOW, type LoadJob } from "./protocol.ts";
import { CONTINUATION, findCut } from "../../formats/json/cuts.ts";
import { ZngCuts } from "../../formats/zng/cuts.ts";
import type { LoadedObjects, LoadTask } from "./tasks.ts";

/** A body is cut into parts of at least this many bytes... */
export const PART_MIN = 2 << 20;
/** ...and at most this many (a part's objects are written when it ends). */
export const PART_MAX = 32 << 20;
/**
 * The first parts of a body of unknown length; each round of parts (one
 * per worker) is twice the size of the last, up to PART_MAX, so a long body
 * makes about as many objects as when its length is known.
 */
export const STREAM_PART = 4 << 20;
/**
 * ZNG holds about this many times the records of JSON in a byte (its values
 * binary, LZ4-compressed: the Zeek logs' 62.5 MB of JSON are 5.2 MB of ZNG),
 * so its parts are this much shorter, for as many records a part.
 */
export const ZNG_DENSITY = 8;

/** What the splitter needs of the worker pool. */
export interface LoadWorkers {
  /** Workers that can take a part now. */
  readonly ready: number;
  /** The first parts of a body of unknown length (STREAM_PART). */
  readonly streamPart: number;
  /** Starts a load on the least busy worker (one that is ready, when readyOnly). */
  startLoad(job: LoadJob, readyOnly: boolean): LoadTask;
}

/** How a split load ended: what to commit, or its error; and objects to remove. */
export interface PartsOutcome {
  loaded: LoadedObjects | null;
  error: unknown;
  /** Objects written by parts whose values are not in the result. */
  unused: ObjectRecord[];
}

/**
 * The size of a body's parts: one per ready worker, within PART_MIN and
 * PART_MAX; STREAM_PART at first when its length is unknown; 0: whole.
 * Each of those divided by density (ZNG_DENSITY for ZNG).
 */
export function partSize(
  length: number | null,
  ready: number,
  stream = STREAM_PART,
  density = 1,
): number {
  if (ready < 2) return 0;
  if (length === null) return Math.ceil(stream / density);
  const min = PART_MIN / density;
  if (length < 2 * min) return 0;
  return Math.min(PART_MAX / density, Math.max(min, Math.ceil(length / ready)));
}

/** Where the part after one that ended at `sent` ends (Infinity: at the body's end). */
function nextCut(length: number | null, sent: number, size: number, min: number): number {
  if (length === null) return sent + size;
  return length - sent >= size + min ? sent + size : Infinity;
}

/** Where a body may be cut into parts, followed chunk by chunk (offsets are the body's). */
interface Cuts {
  /** The body's next bytes, from offset base. */
  follow(chunk: Uint8Array, base: number): void;
  /** The first offset at or after `from`, in the chunk followed last, where a part may start; -1 if none. */
  at(from: number): number;
  /** What a part starting at `at` begins with, before the body's bytes from there. */
  prefix(at: number): Uint8Array | null;
  /** What a part that a cut ends is told follows it. */
  readonly continuation: string | undefined;
}

/** JSON cuts (formats/json/cuts.ts): a part is told it is followed by CONTINUATION. */
class JsonCuts implements Cuts {
  readonly continuation = CONTINUATION;
  private chunk: Uint8Array = new Uint8Array(0);
  private base = 0;

  follow(chunk: Uint8Array, base: number): void {
    this.chunk = chunk;
    this.base = base;
  }

  at(from: number): number {
    const i = findCut(this.chunk, from - this.base);
    return i < 0 ? -1 : this.base + i;
  }

  prefix(): null {
    return null;
  }
}

/** ZNG cuts: each part a stream of its own, the types before its cut first. */
class ZngParts extends ZngCuts implements Cuts {
  readonly continuation = undefined;
}

/** How a body in format is cut, and each part's job; null where it is loaded whole. */
function partsOf(format: string | null, job: LoadJob): { cuts: Cuts; job: LoadJob } | null {
  if (format === "json") return { cuts: new JsonCuts(), job: { ...job, format, part: true } };
  if (format === "zng") return { cuts: new ZngParts(), job: { ...job, format } };
  return null;
}

/**
 * Feeds body (length bytes, when known) to the workers: in parts when it is
 * JSON or ZNG and long enough for two, else whole to one. Parts are sent
 * ahead of their workers' reading as far as it takes to keep every ready
 * worker busy (a part must be sent whole before the next can start).
 */
export async function feedLoad(
  workers: LoadWorkers,
  job: LoadJob,
  body: ReadableStream<Uint8Array>,
  length: number | null,
): Promise<PartsOutcome> {
  const input = ByteInput.fromStream(body, "request body");
  // The format, where the body may be long enough to cut (ZNG's parts are the shortest).
  const format = partSize(length, workers.ready, workers.streamPart, ZNG_DENSITY) > 0
    ? await detectedFormat(input, job.format)
    : null;
  const density = format === "zng" ? ZNG_DENSITY : 1;
  const partMin = PART_MIN / density, partMax = PART_MAX / density;
  let size = partSize(length, workers.ready, workers.streamPart, density);
  const parts = size > 0 ? partsOf(format, job) : null;
  if (parts === null) size = 0;
  const cuts = parts?.cuts ?? null;
  const partJob = parts?.job ?? job;
  const ready = workers.ready;
  const windowOf = () => size > 0 ? Math.max(BODY_WINDOW, size * ready) : BODY_WINDOW;
  let window = windowOf();
  const tasks: LoadTask[] = [];
  try {
    let task = workers.startLoad(partJob, size > 0);
    tasks.push(task);
    let sent = 0;
    let target = size > 0 ? size : Infinity;
    for (;;) {
      await roomFor(tasks, window);
      // A part that failed or warned ends the input (the first part whose
      // worker stopped reading, the current one at the latest).
      if (tasks.some((t) => t.settled && (t.failed || t.warned)) || task.settled) break;
      let chunk;
      try {
        chunk = await input.read();
      } catch (e) {
        task.bodyFailed(messageOf(e));
        break;
      }
      if (chunk === null) {
        task.end();
        break;
      }
      cuts?.follow(chunk, sent);
      while (cuts !== null && sent + chunk.length > target) {
        const cut = cuts.at(Math.max(sent, target));
        if (cut < 0) break;
        const k = cut - sent;
        if (k > 0) task.send(chunk.subarray(0, k));
        task.end(cuts.continuation);
        sent += k;
        chunk = chunk.subarray(k);
        if (length === null && tasks.length % ready === 0) {
          size = Math.min(partMax, size * 2);
          window = windowOf();
        }
        target = nextCut(length, sent, size, partMin);
        task = workers.startLoad(partJob, true);
        tasks.push(task);
        const first = cuts.prefix(cut);
        if (first !== null && first.length > 0) task.send(first);
      }
      if (chunk.length > 0) {
        sent += chunk.length;
        task.send(chunk); // (which detaches it)
      }
    }
  } finally {
    // A load that ended before its body did reads no more of it.
    await input.cancel().catch(() => {});
  }
  const settled = await Promise.allSettled(tasks.map((t) => t.result));
  return combineParts(settled);
}

/** Waits until the parts' workers have all but window bytes of what was sent them. */
async function roomFor(tasks: LoadTask[], window: number): Promise<void> {
  for (;;) {
    let ahead = 0;
    const waits: Promise<void>[] = [];
    for (const t of tasks) {
      if (t.settled || t.ahead === 0) continue;
      ahead += t.ahead;
      waits.push(t.waitCredit());
    }
    if (ahead <= window) return;
    await Promise.race(waits);
  }
}

/**
 * The result of the parts together, as the whole body read in one would
 * give: parts up to the first that failed or warned (a format error ends
 * the input); a failure fails the load.
 */
export function combineParts(settled: PromiseSettledResult<LoadedObjects>[]): PartsOutcome {
  const objects: ObjectRecord[] = [];
  const unused: ObjectRecord[] = [];
  let warnings: string[] = [];
  let error: unknown = null;
  let ended = false;
  for (const s of settled) {
    if (ended) {
      if (s.status === "fulfilled") unused.push(...s.value.objects);
      continue;
    }
    if (s.status === "rejected") {
      error = s.reason ?? new LochError("internal", "load failed");
      ended = true;
      continue;
    }
    objects.push(...s.value.objects);
    if (s.value.warnings.length > 0) {
      warnings = s.value.warnings;
      ended = true;
    }
  }
  if (error !== null) return { loaded: null, error, unused: [...objects, ...unused] };
  return { loaded: { objects, warnings }, error: null, unused };
}
