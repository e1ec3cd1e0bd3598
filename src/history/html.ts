/**
 * `xbench history --html`: one self-contained page (no script, nothing fetched: the
 * Content-Security-Policy says so), a plot per row of its cumulative change along the commits
 * with the 95% band, gaps drawn as breaks, and a mark at each commit that moved the row; then
 * the same as tables, readable with no plot at all. Everything from the project is escaped.
 */
import { escapeHtml, pageStart, px, STYLE, tickLabel } from "../report/html.ts";
import { formatInterval, formatPercent } from "../report/text.ts";
import { normalQuantile } from "../stats/normal.ts";
import type { HistoryReport, RowHistory } from "./chain.ts";
import { coverageLine, cumulativeText } from "./terminal.ts";

// Geometry of one row's plot, in SVG user units (the SVG scales to the page's width).
const WIDTH = 960;
const LEFT = 64;
const RIGHT = 16;
const TOP = 14;
const PLOT_H = 150;
const AXIS_H = 22;
const TICKS = [-0.5, -0.25, -0.1, -0.05, -0.02, -0.01, 0, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1];

const short = (sha: string) => sha.slice(0, 12);

/** The y range of a row's plot, in log ratio: every drawn band edge and 0, padded; at least ±1%. */
function domain(row: RowHistory, z: number): [number, number] {
  const values = [0];
  for (const point of row.trend) if (point) values.push(point.log - z * point.se, point.log + z * point.se);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const span = Math.max(hi - lo, 0.02);
  lo -= span * 0.08;
  hi += span * 0.08;
  return [lo, hi];
}

type Point = [number, { log: number; se: number }];

/**
 * Runs of consecutive points between gaps. A run after a gap starts at the gap's commit with
 * 0: the chain starts again from there (its change against the run before is unknown).
 */
function runsOf(row: RowHistory): Point[][] {
  const runs: Point[][] = [];
  let current: Point[] = [];
  row.trend.forEach((point, i) => {
    if (point) {
      current.push([i, point]);
      return;
    }
    if (current.length > 1) runs.push(current);
    current = [[i, { log: 0, se: 0 }]];
  });
  if (current.length > 1) runs.push(current);
  return runs;
}

/** One row's plot: the cumulative change after each commit (line), its band, gaps and the moving commits. */
export function trendPlot(report: HistoryReport, row: RowHistory, index: number): string {
  const z = normalQuantile(1 - (1 - report.level) / 2);
  const [lo, hi] = domain(row, z);
  const count = report.commits.length;
  const plotW = WIDTH - LEFT - RIGHT;
  const x = (i: number) => LEFT + (count === 0 ? 0 : (i / count) * plotW);
  const y = (log: number) => TOP + ((hi - log) / (hi - lo)) * PLOT_H;
  const height = TOP + PLOT_H + AXIS_H;
  const id = `trend-${index}`;
  const out = [
    `<svg class="trend" data-row="${escapeHtml(row.id)}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-labelledby="${id}">`,
    `<title id="${id}">${escapeHtml(row.name)}: change since ${short(report.start.sha)} after each commit, with its ${Math.round(report.level * 100)}% band; up is slower</title>`,
  ];
  for (const t of TICKS) {
    const log = Math.log1p(t);
    if (log < lo || log > hi) continue;
    const ty = px(y(log));
    out.push(
      `<line class="${t === 0 ? "zero" : "grid"}" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${ty}" y2="${ty}"/>`,
      `<text class="tick" x="${LEFT - 6}" y="${px(y(log) + 4)}" text-anchor="end">${tickLabel(t)}</text>`,
    );
  }
  for (const run of runsOf(row)) {
    const upper = run.map(([i, p]) => `${px(x(i))},${px(y(p.log + z * p.se))}`);
    const lower = run.map(([i, p]) => `${px(x(i))},${px(y(p.log - z * p.se))}`).reverse();
    out.push(`<polygon class="trend-band" points="${[...upper, ...lower].join(" ")}"/>`);
    out.push(`<polyline class="trend-line" points="${run.map(([i, p]) => `${px(x(i))},${px(y(p.log))}`).join(" ")}"/>`);
  }
  row.steps.forEach((step, i) => {
    if (step.kind !== "gap") return;
    const gx = px(x(i + 1));
    out.push(
      `<line class="gap" data-sha="${step.sha}" x1="${gx}" x2="${gx}" y1="${TOP}" y2="${TOP + PLOT_H}"><title>${short(step.sha)}: gap (${escapeHtml(step.gap ?? "")})</title></line>`,
    );
  });
  for (const move of row.moved) {
    const i = report.commits.findIndex((c) => c.sha === move.sha) + 1;
    const point = row.trend[i]!;
    const cls = move.delta > 0 ? "slower" : "faster";
    out.push(
      `<g class="move ${cls}" data-sha="${move.sha}"><title>${short(move.sha)} ${escapeHtml(move.subject)}: ${escapeHtml(`${formatPercent(move.delta)} ${formatInterval(move.ci)}`)}</title>`,
      `<circle cx="${px(x(i))}" cy="${px(y(point.log))}" r="5"/></g>`,
    );
  }
  out.push(
    `<text class="tick" x="${LEFT}" y="${TOP + PLOT_H + 16}">${short(report.start.sha)}</text>`,
    `<text class="tick" x="${WIDTH - RIGHT}" y="${TOP + PLOT_H + 16}" text-anchor="end">${short(report.head.sha)} (HEAD)</text>`,
    "</svg>",
  );
  return out.join("\n");
}

