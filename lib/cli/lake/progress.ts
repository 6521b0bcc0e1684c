// The progress line `loch load` keeps on a terminal's stderr: redrawn in
// place (carriage return, clear to end of line) at most every interval, and
// erased at the end so the command's output starts on a clean line.

import { abbrevBytes } from "./units.ts";

export interface LoadStatus {
  /** Values read so far (undefined when not counted). */
  records?: number;
  /** Input bytes read so far. */
  bytes: number;
  /** Total input bytes when known (files), else 0. */
  totalBytes: number;
  /** Inputs read to their end, and how many there are. */
  completed: number;
  inputs: number;
  /** Time since the load started. */
  elapsedMs: number;
}

/**
 * `(1/2) 12000 records 1.20MB/4.50MB 3.40MB/s 26.67%` (the record count,
 * total and percentage when known).
 */
export function progressText(s: LoadStatus): string {
  const rate = s.elapsedMs > 0 ? s.bytes / (s.elapsedMs / 1000) : 0;
  let text = `(${s.completed}/${s.inputs}) `;
  if (s.records !== undefined) text += `${s.records} records `;
  text += abbrevBytes(s.bytes);
  if (s.totalBytes > 0) text += `/${abbrevBytes(s.totalBytes)}`;
  text += ` ${abbrevBytes(Math.round(rate))}/s`;
  if (s.totalBytes > 0) text += ` ${(Math.min(s.bytes / s.totalBytes, 1) * 100).toFixed(2)}%`;
  return text;
}

const CLEAR_LINE = "\r\x1b[K";

export class ProgressLine {
  private last = -Infinity;
  private shown = false;
  private encoder = new TextEncoder();

  constructor(
    private out: (bytes: Uint8Array) => void,
    private columns: number,
    private intervalMs = 250,
    private now: () => number = () => performance.now(),
  ) {}

  /** A progress line on stderr. */
  static stderr(): ProgressLine {
    let columns = 80;
    try {
      columns = Deno.consoleSize().columns || columns;
    } catch {
      // not a console; keep the default
    }
    return new ProgressLine((b) => Deno.stderr.writeSync(b), columns);
  }

  /** Redraws the line unless it was drawn less than an interval ago. */
  update(text: string): void {
    const t = this.now();
    if (t - this.last < this.intervalMs) return;
    this.last = t;
    // A line wider than the terminal would wrap, and \r would not clear it.
    const max = Math.max(this.columns - 1, 1);
    const line = text.length > max ? text.slice(0, max) : text;
    this.out(this.encoder.encode(CLEAR_LINE + line));
    this.shown = true;
  }

  /** Erases the line if one was drawn. */
  clear(): void {
    if (this.shown) this.out(this.encoder.encode(CLEAR_LINE));
    this.shown = false;
  }
}
