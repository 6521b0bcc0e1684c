// The service's log, to stderr: one line per request at debug level (a
// failed one at warn), errors that are bugs (not LochErrors) at error.

import { messageOf } from "../errors.ts";
import { requestURL } from "./url.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function isLogLevel(s: string): s is LogLevel {
  return s in RANK;
}

export class Logger {
  constructor(private level: LogLevel) {}

  private enabled(l: LogLevel): boolean {
    return RANK[l] >= RANK[this.level];
  }

  private line(l: LogLevel, msg: string): void {
    console.error(`${new Date().toISOString()} ${l} ${msg}`);
  }

  info(msg: string): void {
    if (this.enabled("info")) this.line("info", msg);
  }

  request(req: Request, status: number, ms: number): void {
    const l: LogLevel = status >= 500 ? "warn" : "debug";
    if (!this.enabled(l)) return;
    const url = requestURL(req);
    this.line(l, `${req.method} ${url.pathname}${url.search} ${status} ${ms.toFixed(1)}ms`);
  }

  error(e: unknown): void {
    if (!this.enabled("error")) return;
    this.line("error", e instanceof Error && e.stack ? e.stack : messageOf(e));
  }
}
