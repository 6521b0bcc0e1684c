// The console's client of the lake API: the same routes every other client
// uses, with the bearer token from the token box when there is one. Every
// failure is an ApiError carrying the server's own message.

import { ZJSONDecoder } from "./zjson.js";

export class ApiError extends Error {
  constructor(status, kind, message) {
    super(message);
    this.status = status;
    this.kind = kind;
  }
}

/** The error a failed response carries (`{"type":"Error","kind":…,"error":…}`), or its text. */
async function failure(res) {
  const text = await res.text();
  try {
    const e = JSON.parse(text);
    if (e && typeof e.error === "string") return new ApiError(res.status, e.kind ?? "", e.error);
  } catch {
    // Not JSON: the text itself (Go's "404 page not found").
  }
  return new ApiError(res.status, "", text.trim() || `${res.status} ${res.statusText}`);
}

export class Api {
  constructor(storage = globalThis.localStorage) {
    this.storage = storage;
    this.token = storage?.getItem("loch.token") ?? "";
  }

  setToken(token) {
    this.token = token.trim();
    if (this.token === "") this.storage?.removeItem("loch.token");
    else this.storage?.setItem("loch.token", this.token);
  }

  headers(extra = {}) {
    const h = { ...extra };
    if (this.token !== "") h.Authorization = `Bearer ${this.token}`;
    return h;
  }

  /** A JSON request; the parsed body (undefined for 204). */
  async json(method, path, body) {
    const init = { method, headers: this.headers({ Accept: "application/json" }) };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    const res = await fetch(path, init);
    if (!res.ok) throw await failure(res);
    if (res.status === 204) return undefined;
    return await res.json();
  }

  /** All values a (small) query yields, as plain JSON. */
  async values(query) {
    const res = await fetch("/query", {
      method: "POST",
      headers: this.headers({ Accept: "application/x-ndjson", "Content-Type": "application/json" }),
      body: JSON.stringify({ query }),
    });
    if (!res.ok) throw await failure(res);
    const text = await res.text();
    return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  }

  /** A query's results as a ResultStream of ZJSON values, read as the table pages. */
  async stream(query, signal) {
    const res = await fetch("/query?ctrl=true", {
      method: "POST",
      headers: this.headers({ Accept: "application/x-zjson", "Content-Type": "application/json" }),
      body: JSON.stringify({ query }),
      signal,
    });
    if (!res.ok) throw await failure(res);
    return new ResultStream(res.body);
  }

  /**
   * Loads a file into a branch with XMLHttpRequest, the one browser API that
   * reports upload progress. The body goes without a Content-Type, so the
   * server detects the format as it does for curl.
   */
  load(pool, branch, file, onProgress) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", `/pool/${encodeURIComponent(pool)}/branch/${encodeURIComponent(branch)}`);
      for (const [k, v] of Object.entries(this.headers({ Accept: "application/json" }))) {
        xhr.setRequestHeader(k, v);
      }
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) onProgress(e.loaded / e.total);
      };
      xhr.onload = () => {
        if (xhr.status >= 200 && xhr.status < 300) {
          resolve(JSON.parse(xhr.responseText));
          return;
        }
        let err = new ApiError(xhr.status, "", xhr.responseText.trim() || `HTTP ${xhr.status}`);
        try {
          const e = JSON.parse(xhr.responseText);
          if (typeof e.error === "string") err = new ApiError(xhr.status, e.kind ?? "", e.error);
        } catch {
          // Keep the text.
        }
        reject(err);
      };
      xhr.onerror = () => reject(new ApiError(0, "", "the connection to the server failed"));
      // slice() gives a Blob with no type: no Content-Type header is sent.
      xhr.send(file.slice(0, file.size));
    });
  }
}

/**
 * The values of a ZJSON query response with control messages (`?ctrl=true`),
 * read only as far as someone asks: the table pulls a page at a time.
 */
export class ResultStream {
  constructor(body) {
    this.reader = body.pipeThrough(new TextDecoderStream()).getReader();
    this.decoder = new ZJSONDecoder();
    this.rows = [];
    this.pending = "";
    this.done = false;
    this.error = null;
    this.stats = null;
  }

  /** Reads until at least n rows are held or the stream ends. */
  async fill(n) {
    while (this.rows.length < n && !this.done) {
      const { value, done } = await this.reader.read();
      if (done) {
        this.done = true;
        if (this.pending !== "") this.line(this.pending);
        break;
      }
      const lines = (this.pending + value).split("\n");
      this.pending = lines.pop();
      for (const l of lines) if (l !== "") this.line(l);
    }
  }

  line(l) {
    const o = JSON.parse(l);
    if (typeof o.type === "string") {
      // A control message: QueryChannelSet/End, QueryStats, QueryError.
      if (o.type === "QueryError") this.error = o.value.error;
      else if (o.type === "QueryStats") this.stats = o.value;
      return;
    }
    this.rows.push(this.decoder.decode(o));
  }

  cancel() {
    this.done = true;
    this.reader.cancel().catch(() => {});
  }
}
