// The loch web console: pools, branches and commits on the left; a query
// editor, the time histogram and the results table on the right. It talks
// to the server only through the public lake API (api.js), so it can do
// exactly what the caller's token allows and nothing else.

import { Api, ApiError } from "./api.js";
import { bars, bucketFor, Histogram, histogramQuery, spanOf, spanQuery } from "./histogram.js";
import { ResultsTable } from "./table.js";

const $ = (id) => document.getElementById(id);
const api = new Api();
const table = new ResultsTable($("results"), $("pager"), $("page-info"), $("prev"), $("next"));
const histogram = new Histogram($("histogram"));
const HISTORY_KEY = "loch.history";
const HISTORY_MAX = 50;

/** What is selected: the pool (its :pools record and stats) and the branch. */
const state = { pool: null, stats: null, branch: "main", run: 0, abort: null };

/** Shows err in the element with the given id (or hides it for null). */
function showError(id, err) {
  const el = $(id);
  el.hidden = err === null;
  el.textContent = err === null ? "" : err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError && err.status === 401) $("token-form").hidden = false;
}

/** A name as a Zed query writes it. */
function quoted(name) {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

function keyPath(pool) {
  return pool.layout.keys[0]?.join(".") ?? "ts";
}

function bytes(n) {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}

/** A span ({ts, dur} with dur in nanoseconds) as "start – end". */
function spanText(span) {
  if (span === null) return "—";
  const start = Date.parse(span.ts);
  const end = start + Number(span.dur) / 1e6;
  const iso = (ms) => new Date(ms).toISOString().replace(".000Z", "Z");
  return `${iso(start)} – ${iso(end)}`;
}

// ---- pools ----

async function loadPools() {
  showError("pools-error", null);
  let pools;
  try {
    pools = await api.values("from :pools | sort name");
  } catch (e) {
    showError("pools-error", e);
    return;
  }
  const stats = await Promise.all(
    pools.map((p) =>
      api.json("GET", `/pool/${encodeURIComponent(p.name)}/stats`).catch(() => null)
    ),
  );
  const list = $("pools");
  list.replaceChildren(...pools.map((p, i) => {
    const li = document.createElement("li");
    li.dataset.pool = p.name;
    if (state.pool?.name === p.name) li.className = "selected";
    const name = document.createElement("strong");
    name.textContent = p.name;
    const info = document.createElement("small");
    const s = stats[i];
    info.textContent = `${s === null ? "?" : bytes(s.size)} · ${keyPath(p)} ${p.layout.order}`;
    if (s?.span) info.textContent += ` · ${spanText(s.span)}`;
    li.append(name, info);
    li.addEventListener("click", () => selectPool(p, s));
    return li;
  }));
  if (pools.length === 0) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = "no pools yet";
    list.append(li);
  }
  if (state.pool !== null) {
    const again = pools.find((p) => p.name === state.pool.name);
    if (again === undefined) {
      state.pool = null;
      $("pool-detail").hidden = true;
    } else {
      state.pool = again;
      state.stats = stats[pools.indexOf(again)];
      showPoolInfo();
    }
  }
}

async function selectPool(pool, stats) {
  state.pool = pool;
  state.stats = stats;
  state.branch = "main";
  for (const li of $("pools").children) {
    li.classList.toggle("selected", li.dataset.pool === pool.name);
  }
  $("pool-detail").hidden = false;
  $("pool-title").textContent = pool.name;
  showPoolInfo();
  $("query").value = `from ${quoted(pool.name)}`;
  await loadBranches();
}

function showPoolInfo() {
  const p = state.pool, s = state.stats;
  const rows = [
    ["key", `${keyPath(p)} (${p.layout.order})`],
    ["size", s === null ? "?" : bytes(s.size)],
    ["span", s === null ? "?" : spanText(s.span)],
    ["id", p.id],
  ];
  $("pool-info").replaceChildren(...rows.flatMap(([k, v]) => {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v;
    return [dt, dd];
  }));
}

async function loadBranches() {
  const pool = state.pool;
  showError("log-error", null);
  let branches;
  try {
    branches = await api.values(`from ${quoted(pool.name)}:branches | sort branch.name`);
  } catch (e) {
    showError("log-error", e);
    return;
  }
  const select = $("branches");
  select.replaceChildren(...branches.map((b) => {
    const o = document.createElement("option");
    o.value = o.textContent = b.branch.name;
    return o;
  }));
  if (!branches.some((b) => b.branch.name === state.branch)) {
    state.branch = branches[0]?.branch.name ?? "main";
  }
  select.value = state.branch;
  await loadLog();
}

async function loadLog() {
  const pool = state.pool;
  showError("log-error", null);
  let commits;
  try {
    commits = await api.values(
      `from ${quoted(pool.name)}@${quoted(state.branch)}:log | has(message) | head 50`,
    );
  } catch (e) {
    showError("log-error", e);
    return;
  }
  $("log").replaceChildren(...commits.map((c) => {
    const li = document.createElement("li");
    const id = document.createElement("code");
    id.textContent = c.id.slice(2, 14);
    id.title = c.id;
    const what = document.createElement("div");
    what.textContent = c.message.split("\n")[0];
    const who = document.createElement("small");
    who.className = "muted";
    who.textContent = `${c.author || "anonymous"} · ${c.date}`;
    li.append(id, what, who);
    return li;
  }));
}

