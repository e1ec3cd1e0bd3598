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
 *   - `mdcAt(d, n')` projects the MDC to n' rounds from the A/A log ratios d themselves, not from
 *     one spread figure: it is the median of exp((U* - L*) / 2) - 1 over RESAMPLES samples of n'
 *     values drawn with replacement from d - θ̂ (θ̂ the HL estimate) with random signs, the
 *     symmetric-noise model the test itself rests on. Why not σ/√n' scaling: the interval's
 *     width changes regime with n (at 6 rounds it is [min d, max d]; under a mixture of
 *     whole-process shifts it follows the shifts at 10 rounds and the quiet core at 20), and a
 *     single spread projected by 1/√n' was off by 6x there. Measured against simulation (normal,
 *     t(3) and 20%-mixture noise, projecting from 10 or 40 rounds to 6..40), the median projection
 *     over 50 A/A samples was within -36%..+4% of the true median half-width: usually a little
 *     low, since values drawn from a small sample miss some of the source's tails. One A/A run
 *     adds its own sampling error on top (test/unit/stats.test.ts). Where runs split into wide
 *     and narrow ones (20 rounds of that mixture: 42% have a ~9% half-width, the rest ~1%), the
 *     median is fragile and the projection can land on either side: read it as a regime, not a
 *     number.
 */
import { XbenchError } from "../errors.ts";
import { perIteration, type CompareResult, type Verdict } from "../model/result.ts";
import { mulberry32 } from "../schedule/prng.ts";
import { DEFAULT_MIN_EFFECT, isChange, verdictWithin } from "./equivalence.ts";
import { countedAnalysis, type FirstSides, LEVEL, logRatios, pairedAnalysis, pairedFirstSides } from "./paired.ts";
import { median } from "./quantile.ts";
import { hodgesLehmannInterval, walshSummary } from "./signed-rank.ts";
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
  /** An A/A row with a verdict `slower` or `faster` is a false alarm (readAA reads it against the run's min-effect). */
  verdict: Verdict;
  /** The A/A log ratios ln(h/b), for projecting with `mdcAt`. */
  logRatios: number[];
}

/** Resamples behind a projection: the median of 200 moves by a few percent between seeds. */
export const RESAMPLES = 200;

/** exp((U - L) / 2) - 1 of the 95% interval of log ratios `d`; Infinity below 6 values. */
function mdcOf(d: readonly number[]): number {
  const [lower, upper] = hodgesLehmannInterval(walshSummary(d), LEVEL).interval;
  return Math.expm1((upper - lower) / 2);
}

/** The minimum detectable change with `rounds` rounds, projected from A/A log ratios `d` (see the header). */
export function mdcAt(d: readonly number[], rounds: number, resamples = RESAMPLES): number {
  if (!Number.isInteger(rounds) || rounds < 2) throw new RangeError(`mdcAt: rounds must be a whole number >= 2, got ${rounds}`);
  if (d.length < 2) throw new RangeError(`mdcAt: needs at least 2 A/A log ratios, got ${d.length}`);
  const center = walshSummary(d).estimate;
  const residuals = d.map((x) => x - center);
  const random = mulberry32(rounds); // fixed: the same A/A run always projects the same
  const draw = () => (random() < 0.5 ? -1 : 1) * residuals[Math.floor(random() * residuals.length)]!;
  return median(Array.from({ length: resamples }, () => mdcOf(Array.from({ length: rounds }, draw))));
}

/** The noise floor of one benchmark from its A/A rounds; throws a one-line XbenchError naming it on bad input. */
export function noiseFloor(name: string, base: number[], head: number[], level = LEVEL, firstSide?: FirstSides): NoiseFloor {
  // A counted row read by its orders (firstSide) is read so here too: the table's interval.
  const { stats, holm } = firstSide ? countedAnalysis(name, base, head, firstSide, level) : pairedAnalysis(name, base, head, level);
  const [lower, upper] = holm.at(LEVEL).interval;
  return {
    id: name,
    n: stats.n,
    delta: stats.delta,
    absDelta: Math.abs(stats.delta),
    ci: stats.ci,
    halfWidth: stats.halfWidth!,
    mdc: Math.expm1((upper - lower) / 2),
    verdict: stats.verdict,
    logRatios: logRatios(base, head),
  };
}

export interface AAReading {
  /** Both sides were built from the same commit (a true A/A run). */
  sameCommit: boolean;
  rows: NoiseFloor[];
  /**
   * Rows with a verdict (`slower` or `faster`): at most about 5% of rows by chance, without Holm;
   * fewer when an interval within ±min-effect that excludes zero reads `same`.
   */
  falseVerdicts: number;
}

/** Both sides were built from the same code: a commit against itself, or a dirty head whose code is the same. */
function isAARun(result: Pick<CompareResult, "base" | "head">): boolean {
  return result.base.sha === result.head.sha && (!result.head.dirty || result.head.sameCode === true);
}

/**
 * Reads an A/A result: every timed row with status ok and enough paired rounds (always from the
 * raw rounds at the result's level, even if the result is Holm-adjusted), its verdict read against the result's
 * min-effect as the table reads it. Rows that cannot be read are skipped. A run of two different
 * sides says nothing about noise: its rows are not read (each would cost a signed-rank interval).
 */
export function readAA(result: CompareResult): AAReading {
  const minEffect = result.minEffect ?? DEFAULT_MIN_EFFECT;
  const sameCommit = isAARun(result);
  const rows: NoiseFloor[] = [];
  for (const row of sameCommit ? result.rows : []) {
    if (row.status !== "ok" || !perIteration(row.unit)) continue;
    const pairs = pairUp(row.base, row.head);
    try {
      const orders = row.firstSide && pairedFirstSides(row.base, row.head, row.firstSide);
      const floor = noiseFloor(row.id, pairs.base, pairs.head, result.level ?? LEVEL, orders);
      rows.push({ ...floor, verdict: verdictWithin(floor.ci, minEffect) });
    } catch (error) {
      // Too few paired rounds, or a value that is not a time (checkInput's one-line error): the
      // row says nothing about noise and is skipped. Anything else is a bug, and surfaces.
      if (!(error instanceof XbenchError)) throw error;
    }
  }
  return {
    sameCommit,
    rows,
    falseVerdicts: rows.filter((r) => isChange(r.verdict)).length,
  };
}
