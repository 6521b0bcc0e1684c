// The S3 calls S3Storage makes (and its bridge worker, for synchronous
// reads), signed by npm:aws4fetch, with path-style URLs. aws4fetch's own
// retries are off (they leave the failed answers' bodies unread and do not
// cover network failures); send() retries 5xx, 429 and network failures a
// few times instead. Failures become LochErrors: 404 "not found", anything
// else "upstream", with S3's error code and message from the XML body.

import { AwsClient } from "aws4fetch";
import { createHash } from "node:crypto";
import { LochError } from "../../errors.ts";
import type { S3Config, S3Location } from "./config.ts";

/** Longest wait for an answer's headers (a request is then failed, or sent again). */
const ANSWER_TIMEOUT_MS = 60_000;
const RETRY_MS = 100;
const STATUS: Record<number, string> = {
  400: "BadRequest",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  412: "PreconditionFailed",
  500: "InternalError",
  501: "NotImplemented",
  503: "ServiceUnavailable",
};
const DELETE_BATCH = 1000;

export interface S3Request {
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Uint8Array<ArrayBuffer> | string;
}

/** An answer read whole. */
export interface S3Answer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

export class S3Client {
  private readonly aws: AwsClient;
  /** Whether the store takes DeleteObjects (POST ?delete); learned on first use. */
  private batchDeletes = true;

  constructor(readonly config: S3Config) {
    this.aws = new AwsClient({
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      sessionToken: config.sessionToken,
      region: config.region,
      service: "s3",
      retries: 0,
    });
  }

  url(loc: S3Location, query: Record<string, string> = {}): string {
    const key = loc.key === "" ? "" : "/" + loc.key.split("/").map(encode).join("/");
    const q = Object.entries(query).map(([k, v]) => v === "" ? encode(k) : `${k}=${encode(v)}`);
    return `${this.config.endpoint}/${loc.bucket}${key}${q.length ? "?" + q.join("&") : ""}`;
  }

  /** Sends a request; again, after a pause, on a 5xx or 429 answer or a network failure. */
  async send(method: string, loc: S3Location, req: S3Request = {}): Promise<Response> {
    for (let attempt = 0;; attempt++) {
      const last = attempt >= this.config.retries;
      const abort = new AbortController();
      const timer = setTimeout(
        () => abort.abort(new Error("no answer in time")),
        ANSWER_TIMEOUT_MS,
      );
      let res: Response;
      try {
        res = await this.aws.fetch(this.url(loc, req.query), {
          method,
          headers: req.headers,
          body: req.body,
          signal: abort.signal,
        });
      } catch (e) {
        if (last) throw upstream(method, loc, `cannot reach ${this.config.endpoint}: ${why(e)}`);
        await pause(attempt);
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (last || (res.status < 500 && res.status !== 429)) return res;
      await res.body?.cancel();
      await pause(attempt);
    }
  }

  /** send(), reading the answer whole (also sent again when reading it fails). */
  async call(method: string, loc: S3Location, req: S3Request = {}): Promise<S3Answer> {
    for (let attempt = 0;; attempt++) {
      const res = await this.send(method, loc, req);
      try {
        return { status: res.status, headers: res.headers, body: await res.bytes() };
      } catch (e) {
        if (attempt >= this.config.retries) throw upstream(method, loc, why(e));
        await pause(attempt);
      }
    }
  }

  /** The error for a failed answer (its body read, if not yet). */
  async error(method: string, loc: S3Location, res: Response | S3Answer): Promise<LochError> {
    const body = res instanceof Response ? await res.text().catch(() => "") : text(res.body);
    // HEAD answers have no body: the status's name stands in for the code.
    const code = tag(body, "Code") ?? (STATUS[res.status] ?? "Error");
    if (res.status === 404 && code !== "NoSuchBucket" && code !== "NoSuchUpload") {
      return new LochError("not found", `${where(loc)}: file does not exist`);
    }
    const message = tag(body, "Message");
    return upstream(method, loc, `${res.status} ${code}${message ? `: ${message}` : ""}`);
  }

  /** The object's size and time, or undefined when there is none. */
  async head(loc: S3Location): Promise<{ size: number; mtimeMs: number } | undefined> {
    const res = await this.call("HEAD", loc);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw await this.error("HEAD", loc, res);
    const mtimeMs = Date.parse(res.headers.get("last-modified") ?? "");
    return { size: Number(res.headers.get("content-length")), mtimeMs: mtimeMs || 0 };
  }

  /** Puts an object whole. */
  async put(loc: S3Location, body: Uint8Array<ArrayBuffer>): Promise<void> {
    const res = await this.call("PUT", loc, { body });
    if (res.status !== 200) throw await this.error("PUT", loc, res);
  }

  async createUpload(loc: S3Location): Promise<string> {
    const res = await this.call("POST", loc, { query: { uploads: "" } });
    const id = tag(text(res.body), "UploadId");
    if (res.status !== 200 || id === undefined) throw await this.error("POST", loc, res);
    return id;
  }

  /** Uploads part n (from 1) of an upload; returns its ETag. */
  async uploadPart(
    loc: S3Location,
    uploadId: string,
    n: number,
    body: Uint8Array<ArrayBuffer>,
  ): Promise<string> {
    const res = await this.call("PUT", loc, { query: { partNumber: `${n}`, uploadId }, body });
    const etag = res.headers.get("etag");
    if (res.status !== 200 || etag === null) throw await this.error("PUT", loc, res);
    return etag;
  }

  /** Makes the object of the parts (ETags in part order). S3 can fail it in a 200 answer. */
  async completeUpload(loc: S3Location, uploadId: string, etags: string[]): Promise<void> {
    const parts = etags.map((e, i) =>
      `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escape(e)}</ETag></Part>`
    );
    const body = `<CompleteMultipartUpload>${parts.join("")}</CompleteMultipartUpload>`;
    const res = await this.call("POST", loc, { query: { uploadId }, body });
    if (res.status !== 200 || text(res.body).includes("<Error>")) {
      throw await this.error("POST", loc, {
        ...res,
        status: res.status === 200 ? 502 : res.status,
      });
    }
  }

  async abortUpload(loc: S3Location, uploadId: string): Promise<void> {
    const res = await this.call("DELETE", loc, { query: { uploadId } });
    if (res.status !== 204 && res.status !== 200 && res.status !== 404) {
      throw await this.error("DELETE", loc, res);
    }
  }

  /** All keys under prefix, and (with a delimiter) the common prefixes, following continuations. */
  async list(
    bucket: string,
    prefix: string,
    delimiter?: string,
  ): Promise<{ keys: string[]; prefixes: string[] }> {
    const keys: string[] = [], prefixes: string[] = [];
    const loc = { bucket, key: "" };
    let token: string | undefined;
    for (;;) {
      const query: Record<string, string> = { "list-type": "2", prefix };
      if (delimiter !== undefined) query.delimiter = delimiter;
      if (token !== undefined) query["continuation-token"] = token;
      const res = await this.call("GET", loc, { query });
      if (res.status !== 200) throw await this.error("GET", { bucket, key: prefix }, res);
      const xml = text(res.body);
      for (const c of blocks(xml, "Contents")) keys.push(tag(c, "Key") ?? "");
      for (const c of blocks(xml, "CommonPrefixes")) prefixes.push(tag(c, "Prefix") ?? "");
      token = tag(xml, "NextContinuationToken");
      if (tag(xml, "IsTruncated") !== "true" || token === undefined) break;
    }
    return { keys, prefixes };
  }

  /** Deletes an object; an absent one is no error. */
  async delete(loc: S3Location): Promise<void> {
    const res = await this.call("DELETE", loc);
    if (res.status !== 204 && res.status !== 200 && res.status !== 404) {
      throw await this.error("DELETE", loc, res);
    }
  }

  /** Deletes objects: DeleteObjects in batches, or one by one where the store lacks it. */
  async deleteMany(bucket: string, keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      if (this.batchDeletes && await this.deleteBatch(bucket, batch)) continue;
      for (let j = 0; j < batch.length; j += 8) {
        await Promise.all(batch.slice(j, j + 8).map((key) => this.delete({ bucket, key })));
      }
    }
  }

