/**
 * The A/A reading. Comparing the code with itself (`compare --base HEAD`) measures what the
 * method cannot tell apart from zero on this machine. Per timed row:
 *   - noise floor: the half-width of its 95% interval, (upper - lower) / 2, and |delta|, the
 *     change it reported although nothing changed;
 *   - minimum detectable change (MDC) at n rounds: exp(t_{0.975, n-1} · s / √n) - 1, with s the
 *     sample sd of the A/A log ratios. A true change of that size, observed exactly, puts the
 *     interval's lower bound at zero: it is the change at which a verdict becomes possible (about
 *     50% power). For 80% power use (t_{0.975} + t_{0.80})·SE instead; we keep the simpler reading.
 *   - `mdcAt` projects the MDC to another number of rounds from the same s, to plan a run.
 */
import type { CompareResult, Verdict } from "../report/model.ts";
import { intervalAt, logRatios, summarize, TIMED_RULES, verdictOf, type LogRatioSummary } from "./paired.ts";
import { studentT975 } from "./student-t.ts";
import { checkInput, pairUp } from "./validate.ts";

export interface NoiseFloor {
  id: string;
  n: number;
  delta: number;
  absDelta: number;
  ci: [number, number];
  halfWidth: number;
  /** Minimum detectable change at this row's number of rounds (a fraction: 0.05 = 5%). */
  mdc: number;
  /** An A/A row with a verdict other than `~` is a false alarm. */
  verdict: Verdict;
  /** Sample sd of the log ratios, for projecting with `mdcAt`. */
  sd: number;
}

/** The minimum detectable change with `rounds` rounds, given the sd of per-round log ratios. */
export function mdcAt(sd: number, rounds: number): number {
  if (!Number.isInteger(rounds) || rounds < 2) throw new RangeError(`mdcAt: rounds must be a whole number >= 2, got ${rounds}`);
  return Math.expm1(studentT975(rounds - 1) * (sd / Math.sqrt(rounds)));
}

function floorOf(id: string, summary: LogRatioSummary): NoiseFloor {
  const ci = intervalAt(summary, 0.95);
  const delta = Math.expm1(summary.mean);
  return {
    id,
    n: summary.n,
    delta,
    absDelta: Math.abs(delta),
    ci,
    halfWidth: (ci[1] - ci[0]) / 2,
    mdc: mdcAt(summary.sd, summary.n),
    verdict: verdictOf(ci),
    sd: summary.sd,
  };
}

/** The noise floor of one benchmark from its A/A rounds. */
export function noiseFloor(name: string, base: number[], head: number[]): NoiseFloor {
  checkInput(name, base, head, TIMED_RULES);
  return floorOf(name, summarize(logRatios(base, head)));
}

export interface AAReading {
  /** Both sides were built from the same commit (a true A/A run). */
  sameCommit: boolean;
  rows: NoiseFloor[];
  /** Rows with a verdict: expected about 5% of rows by chance, without Holm. */
  falseVerdicts: number;
}

/**
 * Reads an A/A result: every timed row with status ok and enough paired rounds (always from the
 * raw rounds at 95%, even if the result is Holm-adjusted). Rows that cannot be read are skipped.
 */
export function readAA(result: CompareResult): AAReading {
  const rows: NoiseFloor[] = [];
  for (const row of result.rows) {
    if (row.status !== "ok" || row.unit !== "ns") continue;
    const pairs = pairUp(row.base, row.head);
    try {
      rows.push(noiseFloor(row.id, pairs.base, pairs.head));
    } catch {
      continue;
    }
  }
  return {
    sameCommit: result.base.sha === result.head.sha && !result.head.dirty,
    rows,
    falseVerdicts: rows.filter((r) => r.verdict !== "~").length,
  };
}
