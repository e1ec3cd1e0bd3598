/**
 * The A/A reading. Comparing the code with itself (`compare --base HEAD`) measures what the
 * method cannot tell apart from zero on this machine. Per timed row, from the signed-rank /
 * Hodges–Lehmann method (signed-rank.ts), with [L, U] the 95% interval of the log ratios:
 *   - noise floor: the half-width of its 95% interval of delta, (upper - lower) / 2, and |delta|,
 *     the change it reported although nothing changed;
 *   - minimum detectable change (MDC) at n rounds: exp((U - L) / 2) - 1. A true change of that
 *     size moves an interval that is symmetric about its estimate until its lower bound touches
 *     zero: the change at which a verdict becomes possible (about 50% power). Infinity below 6
 *     rounds, where no 95% interval exists.
 *   - spread τ, for projecting the MDC to another number of rounds: the Hodges–Lehmann estimate
 *     has standard error ≈ τ / √n, and Lehmann's (1963) distribution-free estimate of it reads τ
 *     off the interval: τ = √n · (U - L) / (2 · z), z = Φ⁻¹((1 + γ) / 2) at the interval's achieved
 *     level γ. Below 6 rounds it uses the widest bounded interval, [min d, max d], at γ = 1 - 2^(1-n).
 *   - `mdcAt(τ, n')` = exp(z' · τ / √n') - 1, z' = Φ⁻¹((1 + γ') / 2) at the achieved level γ' of
 *     the 95% interval with n' rounds: the large-sample (normal) approximation of the interval's
 *     half-width, with the small-n discreteness kept through γ'. It is rough for n' < 10 and
 *     assumes the noise stays as it was in the A/A run.
 */
import type { CompareResult, Verdict } from "../report/model.ts";
import { normalQuantile } from "./normal.ts";
import { LEVEL, pairedAnalysis } from "./paired.ts";
import { criticalRank, hodgesLehmannInterval, type WalshSummary } from "./signed-rank.ts";
import { pairUp } from "./validate.ts";

export interface NoiseFloor {
  id: string;
  n: number;
  delta: number;
  absDelta: number;
  ci: [number, number];
  /** (upper - lower) / 2 of `ci`; Infinity below 6 rounds. */
  halfWidth: number;
  /** Minimum detectable change at this row's number of rounds (a fraction: 0.05 = 5%); Infinity below 6 rounds. */
  mdc: number;
  /** An A/A row with a verdict other than `~` is a false alarm. */
  verdict: Verdict;
  /** τ: √n times the standard error of the Hodges–Lehmann estimate of the log ratio, for `mdcAt`. */
  spread: number;
}

function checkRounds(rounds: number): void {
  if (!Number.isInteger(rounds) || rounds < 2) throw new RangeError(`mdcAt: rounds must be a whole number >= 2, got ${rounds}`);
}

/** The minimum detectable change with `rounds` rounds, given the spread τ of an A/A run (see the header). */
export function mdcAt(spread: number, rounds: number): number {
  checkRounds(rounds);
  const { k, achieved } = criticalRank(rounds, LEVEL);
  if (k === 0) return Infinity;
  return Math.expm1((normalQuantile((1 + achieved) / 2) * spread) / Math.sqrt(rounds));
}

/** τ from the Walsh averages of the log ratios (see the header). */
export function spreadOf(summary: WalshSummary): number {
  const { n, walsh } = summary;
  checkRounds(n);
  const at95 = hodgesLehmannInterval(summary, LEVEL);
  // The smallest and largest Walsh averages are min d and max d.
  const [lower, upper, level] = at95.bounded
    ? [at95.interval[0], at95.interval[1], at95.level]
    : [walsh[0]!, walsh[walsh.length - 1]!, 1 - 2 ** (1 - n)];
  return (Math.sqrt(n) * (upper - lower)) / (2 * normalQuantile((1 + level) / 2));
}

/** The noise floor of one benchmark from its A/A rounds. */
export function noiseFloor(name: string, base: number[], head: number[]): NoiseFloor {
  const { stats, walsh } = pairedAnalysis(name, base, head);
  const logInterval = hodgesLehmannInterval(walsh, LEVEL).interval;
  return {
    id: name,
    n: stats.n,
    delta: stats.delta,
    absDelta: Math.abs(stats.delta),
    ci: stats.ci,
    halfWidth: stats.halfWidth!,
    mdc: Math.expm1((logInterval[1] - logInterval[0]) / 2),
    verdict: stats.verdict,
    spread: spreadOf(walsh),
  };
}

export interface AAReading {
  /** Both sides were built from the same commit (a true A/A run). */
  sameCommit: boolean;
  rows: NoiseFloor[];
  /** Rows with a verdict: expected about 5% of rows by chance (at most 5%), without Holm. */
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
