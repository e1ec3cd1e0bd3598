/**
 * The terminal table: header lines, then
 * `benchmark  base  head  delta  95% CI  verdict`, the name left-aligned and every other column
 * right-aligned, then notes. Colour (ANSI) only when asked: the caller decides (output/color.ts).
 */
import { gateHeadline, gateRows } from "./gate.ts";
import { loadLine, measureLine, outlierNotes, rowCells, rowNotes, runLine, runNotes, summaryLine, visible, wideRowNotes } from "./text.ts";
import type { Row } from "../model/result.ts";
import type { Analysis } from "./analysis.ts";
import { profileTerminalLines } from "./profile.ts";

const HEADER = ["benchmark", "base", "head", "delta", "95% CI", "verdict"];
const GAP = "  ";

type Paint = (code: string, text: string) => string;

function painter(color: boolean): Paint {
  return color ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
}

function verdictColor(row: Row): string | undefined {
  const verdict = row.stats?.verdict ?? row.exact?.verdict ?? row.status;
  switch (verdict) {
    case "slower":
    case "failed":
      return "31";
    case "faster":
      return "32";
    case "more":
    case "fewer":
    case "new":
    case "removed":
      return "33";
    default:
      return undefined;
  }
}

/**
 * `dirtyStated`: the run's first line already said the head is dirty and why; the table does not
 * repeat it. `verbose`: a note per row that missed the sampling target, and per row of no work
 * measured, not only the one for all.
 */
export function renderTerminal(analysis: Analysis, options: { color: boolean; dirtyStated?: boolean; verbose?: boolean }): string {
  const result = analysis.shown;
  const paint = painter(options.color);
  const lines = result.rows.map((row) => {
    const c = rowCells(row);
    return [visible(row.id), c.base, c.head, c.delta, c.ci, c.verdict];
  });
  const widths = HEADER.map((h, col) => Math.max(h.length, ...lines.map((cells) => cells[col]!.length)));
  // Pad first, colour after, so escape codes never count toward the width.
  const layout = (cells: string[]) => cells.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!)));

  const out: string[] = [];
  // The gate leads: in a CI log, the first lines say whether the check failed and why.
  if (result.gate) {
    out.push(paint(result.gate.outcome === "fail" ? "1;31" : "1", gateHeadline(result.gate)));
    for (const row of gateRows(result.gate, result.measure ? 2 : 1)) out.push(`  ${visible(row.id)}  ${row.text}`);
    out.push("");
  }
  out.push(paint("2", runLine(result, { markDirty: !options.dirtyStated })));
  const counted = measureLine(result);
  if (counted) out.push(paint("2", counted));
  out.push(paint("2", loadLine(result)), "");
  out.push(paint("1", layout(HEADER).join(GAP)));
  result.rows.forEach((row, i) => {
    const cells = layout(lines[i]!);
    const code = verdictColor(row);
    if (code) cells[5] = paint(code, cells[5]!);
    out.push(cells.join(GAP).trimEnd());
  });
  out.push("", summaryLine(result.rows));
  for (const note of runNotes(analysis)) out.push(`note: ${note}`);
  const perRow = [
    ...(options.verbose ? [...wideRowNotes(analysis), ...outlierNotes(analysis)] : []),
    ...rowNotes(result.rows, { noWork: options.verbose }),
  ];
  for (const note of perRow) out.push(`note: ${visible(note.id)}: ${visible(note.text)}`);
  out.push(...profileTerminalLines(result, visible));
  return `${out.join("\n")}\n`;
}
