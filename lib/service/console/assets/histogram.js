// The time histogram over the current query: the query piped into
// `count() by t:=bucket(<key>, <span>)`, drawn as bars with uPlot (served
// beside the console as /console/uplot.js, a global).

const SECOND = 1e9;
/** Bucket widths in nanoseconds, with their Zed duration text. */
const STEPS = [
  [1, "1s"],
  [5, "5s"],
  [10, "10s"],
  [30, "30s"],
  [60, "1m"],
  [300, "5m"],
  [600, "10m"],
  [1800, "30m"],
  [3600, "1h"],
  [3 * 3600, "3h"],
  [6 * 3600, "6h"],
  [12 * 3600, "12h"],
  [86400, "1d"],
  [7 * 86400, "7d"],
  [30 * 86400, "30d"],
  [365 * 86400, "365d"],
].map(([s, text]) => [s * SECOND, text]);

/** The narrowest bucket that covers a span of dur nanoseconds in at most `most` bars. */
export function bucketFor(dur, most = 120) {
  for (const [ns, text] of STEPS) if (dur / ns <= most) return { ns, text };
  return { ns: STEPS[STEPS.length - 1][0], text: STEPS[STEPS.length - 1][1] };
}

/**
 * The histogram query for a query over a pool keyed by key. The key may be
 * a time or a string holding one (JSON input has no times): time() takes both.
 */
export function histogramQuery(query, key, bucket) {
  return `${query}\n| count() by t:=bucket(time(${key}), ${bucket.text}) | sort t`;
}

/** The query that finds the time span of a query's results ({lo, hi} in JSON). */
export function spanQuery(query, key) {
  return `${query}\n| summarize lo:=min(time(${key})), hi:=max(time(${key}))`;
}

/** {ts, dur} (dur in nanoseconds) from spanQuery's value, or null when it has no times. */
export function spanOf(value) {
  const lo = Date.parse(value?.lo), hi = Date.parse(value?.hi);
  if (Number.isNaN(lo) || Number.isNaN(hi)) return null;
  return { ts: value.lo, dur: (hi - lo) * 1e6 };
}

/**
 * Bars from the histogram query's values ({t, count} in JSON): x in seconds
 * (uPlot's unit), y the counts; values whose t is not a time are skipped.
 */
export function bars(values) {
  const xs = [], ys = [];
  for (const v of values) {
    if (v === null || typeof v.t !== "string") continue;
    const ms = Date.parse(v.t);
    if (Number.isNaN(ms)) continue;
    xs.push(ms / 1000);
    ys.push(Number(v.count));
  }
  return [xs, ys];
}

export class Histogram {
  constructor(el) {
    this.el = el;
    this.plot = null;
  }

  clear() {
    this.plot?.destroy();
    this.plot = null;
  }

  /** Draws data ([xs, ys]); returns the number of bars. */
  draw(data, bucketSeconds) {
    this.clear();
    const width = Math.max(300, this.el.clientWidth || 800);
    this.plot = new globalThis.uPlot(
      {
        width,
        height: 160,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: {
          x: {
            time: true,
            range: (_u, min, max) => [min, max + bucketSeconds],
          },
        },
        axes: [{}, { size: 50 }],
        series: [
          {},
          {
            label: "count",
            fill: "rgba(42,111,219,0.6)",
            stroke: "#2a6fdb",
            paths: globalThis.uPlot.paths.bars({ size: [0.9, 60], align: 1 }),
            points: { show: false },
          },
        ],
      },
      data,
      this.el,
    );
    return data[0].length;
  }
}
