/**
 * One self-contained HTML page of a compare: header, gate, a forest plot of every row's delta
 * and interval, the table, a strip plot of each timed row's per-round ratios, load and notes.
 * No script, font, image or style is fetched (a Content-Security-Policy of `default-src 'none'`
 * says so to the browser too), so the file can be attached to a CI run and opened anywhere.
 * Plots are inline SVG; the table is plain HTML, readable with JavaScript off.
 *
 * Everything from the project (benchmark names, error messages, refs) goes through `escapeHtml`.
 */
import { gateHeadline, gateRows } from "./gate.ts";
import { formatBound, formatInterval, measureLine, rowCells, rowNotes, runLine, runNotes, summaryLine, visible } from "./text.ts";
import { formatLoad } from "../util/load.ts";
import type { CompareResult, Row } from "../model/result.ts";
import type { Analysis, ShownResult } from "./analysis.ts";
import { profileHtml } from "./profile.ts";

/** Text for HTML content or a quoted attribute; control characters made visible first. */
export function escapeHtml(text: string): string {
  return visible(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The class a verdict is coloured by: slower red, faster green, ~ grey (see STYLE). */
function verdictClass(row: Row): string {
  const verdict = row.stats?.verdict ?? row.exact?.verdict ?? row.status;
  if (verdict === "slower" || verdict === "failed") return "slower";
  if (verdict === "faster") return "faster";
  if (verdict === "more" || verdict === "fewer" || verdict === "new" || verdict === "removed") return "changed";
  return "same";
}

/** A number for an SVG attribute: two decimals are sub-pixel, and keep the file small. */
export const px = (x: number) => String(Math.round(x * 100) / 100);

// Forest plot geometry, in SVG user units (the SVG scales to the page's width).
const WIDTH = 960;
const LABEL_W = 330;
const PLOT_X = LABEL_W + 10;
const PLOT_W = 420;
const VALUE_X = PLOT_X + PLOT_W + 14;
const ROW_H = 22;
const TOP = 28;
const AXIS_H = 30;

/**
 * Bounds beyond these are drawn at the edge with an arrow: a ratio of 11 (+1000%) or 0.1
 * (-90%). An unbounded interval (too few rounds) reaches them too.
 */
const MAX_LOG = Math.log(11);
const MIN_LOG = Math.log(0.1);

/** A fraction as a position in log-ratio space, where +x% and its inverse lie equally far from 0. */
const logRatio = (fraction: number) => (fraction <= -1 ? -Infinity : Math.log1p(fraction));

/** The x range of the plot in log-ratio space: every finite bound, delta and threshold, and 0, padded. */
function domain(rows: readonly Row[], threshold: number | undefined): [number, number] {
  const values = [0];
  for (const row of rows) {
    const s = row.stats!;
    for (const v of [s.ci[0], s.ci[1], s.delta]) {
      const x = logRatio(v);
      if (Number.isFinite(x)) values.push(Math.min(MAX_LOG, Math.max(MIN_LOG, x)));
    }
  }
  if (threshold !== undefined) values.push(logRatio(threshold));
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  // A table of identical rows still gets an axis: ±1% at least.
  const span = Math.max(hi - lo, 0.02);
  lo -= span * 0.08;
  hi += span * 0.08;
  if (hi - lo < 0.02) [lo, hi] = [lo - 0.01, hi + 0.01];
  return [lo, hi];
}

/** Tick labels on nice percentages; greedy outward from 0, so 0 is always one and labels never overlap. */
const TICKS = [-0.9, -0.75, -0.5, -0.25, -0.1, -0.05, -0.02, -0.01, -0.005, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];

function ticks(x: (log: number) => number, lo: number, hi: number): number[] {
  const inside = TICKS.filter((t) => logRatio(t) >= lo && logRatio(t) <= hi);
  const kept = [0];
  for (const side of [inside.filter((t) => t > 0), inside.filter((t) => t < 0).reverse()]) {
    let last = x(0);
    for (const t of side) {
      if (Math.abs(x(logRatio(t)) - last) < 48) continue;
      kept.push(t);
      last = x(logRatio(t));
    }
  }
  return kept.sort((a, b) => a - b);
}

export const tickLabel = (t: number) => (t === 0 ? "0" : `${t > 0 ? "+" : "−"}${+Math.abs(t * 100).toFixed(1)}%`);

/** The forest plot: one mark (interval line and delta dot) per row with an interval, on one log-ratio axis. */
export function forestPlot(result: CompareResult): string {
  const rows = result.rows.filter((row) => row.stats);
  if (rows.length === 0) return "";
  const threshold = result.gate?.rule.on === "above" ? result.gate.rule.above : undefined;
  const [lo, hi] = domain(rows, threshold);
  const x = (log: number) => PLOT_X + ((Math.min(hi, Math.max(lo, log)) - lo) / (hi - lo)) * PLOT_W;
  const height = TOP + rows.length * ROW_H + AXIS_H;
  const bottom = TOP + rows.length * ROW_H;
  const out: string[] = [];
  out.push(
    `<svg class="forest" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-labelledby="forest-title">`,
    `<title id="forest-title">Change per row: delta (dot) and 95% interval (line), head against base; right of 0 is slower</title>`,
    `<defs><clipPath id="label-clip"><rect x="0" y="0" width="${LABEL_W}" height="${height}"/></clipPath></defs>`,
    `<text class="axis-title" x="${PLOT_X}" y="16">← faster</text>`,
    `<text class="axis-title" x="${PLOT_X + PLOT_W}" y="16" text-anchor="end">slower →</text>`,
  );
  // Bands under every other row first, so the grid and the zero line stay on top of them.
  for (let i = 1; i < rows.length; i += 2) out.push(`<rect class="band" x="0" y="${TOP + i * ROW_H}" width="${WIDTH}" height="${ROW_H}"/>`);
  for (const t of ticks(x, lo, hi)) {
    const tx = px(x(logRatio(t)));
    out.push(
      `<line class="grid" x1="${tx}" x2="${tx}" y1="${TOP}" y2="${bottom}"/>`,
      `<text class="tick" x="${tx}" y="${bottom + 16}" text-anchor="middle">${tickLabel(t)}</text>`,
    );
  }
  out.push(`<line class="zero" x1="${px(x(0))}" x2="${px(x(0))}" y1="${TOP - 6}" y2="${bottom}"/>`);
  if (threshold !== undefined) {
    const tx = px(x(logRatio(threshold)));
    out.push(
      `<line class="threshold" x1="${tx}" x2="${tx}" y1="${TOP - 6}" y2="${bottom}"/>`,
      `<text class="threshold-label" x="${tx}" y="${bottom + 28}" text-anchor="middle">gate +${+(threshold * 100).toFixed(2)}%</text>`,
    );
  }
  rows.forEach((row, i) => {
    const s = row.stats!;
    const y = TOP + i * ROW_H + ROW_H / 2;
    const [l, h, d] = [logRatio(s.ci[0]), logRatio(s.ci[1]), logRatio(s.delta)];
    const cls = verdictClass(row);
    const name = escapeHtml(row.id);
    out.push(`<g class="mark ${cls}" data-verdict="${s.verdict}">`);
    out.push(`<title>${name}: ${escapeHtml(formatBound(s.delta))} ${escapeHtml(formatInterval(s.ci))} ${s.verdict}</title>`);
    out.push(`<text class="label" x="0" y="${px(y + 4)}" clip-path="url(#label-clip)">${name}</text>`);
    out.push(`<line class="ci" x1="${px(x(l))}" x2="${px(x(h))}" y1="${px(y)}" y2="${px(y)}"/>`);
    // An arrow where the interval runs past the drawn range (or is unbounded).
    if (l < lo) out.push(`<path class="arrow" d="M${px(PLOT_X)} ${px(y)}l6 -4v8z"/>`);
    if (h > hi) out.push(`<path class="arrow" d="M${px(PLOT_X + PLOT_W)} ${px(y)}l-6 -4v8z"/>`);
    out.push(`<circle class="point" cx="${px(x(d))}" cy="${px(y)}" r="4.5"/>`);
    out.push(`<text class="value" x="${VALUE_X}" y="${px(y + 4)}">${escapeHtml(`${formatBound(s.delta)} ${formatInterval(s.ci)}`)}</text>`);
    out.push("</g>");
  });
  out.push("</svg>");
  return out.join("\n");
}

/** Rows the forest plot cannot draw (no interval): exact metrics, new, removed, failed, unchanged code. */
function otherRows(result: ShownResult): string {
  const rows = result.rows.filter((row) => !row.stats);
  if (rows.length === 0) return "";
  const items = rows.map((row) => {
    const c = rowCells(row);
    const error = row.status === "failed" && row.error ? `: ${escapeHtml(row.error.message)}` : "";
    return `<li><span class="name">${escapeHtml(row.id)}</span> <span class="verdict ${verdictClass(row)}">${escapeHtml(c.verdict)}</span>${error}</li>`;
  });
  return `<p>Rows without an interval:</p>\n<ul class="other-rows">\n${items.join("\n")}\n</ul>`;
}

const STRIP_W = 420;
const STRIP_H = 34;

/** Per-round h/b of a row, for the rounds with a value on both sides. */
function roundRatios(row: Row): Array<{ round: number; ratio: number }> {
  const out: Array<{ round: number; ratio: number }> = [];
  row.base.forEach((b, i) => {
    const h = row.head[i];
    if (b !== null && h !== null && h !== undefined && b > 0 && h > 0) out.push({ round: i + 1, ratio: h / b });
  });
  return out;
}

/**
 * One row's per-round ratios as dots on its own log scale (0 always in view), with the delta as a
 * tick: the spread of a row is read against its own interval, not the widest row's.
 */
export function stripPlot(row: Row): string {
  const ratios = roundRatios(row);
  const logs = ratios.map((r) => Math.log(r.ratio));
  // The row's own range with 0 in it, so a tight cluster away from 0 keeps its spread.
  let lo = Math.min(0, ...logs);
  let hi = Math.max(0, ...logs);
  const pad = Math.max(hi - lo, 0.01) * 0.08;
  [lo, hi] = [lo - pad, hi + pad];
  const x = (log: number) => 8 + ((log - lo) / (hi - lo)) * (STRIP_W - 16);
  const out = [
    `<svg class="strip" viewBox="0 0 ${STRIP_W} ${STRIP_H}" width="${STRIP_W}" height="${STRIP_H}" role="img" aria-label="per-round ratios head/base">`,
    `<line class="zero" x1="${px(x(0))}" x2="${px(x(0))}" y1="2" y2="${STRIP_H - 2}"/>`,
  ];
  if (row.stats) {
    const dx = px(x(logRatio(row.stats.delta)));
    out.push(`<line class="delta ${verdictClass(row)}" x1="${dx}" x2="${dx}" y1="4" y2="${STRIP_H - 4}"/>`);
  }
  ratios.forEach((r, i) => {
    // A fixed vertical spread by round, so equal ratios do not hide each other.
    const y = 8 + ((i * 7) % (STRIP_H - 16));
    out.push(
      `<circle class="round" cx="${px(x(logs[i]!))}" cy="${y}" r="2.5"><title>round ${r.round}: ${escapeHtml(formatBound(r.ratio - 1))}</title></circle>`,
    );
  });
  out.push(
    `<text class="tick" x="2" y="${STRIP_H - 1}">${tickLabel(Math.expm1(lo))}</text>`,
    `<text class="tick" x="${STRIP_W - 2}" y="${STRIP_H - 1}" text-anchor="end">${tickLabel(Math.expm1(hi))}</text>`,
    "</svg>",
  );
  return out.join("");
}

function stripPlots(result: CompareResult): string {
  const rows = result.rows.filter((row) => row.stats && roundRatios(row).length > 0);
  if (rows.length === 0) return "";
  const lines = rows.map((row) => {
    const s = row.stats!;
    const spread = `median ${formatBound(s.ratioMedian)}, quartiles ${formatInterval([s.ratioQ1, s.ratioQ3])}, ${s.n} rounds`;
    return `<tr><th scope="row">${escapeHtml(row.id)}</th><td>${stripPlot(row)}</td><td>${escapeHtml(spread)}</td></tr>`;
  });
  return [
    `<section id="rounds"><h2>Per-round ratios head/base</h2>`,
    `<p class="hint">One dot per round, each row on its own scale; the vertical line is 0, the coloured tick the row's delta.</p>`,
    `<table class="strips"><tbody>`,
    ...lines,
    "</tbody></table></section>",
  ].join("\n");
}

function resultTable(result: ShownResult): string {
  const head = ["benchmark", "base", "head", "delta", "95% CI", "verdict"].map((h) => `<th scope="col">${h}</th>`).join("");
  const body = result.rows.map((row) => {
    const c = rowCells(row);
    const cells = [c.base, c.head, c.delta, c.ci].map((v) => `<td class="num">${escapeHtml(v)}</td>`).join("");
    return `<tr><th scope="row">${escapeHtml(row.id)}</th>${cells}<td class="verdict ${verdictClass(row)}">${escapeHtml(c.verdict)}</td></tr>`;
  });
  return `<table class="results">\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body.join("\n")}\n</tbody>\n</table>`;
}

function rawValues(rows: readonly Row[]): string {
  const values = (rounds: Row["base"]) =>
    rounds.length === 0 ? "—" : rounds.map((v) => (v === null ? "—" : String(Math.round(v * 100) / 100))).join(" ");
  const body = rows.map(
    (row) =>
      `<tr><th scope="row">${escapeHtml(row.id)}</th><td>${row.unit}</td><td class="raw">${values(row.base)}</td><td class="raw">${values(row.head)}</td></tr>`,
  );
  return `<details><summary>Raw per-round values</summary>\n<table class="raw-values"><thead><tr><th>benchmark</th><th>unit</th><th>base</th><th>head</th></tr></thead><tbody>\n${body.join("\n")}\n</tbody></table></details>`;
}

function revision(side: "base" | "head", result: CompareResult): string {
  const r = result[side];
  const dirty = r.dirty ? ` <span class="dirty">(dirty${r.sameCode ? ", same code" : ""})</span>` : "";
  return `<dt>${side}</dt><dd><code>${escapeHtml(r.sha.slice(0, 12))}</code> ${escapeHtml(r.ref)}${dirty}</dd>`;
}

function loadTable(result: CompareResult): string {
  const row = (what: string, load: readonly number[]) =>
    `<tr><th scope="row">${what}</th><td class="num">${formatLoad(load).split(" ").join('</td><td class="num">')}</td></tr>`;
  const rows = [row("start", result.loadavg.start), row("end", result.loadavg.end)];
  for (const shard of result.shards ?? []) {
    rows.push(row(`shard ${shard.index} start`, shard.loadavg.start), row(`shard ${shard.index} end`, shard.loadavg.end));
  }
  const cores = result.cores ? `<p>${result.cores} cores: a load above that means other work shared the machine.</p>` : "";
  return `<section id="load"><h2>Load average</h2>\n<table class="load"><thead><tr><th></th><th>1 min</th><th>5 min</th><th>15 min</th></tr></thead><tbody>${rows.join("")}</tbody></table>${cores}</section>`;
}

function gateSection(result: CompareResult): string {
  if (!result.gate) return "";
  const rows = gateRows(result.gate, result.measure ? 2 : 1).map(
    (r) => `<li><span class="name">${escapeHtml(r.id)}</span>: ${escapeHtml(r.text)}</li>`,
  );
  const list = rows.length > 0 ? `<ul>${rows.join("")}</ul>` : "";
  return `<div class="gate ${result.gate.outcome}"><strong>${escapeHtml(gateHeadline(result.gate))}</strong>${list}</div>`;
}

const FOOTNOTE =
  "Each round is one fresh bench process that loads base and head and measures them alternately " +
  "(or one process per side where noted). delta is the Hodges–Lehmann estimate of the per-round log ratio " +
  "ln(head/base) and the 95% CI the matching distribution-free interval of the Wilcoxon signed-rank test; " +
  "base and head are medians over rounds. The plot's axis is in log ratio, so +x% and its inverse lie equally far from 0.";

// Colours: slower red, faster green, ~ grey; the dark scheme keeps the same hues.
export const STYLE = `
:root{--fg:#1f2328;--muted:#656d76;--bg:#fff;--band:#f6f8fa;--line:#d0d7de;--slower:#cf222e;--faster:#1a7f37;--same:#6e7781;--changed:#9a6700}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--band:#161b22;--line:#30363d;--slower:#ff7b72;--faster:#3fb950;--same:#9198a1;--changed:#d29922}}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);margin:24px auto;max-width:1000px;padding:0 16px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
code,.num,.raw,.value{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
dl.run{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}dl.run dt{color:var(--muted)}dl.run dd{margin:0}
table{border-collapse:collapse}th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
td.num{text-align:right;white-space:nowrap}th[scope=row]{font-weight:normal;overflow-wrap:anywhere}
.slower{color:var(--slower)}.faster{color:var(--faster)}.same{color:var(--same)}.changed{color:var(--changed)}
td.verdict.slower,td.verdict.faster{font-weight:600}
.gate{padding:8px 12px;border-left:4px solid var(--same);background:var(--band);margin:12px 0}.gate.fail{border-color:var(--slower)}.gate.pass{border-color:var(--faster)}.gate ul{margin:4px 0 0}
svg{max-width:100%;height:auto;display:block}svg text{fill:var(--fg);font-size:12px}
svg .tick,svg .axis-title{fill:var(--muted);font-size:11px}svg .grid{stroke:var(--line);stroke-width:1}svg .zero{stroke:var(--fg);stroke-width:1.5}
svg .threshold{stroke:var(--slower);stroke-width:1.5;stroke-dasharray:5 3}svg .threshold-label{fill:var(--slower);font-size:11px}
svg .band{fill:var(--band)}svg .ci{stroke:currentColor;stroke-width:2.5;stroke-linecap:round}svg .point,svg .arrow{fill:currentColor}
svg .mark.slower{color:var(--slower)}svg .mark.faster{color:var(--faster)}svg .mark.same{color:var(--same)}
svg .value{font-size:11px}svg .mark .value,svg .mark .label{fill:var(--fg)}
svg .round{fill:var(--muted);fill-opacity:.7}svg .delta{stroke:currentColor;stroke-width:2}
h3{font-size:14px;margin:16px 0 4px;overflow-wrap:anywhere}table.profile code{font-size:12px}
table.strips td{padding:2px 8px}.hint,.footnote{color:var(--muted);font-size:12px}
ul.other-rows .name,.gate .name{overflow-wrap:anywhere}td.raw{font-size:12px;overflow-wrap:anywhere}
`;

/** The start of a self-contained page up to `<body>`: nothing may load from anywhere, the page is whole as written. */
export function pageStart(title: string, style: string): string[] {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${style}</style>`,
    "</head>",
    "<body>",
  ];
}

export function renderHtml(analysis: Analysis): string {
  const result = analysis.shown;
  const title = `xbench compare: base ${result.base.sha.slice(0, 12)} vs head ${result.head.sha.slice(0, 12)}`;
  const notes = [...runNotes(analysis).map(escapeHtml), ...rowNotes(result.rows).map((n) => `${escapeHtml(n.id)}: ${escapeHtml(n.text)}`)];
  const forest = forestPlot(result);
  const timing = result.timing ? `<dt>took</dt><dd>${(result.timing.wallMs / 1000).toFixed(1)} s</dd>` : "";
  const out = [
    ...pageStart(title, STYLE),
    "<header>",
    "<h1>xbench compare</h1>",
    `<p class="summary">${escapeHtml(summaryLine(result.rows))}</p>`,
    gateSection(result),
    `<dl class="run"><dt>run</dt><dd>${escapeHtml(runLine(result))}</dd>`,
    measureLine(result) ? `<dt>measure</dt><dd>${escapeHtml(measureLine(result)!)}</dd>` : "",
    `${revision("base", result)}${revision("head", result)}`,
    `<dt>started</dt><dd>${escapeHtml(result.startedAt)}</dd><dt>finished</dt><dd>${escapeHtml(result.finishedAt)}</dd>${timing}`,
    `<dt>xbench</dt><dd>${escapeHtml(result.xbenchVersion)}</dd></dl>`,
    "</header>",
    '<section id="forest"><h2>Change per row</h2>',
    forest || "<p>No row has an interval.</p>",
    otherRows(result),
    "</section>",
    '<section id="table"><h2>Table</h2>',
    resultTable(result),
    rawValues(result.rows),
    "</section>",
    stripPlots(result),
    profileHtml(result, escapeHtml),
    loadTable(result),
    notes.length > 0 ? `<section id="notes"><h2>Notes</h2><ul>${notes.map((n) => `<li>${n}</li>`).join("\n")}</ul></section>` : "",
    `<p class="footnote">${FOOTNOTE}</p>`,
    "</body>",
    "</html>",
  ];
  return `${out.filter((line) => line !== "").join("\n")}\n`;
}
