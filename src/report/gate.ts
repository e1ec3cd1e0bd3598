/**
 * The gate: whether a compare's intervals fail a pull request. Pure: rows in, a decision out.
 * Only intervals decide (timed rows, peak RSS), so a change counts only when it is confidently
 * past the line, never because a point estimate wandered over it. Exact counts are reported,
 * not gated; a row that failed to run is no gate failure (it has an exit status of its own).
 */
import { EXIT_BISECT_SKIP, EXIT_GATE_FAILED, EXIT_NOT_MEASURED } from "../errors.ts";
import type { Gate, GateRow, GateRule, Row } from "../model/result.ts";
import { formatInterval, formatPercent } from "./text.ts";

/** Which side of the rule's line an interval lies: wholly past it, wholly short of it, or across it. */
function judge(rule: GateRule, [lower, upper]: readonly [number, number]): "fail" | "pass" | "undecided" {
  if (rule.on === "slower") return lower > 0 ? "fail" : "pass";
  if (rule.on === "change") return lower > 0 || upper < 0 ? "fail" : "pass";
  if (lower > rule.above) return "fail";
  return upper < rule.above ? "pass" : "undecided";
}

export function decideGate(rows: readonly Row[], rule: GateRule): Gate {
  const failing: GateRow[] = [];
  const undecided: GateRow[] = [];
  for (const row of rows) {
    if (row.status !== "ok" || !row.stats) continue;
    const seen: GateRow = { id: row.id, delta: row.stats.delta, ci: row.stats.ci };
    const verdict = judge(rule, row.stats.ci);
    if (verdict === "fail") failing.push(seen);
    else if (verdict === "undecided") undecided.push(seen);
  }
  const outcome = failing.length > 0 ? "fail" : undecided.length > 0 ? "undecided" : "pass";
  return { rule, outcome, failing, undecided };
}

/** A threshold as typed: 0.1 → `10`. */
function percentText(fraction: number): string {
  return String(+(fraction * 100).toFixed(4));
}

/** The rule as the user typed it: `--fail-on slower`, `--fail-above 10`. */
export function describeRule(rule: GateRule): string {
  return rule.on === "above" ? `--fail-above ${percentText(rule.above)}` : `--fail-on ${rule.on}`;
}

/** What a failing row is, under the rule: `confidently slower`, `confidently more than 10% slower`. */
function failingWhat(rule: GateRule): string {
  if (rule.on === "slower") return "confidently slower";
  if (rule.on === "change") return "confidently changed";
  return `confidently more than ${percentText(rule.above)}% slower`;
}

/**
 * The gate's headline, plain text: `gate failed (--fail-above 10%): 1 row confidently more than
 * 10% slower`, `gate passed (--fail-on slower)`, or passed with undecided rows named as such.
 */
export function gateHeadline(gate: Gate): string {
  const rule = describeRule(gate.rule);
  const count = (rows: GateRow[]) => `${rows.length} row${rows.length === 1 ? "" : "s"}`;
  if (gate.outcome === "fail") return `gate failed (${rule}): ${count(gate.failing)} ${failingWhat(gate.rule)}`;
  if (gate.outcome === "undecided") {
    const line = gate.rule.on === "above" ? `+${percentText(gate.rule.above)}%` : "the line";
    return `gate passed, undecided (${rule}): ${count(gate.undecided)} with an interval holding ${line}; more rounds would tell`;
  }
  return `gate passed (${rule}): no row ${failingWhat(gate.rule)}`;
}

/**
 * The rows that decided the gate, each `[name, delta, interval, role]`, percentages with
 * `digits` decimals (a counting run's two); the caller escapes the name.
 */
export function gateRows(gate: Gate, digits = 1): Array<{ id: string; text: string }> {
  const line = (row: GateRow, role: string) => ({
    id: row.id,
    text: `${formatPercent(row.delta, digits)} ${formatInterval(row.ci, digits)} ${role}`,
  });
  return [...gate.failing.map((r) => line(r, "failing")), ...gate.undecided.map((r) => line(r, "undecided"))];
}

/**
 * The exit status of a compare (or a report of one): 1 when the gate failed, since a confident
 * regression stands whatever else broke; else 3 when a benchmark failed to run or nothing was
 * compared; else 0. While `git bisect run` drives a gated compare, a commit the gate cannot
 * judge (undecided rows, rows that did not run) exits 125, so git skips it instead of calling
 * it bad.
 */
export function exitStatus(options: { gate?: Gate; notMeasured: boolean; bisecting: boolean }): number {
  const { gate, notMeasured, bisecting } = options;
  if (gate?.outcome === "fail") return EXIT_GATE_FAILED;
  const judgeable = !notMeasured && gate?.outcome !== "undecided";
  if (gate && bisecting && !judgeable) return EXIT_BISECT_SKIP;
  return notMeasured ? EXIT_NOT_MEASURED : 0;
}