async function createPool(ev) {
  ev.preventDefault();
  showError("create-error", null);
  const name = $("pool-name").value.trim();
  const key = $("pool-key").value.trim() || "ts";
  try {
    await api.json("POST", "/pool", {
      name,
      layout: { order: $("pool-order").value, keys: [key.split(".")] },
    });
  } catch (e) {
    showError("create-error", e);
    return;
  }
  $("pool-name").value = "";
  await loadPools();
  const li = [...$("pools").children].find((l) => l.dataset.pool === name);
  li?.click();
}

// ---- loads ----

async function loadFile(file) {
  if (state.pool === null) return;
  showError("load-error", null);
  const progress = $("load-progress");
  progress.hidden = false;
  progress.value = 0;
  $("load-status").textContent = `loading ${file.name}…`;
  try {
    const res = await api.load(state.pool.name, state.branch, file, (f) => progress.value = f);
    progress.value = 1;
    const warn = res.warnings?.length ? ` (${res.warnings.join("; ")})` : "";
    $("load-status").textContent = `loaded ${file.name}: commit ${res.commit.slice(2, 14)}${warn}`;
  } catch (e) {
    $("load-status").textContent = "";
    showError("load-error", e);
  } finally {
    progress.hidden = true;
  }
  await loadPools();
  await loadLog();
}

function wireDrop() {
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const file = e.dataTransfer?.files[0];
    if (file) loadFile(file);
  });
  $("file").addEventListener("change", () => {
    const file = $("file").files[0];
    if (file) loadFile(file);
    $("file").value = "";
  });
}

// ---- queries ----

function history() {
  try {
    const h = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? "[]");
    return Array.isArray(h) ? h : [];
  } catch {
    return [];
  }
}

function remember(query) {
  const h = [query, ...history().filter((q) => q !== query)].slice(0, HISTORY_MAX);
  localStorage.setItem(HISTORY_KEY, JSON.stringify(h));
  showHistory();
}

function showHistory() {
  const select = $("history");
  select.replaceChildren(
    select.options[0],
    ...history().map((q) => {
      const o = document.createElement("option");
      o.value = q;
      o.textContent = q.length > 80 ? q.slice(0, 77) + "…" : q;
      return o;
    }),
  );
}

async function runQuery() {
  const query = $("query").value.trim();
  if (query === "") return;
  remember(query);
  const run = ++state.run;
  state.abort?.abort();
  state.abort = new AbortController();
  showError("query-error", null);
  $("query-stats").textContent = "running…";
  table.clear();
  const started = performance.now();
  const chart = drawHistogram(query, run);
  try {
    const stream = await api.stream(query, state.abort.signal);
    if (run !== state.run) return stream.cancel();
    await table.open(stream);
    if (stream.error !== null) showError("query-error", stream.error);
    const ms = Math.round(performance.now() - started);
    $("query-stats").textContent = `first page in ${ms} ms`;
  } catch (e) {
    if (run !== state.run) return;
    $("query-stats").textContent = "";
    showError("query-error", e);
  }
  await chart;
}

/** Draws the histogram for a query over the selected pool when its key is a time. */
async function drawHistogram(query, run) {
  const note = $("histogram-note");
  note.hidden = true;
  histogram.clear();
  if (state.pool === null) return;
  const key = keyPath(state.pool);
  let values;
  try {
    // The pool's span when its key is a time; else (times in strings) the results'.
    let span = state.stats?.span;
    if (!span || Number.isNaN(Date.parse(span.ts))) {
      span = spanOf((await api.values(spanQuery(query, key)))[0]);
    }
    if (span === null) values = [];
    else values = await api.values(histogramQuery(query, key, bucketFor(Number(span.dur))));
  } catch (e) {
    if (run !== state.run) return;
    note.textContent = `no histogram for this query: ${e.message}`;
    note.hidden = false;
    return;
  }
  if (run !== state.run) return;
  const data = bars(values);
  if (data[0].length === 0) {
    note.textContent = "no histogram: the results have no times";
    note.hidden = false;
    return;
  }
  histogram.draw(data, bucketSeconds(data[0]));
}

/** The width of a bar: the smallest step between buckets (1 s with one bar). */
function bucketSeconds(xs) {
  let step = Infinity;
  for (let i = 1; i < xs.length; i++) step = Math.min(step, xs[i] - xs[i - 1]);
  return Number.isFinite(step) ? step : 1;
}

// ---- start ----

async function start() {
  $("refresh").addEventListener("click", loadPools);
  $("create-pool").addEventListener("submit", createPool);
  $("branches").addEventListener("change", async () => {
    state.branch = $("branches").value;
    await loadLog();
  });
  $("query-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runQuery();
  });
  $("query").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      runQuery();
    }
  });
  $("history").addEventListener("change", () => {
    if ($("history").value !== "") $("query").value = $("history").value;
    $("history").value = "";
  });
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    api.setToken($("token").value);
    loadPools();
  });
  $("token").value = api.token;
  wireDrop();
  showHistory();
  try {
    const [version, method] = await Promise.all([
      fetch("/version").then((r) => r.json()),
      api.json("GET", "/auth/method"),
    ]);
    $("version").textContent = version.version;
    if (method.kind !== "" || api.token !== "") $("token-form").hidden = false;
  } catch (e) {
    showError("pools-error", e);
  }
  await loadPools();
  document.body.dataset.ready = "true";
}

start();
