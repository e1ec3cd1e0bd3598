/**
 * Markdown for a pull-request comment (and the job summary). Starts with a hidden marker so the
 * sticky comment can be found and updated in place.
 *
 * Everything that comes from the project (benchmark names, error messages) goes through
 * `escapeMarkdown`, so a name cannot break the table or inject markup or HTML.
 */
import { gateHeadline, gateRows } from "./gate.ts";
import { loadLine, measureLine, rowCells, rowNotes, runLine, runNotes, summaryLine, visible, wideRowNotes } from "./text.ts";
import type { Row } from "../model/result.ts";
import type { Analysis, ShownRow } from "./analysis.ts";
import { profileMarkdownLines } from "./profile.ts";

export const COMMENT_MARKER = "<!-- xbench-compare -->";

/**
 * Characters that could start markup in a GitHub table cell, written as numeric character
 * references. CommonMark treats a character reference as literal text, never as syntax, and GFM
 * splits table cells before decoding them, so `&#124;` cannot end a cell the way `|` (or a
 * backslash-escaped `\|` next to a user's own backslash) could. `<`, `>` and `&` cover HTML and
 * entities; `` ` * _ [ ] ~ ! \ `` cover code, emphasis, links, images, strikethrough and escapes;
 * `$` GitHub math. GitHub links `#123` and `@name` after rendering, from the decoded text, so those
 * two also get an invisible WORD JOINER (U+2060) after them, and autolinks lose their trigger
 * (`://` and `www.` with the `:` or `.` written as a reference).
 * Control characters, newlines included, become visible symbols first, so no line can break.
 */
const SPECIAL = /[&<>|\\`*_[\]~!$#@]|:(?=\/\/)|(?<=\bwww)\./gi;
const WORD_JOINER = "&#8288;";

export function escapeMarkdown(text: string): string {
  return visible(text).replace(SPECIAL, (c) => `&#${c.charCodeAt(0)};${c === "#" || c === "@" ? WORD_JOINER : ""}`);
}

const PICTURE_HALF = 7;

/**
 * A small picture of a row's interval against zero, drawn in log-ratio space and scaled to the
 * row itself (so the position of zero is always readable): `·` outside the interval, `━` inside,
 * `●` the point estimate, `│` zero (`┿` when zero lies inside the interval).
 * Example for [-1.6%, +4.6%] with delta +1.4%: `····━━━┿━●━━━━━`.
 */
export function intervalPicture(ci: readonly [number, number], delta: number): string {
  const lo = Math.log1p(ci[0]);
  const hi = Math.log1p(ci[1]);
  const mid = Math.log1p(delta);
  const scale = Math.max(Math.abs(lo), Math.abs(hi));
  // Only zero itself sits on the zero cell: a value of either sign keeps to its own side, so
  // rounding can never draw an interval that excludes zero as touching it.
  const at = (x: number) => {
    if (x === 0 || scale === 0) return PICTURE_HALF;
    const cell = PICTURE_HALF + Math.round((x / scale) * PICTURE_HALF);
    return x > 0 ? Math.max(cell, PICTURE_HALF + 1) : Math.min(cell, PICTURE_HALF - 1);
  };
  const [from, to, point] = [at(lo), at(hi), at(mid)];
  const zeroInside = lo <= 0 && hi >= 0;
  const cells: string[] = [];
  for (let i = 0; i <= 2 * PICTURE_HALF; i++) {
    const inside = i >= from && i <= to;
    if (i === point) cells.push("●");
    else if (i === PICTURE_HALF) cells.push(zeroInside ? "┿" : "│");
    else cells.push(inside ? "━" : "·");
  }
  return cells.join("");
}

function tableRow(cells: string[]): string {
  return `| ${cells.join(" | ")} |`;
}

function verdictCell(row: Row, text: string): string {
  return row.stats?.verdict === "slower" || row.stats?.verdict === "faster" || row.status === "failed" ? `**${text}**` : text;
}

