/** `xbench history` for the terminal: a line per row (its cumulative and what it holds over), then the commits that moved it. */
import { formatInterval, formatPercent, visible } from "../report/text.ts";
import type { HistoryCommit, HistoryReport, RowHistory } from "./chain.ts";

const short = (sha: string) => sha.slice(0, 12);
const MAX_LISTED = 5;

/** `29 recorded, 1 not recorded (4f2a…), 0 failed`: how complete the path's record is. */
export function coverageLine(commits: readonly HistoryCommit[]): string {
  const count = (status: HistoryCommit["status"]) => commits.filter((c) => c.status === status).length;
  return `${count("recorded")} recorded, ${count("not recorded")} not recorded, ${count("failed")} failed`;
}

/** The commits the record lacks or that failed, a few named. */
function missingLines(commits: readonly HistoryCommit[]): string[] {
  const missing = commits.filter((c) => c.status !== "recorded");
  const lines = missing.slice(0, MAX_LISTED).map((c) => {
    const why = c.status === "failed" ? `failed: ${c.error}` : "not recorded";
    return `  gap ${short(c.sha)} ${visible(c.subject)} (${visible(why)})`;
  });
  if (missing.length > MAX_LISTED) lines.push(`  … ${missing.length - MAX_LISTED} more (--json lists every step)`);
  return lines;
}

/** `+10.2% [+8.1%, +12.4%] over 29 steps, 1a2b3c4d5e6f..9f8e7d6c5b4a`, and where the chain broke. */
export function cumulativeText(row: RowHistory, head: string): string {
  const cumulative = row.cumulative;
  if (!cumulative) return "no step measured (every commit is a gap for this row)";
  const upTo = cumulative.to === head ? "" : ` (to ${short(cumulative.to)}: later steps are gaps)`;
  const text = `${formatPercent(cumulative.delta)} ${formatInterval(cumulative.ci)} over ${cumulative.steps} step${cumulative.steps === 1 ? "" : "s"} since ${short(cumulative.from)}${upTo}`;
  const gaps = row.gaps.length;
  return gaps === 0 ? text : `${text}; ${gaps} gap${gaps === 1 ? "" : "s"}, the last at ${short(row.gaps.at(-1)!)}`;
}

export function renderHistoryTerminal(report: HistoryReport): string {
  const out = [
    `history of ${report.commits.length} commit${report.commits.length === 1 ? "" : "s"} from ${short(report.start.sha)} to ${short(report.head.sha)} (first parents): ${coverageLine(report.commits)}`,
    ...missingLines(report.commits),
    `cumulative change per row with its ${Math.round(report.level * 100)}% interval; moved by: commits whose own step is a confident change beyond ±${(report.minEffect * 100).toFixed(1)}%`,
    "",
  ];
  if (report.rows.length === 0) out.push("no rows (none recorded on this path, or --rows matched none)");
  for (const row of report.rows) {
    out.push(`${visible(row.name)}  ${cumulativeText(row, report.head.sha)}`);
    for (const move of row.moved) {
      out.push(`  moved by ${short(move.sha)} ${formatPercent(move.delta)} ${formatInterval(move.ci)}  ${visible(move.subject)}`);
    }
  }
  return `${out.join("\n")}\n`;
}
