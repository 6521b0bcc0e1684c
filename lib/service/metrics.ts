// GET /metrics in the Prometheus text format, through prom-client (it runs
// under Deno). What the server counts as it works (requests, queries, loads,
// commits, refusals) and what it reads when scraped (pools' objects and
// bytes, event streams, workers, queued queries, memory). Every metric is
// listed in the README.

import client from "prom-client";
import type { Lake } from "../lake/lake.ts";
import { toBase62 } from "../lake/ksuid.ts";

/** What a scrape reads from the server at that moment. */
export interface MetricsSources {
  lake: Lake;
  eventStreams(): number;
  workers(): { started: number; tasks: number; retired: number } | null;
  queries(): { running: number; waiting: number } | null;
}

/** What a query read. */
export interface QueryTotals {
  recordsRead: number;
  bytesRead: number;
}

const LATENCY_BUCKETS = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
];

export class Metrics {
  readonly registry = new client.Registry();
  private requests = new client.Counter({
    name: "loch_http_requests_total",
    help: "HTTP requests answered, by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  private requestSeconds = new client.Histogram({
    name: "loch_http_request_duration_seconds",
    help: "Time to a response's headers, by route",
    labelNames: ["route"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private querySeconds = new client.Histogram({
    name: "loch_query_duration_seconds",
    help: "Time from a query's start to the end of its output",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private queriesTotal = new client.Counter({
    name: "loch_queries_total",
    help: "Queries run to the end of their output (or until their client went away)",
    registers: [this.registry],
  });
  private queryRecords = new client.Counter({
    name: "loch_query_records_read_total",
    help: "Records the queries' scans decoded",
    registers: [this.registry],
  });
  private queryBytes = new client.Counter({
    name: "loch_query_bytes_read_total",
    help: "Bytes of records the queries' scans decoded",
    registers: [this.registry],
  });
  private loads = new client.Counter({
    name: "loch_loads_total",
    help: "Loads committed",
    registers: [this.registry],
  });
  private loadRecords = new client.Counter({
    name: "loch_load_records_total",
    help: "Records loaded",
    registers: [this.registry],
  });
  private loadBytes = new client.Counter({
    name: "loch_load_bytes_total",
    help: "Bytes of data objects written by loads",
    registers: [this.registry],
  });
  private commits = new client.Counter({
    name: "loch_commits_total",
    help: "Commits to branches (loads, deletes, merges, reverts, compactions)",
    registers: [this.registry],
  });
  private unauthorized = new client.Counter({
    name: "loch_unauthorized_requests_total",
    help: "Requests refused for want of valid credentials (401)",
    registers: [this.registry],
  });
  private readonly unsubscribe: () => void;

  constructor(src: MetricsSources) {
    this.unsubscribe = src.lake.subscribe((e) => {
      if (e.kind === "branch-commit") this.commits.inc();
    });
    const registers = [this.registry];
    new client.Gauge({
      name: "loch_pool_objects",
      help: "Data objects stored per pool (on any branch or commit not yet vacuumed)",
      labelNames: ["pool"] as const,
      registers,
      collect() {
        this.reset();
        for (const p of poolSizes(src.lake)) this.set({ pool: p.name }, p.objects);
      },
    });
    new client.Gauge({
      name: "loch_pool_bytes",
      help: "Bytes of data objects stored per pool",
      labelNames: ["pool"] as const,
      registers,
      collect() {
        this.reset();
        for (const p of poolSizes(src.lake)) this.set({ pool: p.name }, p.bytes);
      },
    });
    new client.Gauge({
      name: "loch_event_streams",
      help: "Open /events streams",
      registers,
      collect() {
        this.set(src.eventStreams());
      },
    });
    const worker = (
      name: string,
      help: string,
      pick: (w: { started: number; tasks: number; retired: number }) => number,
    ) =>
      new client.Gauge({
        name,
        help,
        registers,
        collect() {
          const w = src.workers();
          this.set(w === null ? 0 : pick(w));
        },
      });
    worker("loch_workers", "Worker threads running", (w) => w.started);
    worker("loch_worker_tasks", "Queries and loads on the workers now", (w) => w.tasks);
    worker(
      "loch_workers_retired",
      "Workers replaced since start because their memory grew",
      (w) => w.retired,
    );
    const queue = (
      name: string,
      help: string,
      pick: (q: { running: number; waiting: number }) => number,
    ) =>
      new client.Gauge({
        name,
        help,
        registers,
        collect() {
          const q = src.queries();
          this.set(q === null ? 0 : pick(q));
        },
      });
    queue("loch_queries_running", "Queries running now", (q) => q.running);
    queue("loch_queries_waiting", "Queries waiting their turn", (q) => q.waiting);
    new client.Gauge({
      name: "loch_resident_memory_bytes",
      help: "The process's resident memory",
      registers,
      collect() {
        this.set(Deno.memoryUsage().rss);
      },
    });
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.requestSeconds.observe({ route }, seconds);
    if (status === 401) this.unauthorized.inc();
  }

  query(seconds: number, totals: QueryTotals | null): void {
    this.queriesTotal.inc();
    this.querySeconds.observe(seconds);
    if (totals !== null) {
      this.queryRecords.inc(totals.recordsRead);
      this.queryBytes.inc(totals.bytesRead);
    }
  }

  load(records: number, bytes: number): void {
    this.loads.inc();
    this.loadRecords.inc(records);
    this.loadBytes.inc(bytes);
  }

  /** The exposition text. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  close(): void {
    this.unsubscribe();
  }
}

function poolSizes(lake: Lake): { name: string; objects: number; bytes: number }[] {
  const rows = lake.catalog.all<{ id: Uint8Array; name: string; n: number; size: number | null }>(
    "SELECT p.id AS id, p.name AS name, count(o.id) AS n, sum(o.size) AS size " +
      "FROM pools p LEFT JOIN objects o ON o.pool_id = p.id GROUP BY p.id, p.name",
  );
  return rows.map((r) => ({
    name: r.name || toBase62(r.id),
    objects: Number(r.n),
    bytes: Number(r.size ?? 0),
  }));
}
