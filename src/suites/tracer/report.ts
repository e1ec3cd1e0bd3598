/**
 * Renderers of the tracer suite: a terminal table and the markdown of a sticky PR comment
 * (one section per OS, so one comment carries every platform's run). Pure: a result in, a string out.
 */
import { formatLoad } from "../../util/load.ts";
import type { RowName, Spread, TracerResult, TracerRow } from "./model.ts";

/** Hidden marker that finds the sticky comment to update in place. */
export const MARKDOWN_MARKER = "<!-- xbench-bench-tracer -->";

/** A signed percentage with one decimal: 0.0123 -> "+1.2%". */
export function formatChange(fraction: number): string {
  const percent = fraction * 100;
  const text = Math.abs(percent) < 0.05 ? "0.0" : Math.abs(percent).toFixed(1);
  return `${percent < 0 && text !== "0.0" ? "-" : "+"}${text}%`;
}

/** A time in ns with three significant digits and its unit: 15234 -> "15.2 µs". */
export function formatTime(ns: number): string {
  const units: Array<[number, string]> = [
    [1e9, "s"],
    [1e6, "ms"],
    [1e3, "µs"],
  ];
  for (const [scale, unit] of units) {
    if (Math.abs(ns) >= scale) return `${(ns / scale).toPrecision(3)} ${unit}`;
  }
  return `${Math.round(ns)} ns`;
}

/** "+1.2% [-0.4% .. +2.9%]" */
export function formatSpread(spread: Spread): string {
  return `${formatChange(spread.median)} [${formatChange(spread.q1)} .. ${formatChange(spread.q3)}]`;
}

function describeIterations(result: TracerResult): string {
  const { planned, cycle, warmup } = result.iterations;
  const cycles = planned / cycle;
  return `${planned} iterations (${cycles} cycle${cycles === 1 ? "" : "s"} of ${cycle} orderings) + ${warmup} warm-up`;
}

function rowCells(row: TracerRow): string[] {
  return [
    row.backend,
    row.row,
    row.change ? formatChange(row.change.median) : "n/a",
    row.change ? `[${formatChange(row.change.q1)} .. ${formatChange(row.change.q3)}]` : "",
    formatTime(row.medians.head),
    row.medians.base === undefined ? "" : formatTime(row.medians.base),
    formatTime(row.medians.untracked),
    formatSpread(row.overhead.head),
    row.overhead.base ? formatSpread(row.overhead.base) : "",
  ];
}

const HEADER = ["backend", "row", "change", "[Q1 .. Q3]", "head", "base", "untracked", "head vs untracked", "base vs untracked"];

/** Aligns cells into columns; numbers-ish columns (from the third on) right-aligned. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => [...r[col]!].length)));
  return rows
    .map((r) =>
      r
        .map((cell, col) => (col < 2 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** The terminal report: header lines, then one line per backend and row. */
export function renderTerminal(result: TracerResult): string {
  const lines = [
    `bench tracer | ${result.os} ${result.arch} | ${describeIterations(result)}`,
    `loadavg start ${formatLoad(result.loadavg.start)} | end ${formatLoad(result.loadavg.end)}`,
    `helpers head ${result.helpers.head}${result.helpers.base ? ` | base ${result.helpers.base}` : " | no base (--base-helper)"}`,
    "",
    table([HEADER, ...result.rows.map(rowCells)]),
    "",
    "change: median of the per-iteration head/base - 1 with its quartiles; head, base and untracked: medians of the",
    `per-iteration values: a launch's wall clock (each iteration runs its ordering ${result.passes.launch}x, median per arm)`,
    "or the target's median time of a batch of 8 opens (access). Report only.",
  ];
  return `${lines.join("\n")}\n`;
}

/** Markdown-escapes text that comes from outside (paths): backslash, pipes, brackets, HTML. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+!|~]/g, (c) => `\\${c}`);
}

function markdownSection(result: TracerResult): string {
  const header = `| backend | row | change | [Q1 .. Q3] | head | base | untracked | head vs untracked | base vs untracked |`;
  const rule = `|---|---|--:|--:|--:|--:|--:|--:|--:|`;
  const rows = result.rows.map((row) => `| ${rowCells(row).join(" | ")} |`);
  return [
    `### ${escapeMarkdown(result.os)}`,
    "",
    header,
    rule,
    ...rows,
    "",
    `<sub>${escapeMarkdown(result.arch)}${result.kernel ? ` · kernel ${escapeMarkdown(result.kernel)}` : ""} · ${describeIterations(result)} · loadavg ${formatLoad(result.loadavg.start)} → ${formatLoad(result.loadavg.end)}${result.helpers.base ? "" : " · no base arm"}</sub>`,
  ].join("\n");
}

/** " (2 threads × 2048 opens)": the workload of a row, from the first result that has it. */
function threadsOf(results: readonly TracerResult[], name: RowName): string {
  const workload = results.flatMap((r) => r.rows).find((r) => r.row === name)?.workload;
  if (!workload) return "";
  const threads = `${workload.threads} thread${workload.threads === 1 ? "" : "s"}`;
  return workload.opens === 0 ? ` (${threads})` : ` (${threads} × ${workload.opens} opens)`;
}

/** The commits a `compare --suite tracer` measured, shown under the title. */
export interface Revisions {
  base: string;
  head: string;
}

/**
 * The sticky comment: a title, how to read it, then one section per OS (the results of one
 * machine each, in the order given), and the line that says it is report-only.
 */
export function renderMarkdown(results: readonly TracerResult[], revisions?: Revisions): string {
  return [
    MARKDOWN_MARKER,
    "## xbench tracer benchmark",
    "",
    ...(revisions ? [`base \`${escapeMarkdown(revisions.base)}\` · head \`${escapeMarkdown(revisions.head)}\``, ""] : []),
    (results.every((r) => r.helpers.base)
      ? "Head's tracer and base's, launched back to back with an untracked run on one machine, cycling every ordering of the arms. "
      : "Tracked and untracked runs launched back to back on one machine, cycling every ordering; pass a base helper build for the change column. ") +
      "**change** is the median of the per-iteration head/base ratios minus one, with its quartiles; " +
      "**vs untracked** prices tracking itself, as context. " +
      `\`launch\`: wall clock of a tracked launch that opens nothing${threadsOf(results, "launch")}, each iteration running its ordering ${results[0]?.passes.launch ?? 1}× (median per arm); ` +
      `\`access\`: median time of a batch of 8 opens of a missing path, timed inside the target${threadsOf(results, "access")}.`,
    "",
    ...results.map(markdownSection).flatMap((s) => [s, ""]),
    "Report only: this report never fails the job.",
    "",
  ].join("\n");
}
