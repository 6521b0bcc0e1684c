// Where an S3 lake is and how to reach it: s3://bucket/prefix URLs (the
// lake's root; its files' paths are that root followed by /pools/…), and the
// endpoint, region and credentials, from constructor options or the standard
// AWS_* variables. Shared by S3Storage and its synchronous bridge's worker.

import { LochError } from "../../errors.ts";

/** Whether url names a place in S3-compatible object storage (s3://…). */
export function isS3(url: string): boolean {
  return /^s3:\/\//i.test(url);
}

/** An s3:// URL taken apart: the bucket, and the key (no leading or trailing slash; "" for the bucket). */
export interface S3Location {
  bucket: string;
  key: string;
}

// S3's rules for new buckets, plus uppercase and underscores (older buckets, other stores).
const BUCKET = /^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$/;

/**
 * Parses `s3://bucket/prefix…` (the prefix optional; one trailing slash
 * allowed). Throws an "invalid" LochError for anything else: another scheme,
 * a bad bucket name, empty, `.` or `..` segments, a query or fragment.
 */
export function parseS3URL(url: string): S3Location {
  const bad = (why: string) => new LochError("invalid", `invalid S3 location ${url}: ${why}`);
  if (!isS3(url)) throw bad("want s3://bucket/prefix");
  if (/[?#]/.test(url)) throw bad("no query or fragment allowed");
  const rest = url.slice("s3://".length).replace(/\/$/, "");
  const slash = rest.indexOf("/");
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const key = slash < 0 ? "" : rest.slice(slash + 1);
  if (bucket === "") throw bad("no bucket");
  if (!BUCKET.test(bucket) || bucket.includes("..")) throw bad(`bad bucket name "${bucket}"`);
  if (key !== "") {
    for (const seg of key.split("/")) {
      if (seg === "" || seg === "." || seg === "..") throw bad(`bad path segment "${seg}"`);
    }
  }
  return { bucket, key };
}

/** How to reach the store; anything left out comes from the environment. */
export interface S3Options {
  /** E.g. http://127.0.0.1:9000 (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL; else AWS's, by region). */
  endpoint?: string;
  /** AWS_REGION (else AWS_DEFAULT_REGION, else us-east-1). */
  region?: string;
  /** AWS_ACCESS_KEY_ID. */
  accessKeyId?: string;
  /** AWS_SECRET_ACCESS_KEY. */
  secretAccessKey?: string;
  /** AWS_SESSION_TOKEN (temporary credentials). */
  sessionToken?: string;
  /** Times a request is sent again after a 5xx/429 answer or a network failure; default 3. */
  retries?: number;
}

/** The settled configuration (plain data: it is sent to the bridge worker). */
export interface S3Config {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  retries: number;
}

/** A variable, or undefined when unset, empty, or not readable (no --allow-env). */
export function env(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined;
  }
}

/** Options over the environment; throws "invalid" without credentials or with a bad endpoint. */
export function s3Config(opts: S3Options = {}): S3Config {
  const region = opts.region ?? env("AWS_REGION") ?? env("AWS_DEFAULT_REGION") ?? "us-east-1";
  let endpoint = opts.endpoint ?? env("AWS_ENDPOINT_URL_S3") ?? env("AWS_ENDPOINT_URL") ??
    `https://s3.${region}.amazonaws.com`;
  endpoint = endpoint.replace(/\/+$/, "");
  let u: URL | undefined;
  try {
    u = new URL(endpoint);
  } catch {
    // reported below
  }
  if (u === undefined || !/^https?:$/.test(u.protocol) || u.search !== "" || u.hash !== "") {
    throw new LochError("invalid", `invalid S3 endpoint ${endpoint}: want http(s)://host[:port]`);
  }
  const accessKeyId = opts.accessKeyId ?? env("AWS_ACCESS_KEY_ID");
  const secretAccessKey = opts.secretAccessKey ?? env("AWS_SECRET_ACCESS_KEY");
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    throw new LochError(
      "invalid",
      "S3 storage needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    );
  }
  const sessionToken = opts.sessionToken ?? env("AWS_SESSION_TOKEN");
  const retries = opts.retries ?? 3;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new LochError("invalid", `invalid S3 retries: ${retries}`);
  }
  return { endpoint, region, accessKeyId, secretAccessKey, sessionToken, retries };
}
