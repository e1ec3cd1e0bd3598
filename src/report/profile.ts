/**
 * The per-function tables of `compare --profile` (docs/profile.md), one per profiled row, as
 * cells every renderer shares; each renderer escapes and lays them out its own way.
 */
import type { FunctionProfile, RowProfile } from "../model/profile.ts";
import type { CompareResult, Row } from "../model/result.ts";
import { formatTime, NONE } from "./text.ts";

export const PROFILE_HEADER = ["function", "where", "base", "head", "change", "95% CI", "share", ""];

/** The profiled rows of a result, in table order. */
export function profiledRows(result: CompareResult): Array<Row & { profile: RowProfile }> {
  return result.rows.filter((row): row is Row & { profile: RowProfile } => row.profile !== undefined);
}

function signedTime(ns: number): string {
  if (!Number.isFinite(ns)) return ns > 0 ? "+∞" : "-∞";
  return `${ns < 0 ? "-" : "+"}${formatTime(Math.abs(ns))}`;
}

/** `+1.20 µs (+25.3%)`: the change, and against base's self time when base has the function. */
function changeCell(fn: FunctionProfile): string {
  const relative = fn.base > 0 ? ` (${fn.change < 0 ? "-" : "+"}${Math.abs((fn.change / fn.base) * 100).toFixed(1)}%)` : "";
  return `${signedTime(fn.change)}${relative}`;
}

/** One function's cells, in PROFILE_HEADER's order. */
export function functionCells(fn: FunctionProfile): string[] {
  return [
    fn.name,
    `${fn.file}:${fn.line}`,
    fn.status === "new" ? NONE : formatTime(fn.base),
    fn.status === "removed" ? NONE : formatTime(fn.head),
    changeCell(fn),
    // Fewer than 6 processes leave the interval unbounded, which JSON wrote as null.
    `[${signedTime(fn.ci[0] ?? -Infinity)}, ${signedTime(fn.ci[1] ?? Infinity)}]`,
    `${(fn.share * 100).toFixed(1)}%`,
    fn.status === "both" ? "" : fn.status,
  ];
}

/** The line under a row's table: processes, and the time outside the listed functions. */
export function profileFooter(profile: RowProfile): string {
  if (profile.error !== undefined) return `no profile: ${profile.error}`;
  return (
    `self time per iteration over ${profile.processes} profiled processes; ` +
    `other (runtime, packages, xbench's loop): base ${formatTime(profile.other.base)}, head ${formatTime(profile.other.head)}`
  );
}

/** What the sections say about the method, once. */
export const PROFILE_NOTE =
  "Extra duet processes under the CPU profiler, not part of any row's interval. A sample belongs to the side whose bundle holds " +
  "the nearest frame on its stack; a function's self time per iteration is its share of its side's samples times the side's time " +
  "per iteration from the row's rounds. change: Hodges–Lehmann estimate of head − base over the processes, with its 95% signed-rank " +
  "interval. share: of the row's time (head's; base's for a removed function).";

/** A compact terminal table per profiled row: the `limit` largest changes. */
export function profileTerminalLines(result: CompareResult, visible: (text: string) => string, limit = 10): string[] {
  const out: string[] = [];
  for (const row of profiledRows(result)) {
    const lines = [PROFILE_HEADER, ...row.profile.functions.slice(0, limit).map(functionCells)].map((cells) => cells.map(visible));
    const widths = PROFILE_HEADER.map((_, col) => Math.max(...lines.map((cells) => cells[col]!.length)));
    out.push("", `profile: ${visible(row.id)}`);
    for (const cells of lines)
      out.push(
        `  ${cells
          .map((cell, col) => (col < 2 || col === 7 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!)))
          .join("  ")
          .trimEnd()}`,
      );
    const more = row.profile.functions.length - limit;
    if (more > 0) out.push(`  … ${more} more in the JSON`);
    out.push(`  ${profileFooter(row.profile)}`);
  }
  return out;
}

/** A collapsible section per profiled row, for the PR comment. */
export function profileMarkdownLines(result: CompareResult, esc: (text: string) => string): string[] {
  const out: string[] = [];
  for (const row of profiledRows(result)) {
    const changed = row.profile.functions[0];
    const lead = changed ? `: ${esc(changed.name)} ${esc(changeCell(changed))}` : "";
    out.push(`<details><summary>Profile of ${esc(row.id)}${lead}</summary>`, "");
    out.push(`| ${PROFILE_HEADER.join(" | ")} |`, "|:--|:--|--:|--:|--:|--:|--:|:--|");
    for (const fn of row.profile.functions) out.push(`| ${functionCells(fn).map(esc).join(" | ")} |`);
    out.push("", esc(profileFooter(row.profile)), "", "</details>", "");
  }
  if (out.length > 0) out.push(`<sub>${esc(PROFILE_NOTE)}</sub>`, "");
  return out;
}

/** A section with a table per profiled row, for the HTML report. */
export function profileHtml(result: CompareResult, esc: (text: string) => string): string {
  const rows = profiledRows(result);
  if (rows.length === 0) return "";
  const head = PROFILE_HEADER.map((h) => `<th scope="col">${esc(h)}</th>`).join("");
  const tables = rows.map((row) => {
    const body = row.profile.functions.map((fn) => {
      const [name, where, ...numbers] = functionCells(fn);
      const status = numbers.pop()!;
      const cells = numbers.map((v) => `<td class="num">${esc(v)}</td>`).join("");
      return `<tr><th scope="row">${esc(name!)}</th><td><code>${esc(where!)}</code></td>${cells}<td class="changed">${esc(status)}</td></tr>`;
    });
    return `<h3>${esc(row.id)}</h3>\n<table class="profile"><thead><tr>${head}</tr></thead><tbody>\n${body.join("\n")}\n</tbody></table>\n<p class="hint">${esc(profileFooter(row.profile))}</p>`;
  });
  return `<section id="profile"><h2>Profile: functions whose self time changed</h2>\n${tables.join("\n")}\n<p class="footnote">${esc(PROFILE_NOTE)}</p></section>`;
}