function movesTable(row: RowHistory): string {
  if (row.moved.length === 0) return `<p class="hint">No commit moved this row beyond the minimum effect.</p>`;
  const lines = row.moved.map(
    (move) =>
      `<tr><td><code>${short(move.sha)}</code></td><td class="num ${move.delta > 0 ? "slower" : "faster"}">${escapeHtml(formatPercent(move.delta))}</td><td class="num">${escapeHtml(formatInterval(move.ci))}</td><td>${escapeHtml(move.subject)}</td></tr>`,
  );
  return `<table class="moves"><thead><tr><th>commit</th><th>step</th><th>95% CI</th><th>subject</th></tr></thead><tbody>\n${lines.join("\n")}\n</tbody></table>`;
}

function commitsTable(report: HistoryReport): string {
  const lines = report.commits.map((commit) => {
    const status = commit.status === "failed" ? `failed: ${commit.error ?? ""}` : commit.status;
    const cls = commit.status === "recorded" ? "" : ` class="gap-row"`;
    return `<tr${cls}><td><code>${short(commit.sha)}</code></td><td>${escapeHtml(status)}</td><td>${escapeHtml(commit.subject)}</td></tr>`;
  });
  return `<table class="commits"><thead><tr><th>commit</th><th>record</th><th>subject</th></tr></thead><tbody>\n${lines.join("\n")}\n</tbody></table>`;
}

const HISTORY_STYLE = `
svg .trend-band{fill:var(--line);fill-opacity:.55}svg .trend-line{fill:none;stroke:var(--fg);stroke-width:1.5}
svg .gap{stroke:var(--changed);stroke-width:1.5;stroke-dasharray:3 3}svg .move circle{stroke:var(--bg);stroke-width:1.5}
svg .move.slower circle{fill:var(--slower)}svg .move.faster circle{fill:var(--faster)}
tr.gap-row td{color:var(--changed)}p.cumulative{margin:2px 0 6px}
`;

export function renderHistoryHtml(report: HistoryReport): string {
  const title = `xbench history: ${short(report.start.sha)} to ${short(report.head.sha)}`;
  const rows = report.rows.map((row, i) =>
    [
      `<section class="row"><h2>${escapeHtml(row.name)}</h2>`,
      `<p class="cumulative">${escapeHtml(cumulativeText(row, report.head.sha))}</p>`,
      trendPlot(report, row, i),
      movesTable(row),
      "</section>",
    ].join("\n"),
  );
  const out = [
    ...pageStart(title, `${STYLE}${HISTORY_STYLE}`),
    "<header>",
    "<h1>xbench history</h1>",
    `<p class="summary">${report.commits.length} commits on the first-parent line from <code>${short(report.start.sha)}</code> to <code>${short(report.head.sha)}</code> (HEAD): ${escapeHtml(coverageLine(report.commits))}.</p>`,
    `<p class="hint">Each row's line is its change since the start after each commit: the sum of the commits' own steps (each commit against its parent), with a ${Math.round(report.level * 100)}% band from their variances added. A dashed line is a gap (a commit not recorded, failed, or without an interval for the row): the line starts again from 0 after it. A dot marks a commit whose own step is a confident change beyond ±${(report.minEffect * 100).toFixed(1)}%: red slower, green faster.</p>`,
    "</header>",
    rows.length > 0 ? rows.join("\n") : "<p>No rows.</p>",
    `<section id="commits"><h2>Commits</h2>`,
    commitsTable(report),
    "</section>",
    "</body>",
    "</html>",
  ];
  return `${out.join("\n")}\n`;
}
