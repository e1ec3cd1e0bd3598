/**
 * When a compare measures a row again, and when it stops adding rounds. Rounds come in whole
 * cycles (every order of the sides once), and rows and the run stop only at the end of a cycle:
 *   - never before `minRounds` (a 95% signed-rank interval needs 6 pairs to exist at all);
 *   - at `maxRounds` (`--rounds N` sets both bounds to N: a fixed run, every row N rounds);
 *   - a row whose interval is at most `targetHalfWidth` either side of its delta is not
 *     measured again; the run stops when no row is left open;
 *   - when the measuring phase's wall time has reached `maxTimeS`, or the next cycle would
 *     end more than 5% past it.
 * The rule looks at widths only, never at where an interval lies: stopping when a verdict
 * appears would make verdicts on unchanged code far more common than 5%. A width does not
 * depend on the sign of the change, so stopping a row on it keeps its interval's level
 * (docs/statistics.md, "Sampling until the answer is clear").
 */
import { halfWidth } from "../../report/row-stats.ts";
import type { Row } from "../../model/result.ts";
import type { SamplingRule } from "../run/store.ts";

export type StopReason = "rounds" | "target" | "time";

/** How far past `maxTimeS` a cycle may be expected to end and still be started. */
export const TIME_SLACK = 1.05;

/**
 * Whether a row is measured in the next cycle, after `rounds` rounds. Rows without an interval
 * (exact counts, new or removed benchmarks) need only the minimum; failed, unchanged and
 * skipped rows none.
 */
export function rowOpen(rule: SamplingRule, rounds: number, row: Row): boolean {
  if (row.status === "failed" || row.status === "unchanged" || row.status === "skipped") return false;
  if (rounds < rule.minRounds) return true;
  if (rounds >= rule.maxRounds) return false;
  if (rule.targetHalfWidth === undefined) return true;
  return row.status === "ok" && row.stats !== undefined && halfWidth(row) > rule.targetHalfWidth;
}

export interface SamplingState {
  /** Rounds finished. */
  rounds: number;
  /** Rounds per cycle. */
  cycle: number;
  /** Wall time of the measuring phase so far, in seconds. */
  elapsedS: number;
  /** Expected wall time of the next cycle, in seconds; called only when the rule needs it. */
  nextCycleS: () => number;
  /** Rows still open (rowOpen); called only when the rule needs them. */
  openRows: () => number;
}

export function stopReason(rule: SamplingRule, state: SamplingState): StopReason | undefined {
  if (state.rounds % state.cycle !== 0 || state.rounds < rule.minRounds) return undefined;
  if (state.rounds >= rule.maxRounds) return "rounds";
  if (rule.targetHalfWidth !== undefined && state.openRows() === 0) return "target";
  if (rule.maxTimeS !== undefined) {
    if (state.elapsedS >= rule.maxTimeS || state.elapsedS + state.nextCycleS() > TIME_SLACK * rule.maxTimeS) return "time";
  }
  return undefined;
}

/** An open row as the time left sees it: its rounds, its width, and what a cycle of it costs (ms of process time). */
export interface OpenRow {
  id: string;
  rounds: number;
  halfWidth: number;
  cycleMs: number;
}

/**
 * The open rows the next cycle measures when the time left cannot bring every open row to the
 * target: the rows that can reach it, cheapest first, as many as fit `budgetMs` of process time
 * (each cycle also pays `overheadPerCycleMs` for its processes' starts). A row's width is taken
 * to fall as 1/√rounds. The others wait: once the chosen rows are done, the next cycle chooses
 * again from what is left. Waiting pays only when it brings most rows within the target: when
 * the chosen rows and the `closed` ones (at the target already) are fewer than half of all, the
 * median row would be one left waiting, so every open row is measured (undefined), as it is when
 * all or none can reach it. Like the stop rule, this reads widths only, never where an interval
 * lies (docs/statistics.md, "Sampling until the answer is clear").
 */
export function rowsWithinReach(
  rows: readonly OpenRow[],
  options: { target: number; cycle: number; budgetMs: number; overheadPerCycleMs: number; closed?: number },
): Set<string> | undefined {
  const needs = rows
    .map((row) => {
      const more = row.rounds * ((row.halfWidth / options.target) ** 2 - 1);
      const cycles = Math.max(1, Math.ceil(more / options.cycle));
      return { id: row.id, cycles, costMs: cycles * row.cycleMs };
    })
    .sort((a, b) => a.costMs - b.costMs);
  const chosen = new Set<string>();
  let rowsMs = 0;
  let cycles = 0;
  for (const need of needs) {
    const longest = Math.max(cycles, need.cycles);
    if (rowsMs + need.costMs + longest * options.overheadPerCycleMs > options.budgetMs) break;
    chosen.add(need.id);
    rowsMs += need.costMs;
    cycles = longest;
  }
  const closed = options.closed ?? 0;
  if (chosen.size === 0 || chosen.size === rows.length || 2 * (chosen.size + closed) < rows.length + closed) return undefined;
  return chosen;
}

/** Rounds rounded up to whole cycles. */
export function wholeCycles(rounds: number, cycle: number): number {
  return Math.ceil(rounds / cycle) * cycle;
}