  /** DeleteObjects; false when the store does not implement it. */
  private async deleteBatch(bucket: string, keys: string[]): Promise<boolean> {
    const objects = keys.map((k) => `<Object><Key>${escape(k)}</Key></Object>`).join("");
    const body = `<Delete><Quiet>true</Quiet>${objects}</Delete>`;
    const md5 = createHash("md5").update(body).digest("base64");
    const loc = { bucket, key: "" };
    const res = await this.call("POST", loc, {
      query: { delete: "" },
      body,
      headers: { "Content-MD5": md5 },
    });
    if (res.status === 501 || res.status === 405) {
      this.batchDeletes = false;
      return false;
    }
    if (res.status !== 200) throw await this.error("POST", loc, res);
    const failed = blocks(text(res.body), "Error").filter((e) => tag(e, "Code") !== "NoSuchKey");
    if (failed.length > 0) {
      const e = failed[0];
      const message = `${tag(e, "Code")}: ${tag(e, "Message") ?? ""} (and ${
        failed.length - 1
      } more)`;
      throw upstream("DELETE", { bucket, key: tag(e, "Key") ?? "" }, message);
    }
    return true;
  }
}

/** The s3:// URL of a location, for messages. */
export function where(loc: S3Location): string {
  return `s3://${loc.bucket}${loc.key === "" ? "" : "/" + loc.key}`;
}

export function upstream(method: string, loc: S3Location, message: string): LochError {
  return new LochError("upstream", `S3 ${method} ${where(loc)}: ${message}`);
}

function why(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The pause before attempt + 1 (from 0): 100 ms, doubling, jittered. */
export function pause(attempt: number): Promise<void> {
  const ms = RETRY_MS * 2 ** attempt * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** encodeURIComponent, also encoding !'()* (as S3 signatures want). */
function encode(s: string): string {
  return encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}

const decoder = new TextDecoder();
const text = (b: Uint8Array) => decoder.decode(b);

// S3's XML is simple enough for regular expressions: no attributes on the
// elements read here, no CDATA; text is entity-escaped.

/** The inner XML of each <name>…</name>. */
function blocks(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, "g"))].map((m) => m[1]);
}

/** The text of the first <name>…</name>, unescaped. */
function tag(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return m === null ? undefined : unescape(m[1]);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function unescape(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] !== "#") return ENTITIES[e] ?? m;
    return String.fromCodePoint(
      e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1)),
    );
  });
}

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&${Object.keys(ENTITIES).find((k) => ENTITIES[k] === c)};`);
}
