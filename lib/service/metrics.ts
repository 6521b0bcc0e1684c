// GET /metrics in the Prometheus text format, through prom-client (it runs
// under Deno). What the server counts as it works (requests, queries, loads,
// commits, refusals) and what it reads when scraped (pools' objects and
// bytes, event streams, workers, queued queries, memory). Every metric is
// listed in the README.

import client from "prom-client";
import type { Lake } from "../lake/lake.ts";
import { toBase62 } from "../lake/ksuid.ts";
import type { GateCounts } from "./gate.ts";

/** What a scrape reads from the server at that moment. */
export interface MetricsSources {
  lake: Lake;
  eventStreams(): number;
  workers(): { started: number; tasks: number; retired: number } | null;
  queries(): { running: number; waiting: number } | null;
  /** The connection gate's counts (null: no gate). */
  connections(): GateCounts | null;
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
  private queriesTotal = this.counter(
    "loch_queries_total",
    "Queries run to the end of their output (or until their client went away)",
  );
  private queryRecords = this.counter(
    "loch_query_records_read_total",
    "Records the queries' scans decoded",
  );
  private queryBytes = this.counter(
    "loch_query_bytes_read_total",
    "Bytes of records the queries' scans decoded",
  );
  private loads = this.counter("loch_loads_total", "Loads committed");
  private loadRecords = this.counter("loch_load_records_total", "Records loaded");
  private loadBytes = this.counter(
    "loch_load_bytes_total",
    "Bytes of data objects written by loads",
  );
  private commits = this.counter(
    "loch_commits_total",
    "Commits to branches (loads, deletes, merges, reverts, compactions)",
  );
  private unauthorized = this.counter(
    "loch_unauthorized_requests_total",
    "Requests refused for want of valid credentials (401)",
  );
  private readonly unsubscribe: () => void;

  constructor(src: MetricsSources) {
    this.unsubscribe = src.lake.subscribe((e) => {
      if (e.kind === "branch-commit") this.commits.inc();
    });
    const registers = [this.registry];
    const perPool = (name: string, help: string, pick: (p: PoolSize) => number) =>
      new client.Gauge({
        name,
        help,
        labelNames: ["pool"] as const,
        registers,
        collect() {
          this.reset();
          for (const p of poolSizes(src.lake)) this.set({ pool: p.name }, pick(p));
        },
      });
    perPool(
      "loch_pool_objects",
      "Data objects stored per pool (on any branch or commit not yet vacuumed)",
      (p) => p.objects,
    );
    perPool("loch_pool_bytes", "Bytes of data objects stored per pool", (p) => p.bytes);
    this.gauge("loch_event_streams", "Open /events streams", () => src.eventStreams());
    this.gauge("loch_workers", "Worker threads running", () => src.workers()?.started ?? 0);
    this.gauge(
      "loch_worker_tasks",
      "Queries and loads on the workers now",
      () => src.workers()?.tasks ?? 0,
    );
    this.gauge(
      "loch_workers_retired",
      "Workers replaced since start because their memory grew",
      () => src.workers()?.retired ?? 0,
    );
    this.gauge("loch_queries_running", "Queries running now", () => src.queries()?.running ?? 0);
    this.gauge(
      "loch_queries_waiting",
      "Queries waiting their turn",
      () => src.queries()?.waiting ?? 0,
    );
    this.gauge(
      "loch_connections_open",
      "Client connections open now",
      () => src.connections()?.open ?? 0,
    );
    new client.Counter({
      name: "loch_connections_refused_total",
      help: "Connections answered 503 because -max-connections were open",
      registers,
      collect() {
        this.reset();
        this.inc(src.connections()?.refused ?? 0);
      },
    });
    new client.Counter({
      name: "loch_connections_timed_out_total",
      help: "Connections closed by the header, idle or body timeout, by which",
      labelNames: ["timeout"] as const,
      registers,
      collect() {
        this.reset();
        const c = src.connections();
        this.inc({ timeout: "header" }, c?.headerTimeouts ?? 0);
        this.inc({ timeout: "idle" }, c?.idleTimeouts ?? 0);
        this.inc({ timeout: "body" }, c?.bodyTimeouts ?? 0);
      },
    });
    this.gauge(
      "loch_resident_memory_bytes",
      "The process's resident memory",
      () => Deno.memoryUsage().rss,
    );
  }

  private counter(name: string, help: string): client.Counter {
    return new client.Counter({ name, help, registers: [this.registry] });
  }

  /** A gauge read when scraped. */
  private gauge(name: string, help: string, read: () => number): void {
    new client.Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
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

interface PoolSize {
  name: string;
  objects: number;
  bytes: number;
}

function poolSizes(lake: Lake): PoolSize[] {
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