function resultTable(rows: readonly ShownRow[]): string[] {
  const out = [tableRow(["benchmark", "base", "head", "delta", "95% CI", "verdict", "interval vs 0"]), "|:--|--:|--:|--:|--:|:--|:--|"];
  for (const row of rows) {
    const c = rowCells(row);
    const picture = row.stats ? `\`${intervalPicture(row.stats.ci, row.stats.delta)}\`` : "";
    out.push(tableRow([escapeMarkdown(row.id), c.base, c.head, c.delta, c.ci, verdictCell(row, c.verdict), picture]));
  }
  return out;
}

function rawRounds(rounds: Row["base"]): string {
  return rounds.length === 0 ? "—" : rounds.map((v) => (v === null ? "—" : String(Math.round(v * 100) / 100))).join(" ");
}

function rawTable(rows: readonly Row[]): string[] {
  const out = [tableRow(["benchmark", "unit", "base", "head"]), "|:--|:--|:--|:--|"];
  for (const row of rows) out.push(tableRow([escapeMarkdown(row.id), row.unit, rawRounds(row.base), rawRounds(row.head)]));
  return out;
}

const FOOTNOTE =
  "Each round is one fresh bench process that loads base and head and measures them alternately " +
  "(or one process per side where noted). delta is the Hodges–Lehmann estimate of the per-round log ratio " +
  "ln(head/base) and the 95% CI the matching distribution-free interval of the Wilcoxon signed-rank test; " +
  "base is the median of base's per-round values and head is base × (1 + delta), so the columns agree with delta " +
  "(each side's own median over rounds is in the JSON). " +
  "same: the interval lies within ±min-effect, no change beyond it; ~: too wide to tell. " +
  "Exact metrics (counts, bytes) are compared exactly. " +
  "Picture: the interval (━) and delta (●) against zero (│), each row on its own scale.";

export function renderMarkdown(analysis: Analysis): string {
  const result = analysis.shown;
  const out = [COMMENT_MARKER, ""];
  // The gate leads: a reader of the comment sees first whether the check failed and why.
  if (result.gate) {
    out.push(`**xbench ${gateHeadline(result.gate).replace(/^gate (\w+)/, "gate: $1**")}`, "");
    // The text is xbench's own numbers (as in the table's cells); only the name needs escaping.
    const rows = gateRows(result.gate, result.measure ? 2 : 1);
    for (const row of rows) out.push(`- ${escapeMarkdown(row.id)}: ${row.text}`);
    if (rows.length > 0) out.push("");
  }
  out.push(`**xbench compare**: ${summaryLine(result.rows)}`, "");
  out.push(runLine(result), "");
  const counted = measureLine(result);
  // Its tool and flags come from the result file: escaped like a name.
  if (counted) out.push(escapeMarkdown(counted), "");
  out.push(loadLine(result), "");
  out.push(...resultTable(result.rows), "");
  const notes = [...runNotes(analysis), ...rowNotes(result.rows).map((n) => `${escapeMarkdown(n.id)}: ${escapeMarkdown(n.text)}`)];
  for (const note of notes) out.push(`- ${note}`);
  if (notes.length > 0) out.push("");
  // One line per row that missed the target would bury the table: folded away.
  const wide = wideRowNotes(analysis);
  if (wide.length > 0) {
    out.push(`<details><summary>Rows wider than the target (${wide.length})</summary>`, "");
    for (const n of wide) out.push(`- ${escapeMarkdown(n.id)}: ${escapeMarkdown(n.text)}`);
    out.push("", "</details>", "");
  }
  out.push(`<sub>${FOOTNOTE}</sub>`, "");
  out.push(...profileMarkdownLines(result, escapeMarkdown));
  out.push("<details><summary>Raw per-round values</summary>", "", ...rawTable(result.rows), "", "</details>");
  return `${out.join("\n")}\n`;
}
