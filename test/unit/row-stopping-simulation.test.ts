/**
 * A row that stops on its own width keeps the interval's promise (docs/statistics.md, "Sampling
 * until the answer is clear"), checked by seeded simulation with the stop rule itself
 * (compare/rounds/sampling.ts rowOpen): rounds come two at a time from 6 on, and a row is measured
 * again while its interval is wider than the target, up to 60 rounds. On the noise kinds of
 * signed-rank-simulation.test.ts and four targets (the rows stop after about 6 to 50 rounds; at
 * ±3% most stop at the minimum, where the interval is 6 rounds' [min d, max d], 96.9%):
 *   - with intervals at SEQUENTIAL_LEVEL (97%), at most 5% of rows get a verdict when nothing
 *     changed, and the interval holds a known +2% change in at least 95% of rows;
 *   - with 95% intervals, the same rule does not hold 5% on normal noise: an interval is narrow
 *     partly by luck, and the rows that stop are those with the luck. That is why the level.
 * RUNS = 3,000 per cell: the binomial sd near 5% is 0.4 points, and the bound allows 2 sd.
 */
import { describe, expect, test } from "bun:test";
import { NOISE, type Noise } from "../support/noise.ts";
import { rowOpen, rowsWithinReach } from "../../src/compare/rounds/sampling.ts";
import type { Row } from "../../src/model/result.ts";
import { mulberry32 } from "../../src/schedule/prng.ts";
import { LEVEL, SEQUENTIAL_LEVEL, statsOfLogRatios } from "../../src/stats/paired.ts";

const RUNS = 3000;
const MAX_ROUNDS = 60;
const CONTEXT = { baseMedian: 1, headMedian: 1, ratioMedian: 0, ratioQ1: 0, ratioQ3: 0 };

/**
 * One row sampled as a compare samples it: the rounds until the stop rule closes it, and its last
 * interval. With `reachRounds`, the row also stops, for good, once the time left could not bring
 * it to the target (sampling.ts rowsWithinReach, with no row beside it): when its width says it
 * needs more than that many rounds in all.
 */
function sampleRow(
  noise: Noise,
  random: () => number,
  shift: number,
  target: number,
  level: number,
  reachRounds?: number,
): [number, number] {
  const rule = { minRounds: 6, maxRounds: MAX_ROUNDS, targetHalfWidth: target };
  const d: number[] = [];
  for (;;) {
    while (d.length < 6) d.push(shift + noise(random));
    const { stats } = statsOfLogRatios(d, CONTEXT, level);
    const row = { id: "r", file: "f", label: "r", unit: "ns", status: "ok", base: [], head: [], stats } as Row;
    if (!rowOpen(rule, d.length, row)) return stats.ci;
    if (reachRounds !== undefined) {
      const cycleMs = 1;
      const within = rowsWithinReach(
        [{ id: "r", rounds: d.length, halfWidth: stats.halfWidth ?? Number.POSITIVE_INFINITY, cycleMs }, OTHER_ROW],
        {
          target,
          cycle: 2,
          budgetMs: ((reachRounds - d.length) / 2) * cycleMs,
          overheadPerCycleMs: 0,
        },
      );
      if (within && !within.has("r")) return stats.ci;
    }
    d.push(shift + noise(random), shift + noise(random));
  }
}

/** A row beside it that is always within reach, so that the one simulated can be left out alone. */
const OTHER_ROW = { id: "other", rounds: 6, halfWidth: 0, cycleMs: 0 };

function rates(noise: Noise, seed: number, target: number, level: number, reachRounds?: number) {
  const random = mulberry32(seed);
  const change = Math.expm1(Math.log(1.02));
  let verdicts = 0;
  let held = 0;
  for (let k = 0; k < RUNS; k++) {
    const [lower, upper] = sampleRow(noise, random, 0, target, level, reachRounds);
    if (lower > 0 || upper < 0) verdicts++;
    const [l2, u2] = sampleRow(noise, random, Math.log(1.02), target, level, reachRounds);
    if (l2 <= change && change <= u2) held++;
  }
  return { falseVerdicts: verdicts / RUNS, coverage: held / RUNS };
}

const BOUND = 0.05 + 2 * Math.sqrt((0.05 * 0.95) / RUNS);

describe("a row that stops on its own width", () => {
  test.each(Object.entries(NOISE))(
    "%s: at the sequential level, false verdicts <= 5%% and coverage >= 95%%",
    (kind, noise) => {
      for (const target of [0.007, 0.01, 0.014, 0.03]) {
        const { falseVerdicts, coverage } = rates(noise, kind.length * 104729 + target * 1e4, target, SEQUENTIAL_LEVEL);
        expect({ kind, target, falseVerdictsAtMost5: falseVerdicts <= BOUND }).toEqual({ kind, target, falseVerdictsAtMost5: true });
        expect({ kind, target, coverageAtLeast95: coverage >= 1 - BOUND }).toEqual({ kind, target, coverageAtLeast95: true });
      }
    },
    120_000,
  );

  test.each(Object.entries(NOISE))(
    "%s: rows left out when the time left cannot bring them to the target keep both promises",
    (kind, noise) => {
      for (const target of [0.007, 0.01, 0.014]) {
        const { falseVerdicts, coverage } = rates(noise, kind.length * 7919 + target * 1e4, target, SEQUENTIAL_LEVEL, 24);
        expect({ kind, target, falseVerdictsAtMost5: falseVerdicts <= BOUND }).toEqual({ kind, target, falseVerdictsAtMost5: true });
        expect({ kind, target, coverageAtLeast95: coverage >= 1 - BOUND }).toEqual({ kind, target, coverageAtLeast95: true });
      }
    },
    120_000,
  );

  test("95% intervals do not hold 5% under the same rule (normal noise, ±1% target)", () => {
    const { falseVerdicts } = rates(NOISE.normal!, 20261202, 0.01, LEVEL);
    expect(falseVerdicts).toBeGreaterThan(BOUND);
  }, 120_000);
});

describe("which open rows the time left can bring to the target", () => {
  const row = (id: string, halfWidth: number, cycleMs = 100) => ({ id, rounds: 6, halfWidth, cycleMs });
  const options = { target: 0.01, cycle: 2, overheadPerCycleMs: 0 };

  test("the rows that can reach it, cheapest first, as many as the time holds; the rest wait", () => {
    // At 6 rounds: ±1.2% needs 3 more rounds (2 cycles), ±2% 18 more (9 cycles), ±10% hundreds.
    const rows = [row("far", 0.1), row("near", 0.012), row("mid", 0.02)];
    expect(rowsWithinReach(rows, { ...options, budgetMs: 1200 })).toEqual(new Set(["near", "mid"]));
    // Two rows already at the target: the near one brings three of five within it.
    expect(rowsWithinReach(rows, { ...options, budgetMs: 500, closed: 2 })).toEqual(new Set(["near"]));
    // Each cycle's processes cost too: with 200 ms a cycle, only the near row fits 1200 ms.
    expect(rowsWithinReach(rows, { ...options, budgetMs: 1200, overheadPerCycleMs: 200, closed: 2 })).toEqual(new Set(["near"]));
  });

  test("every open row when the rows within reach, with those at the target, are fewer than half", () => {
    // Only the near row fits: one of three, the median row would wait; with one closed, two of four.
    const rows = [row("far", 0.1), row("near", 0.012), row("mid", 0.02)];
    expect(rowsWithinReach(rows, { ...options, budgetMs: 500 })).toBeUndefined();
    expect(rowsWithinReach(rows, { ...options, budgetMs: 500, closed: 1 })).toEqual(new Set(["near"]));
  });

  test("every open row when all fit, or none does", () => {
    const rows = [row("a", 0.012), row("b", 0.02)];
    expect(rowsWithinReach(rows, { ...options, budgetMs: 1e9 })).toBeUndefined();
    expect(rowsWithinReach(rows, { ...options, budgetMs: 10 })).toBeUndefined();
    // Most rows at the target already, and no open one can reach it: the open ones are all measured.
    expect(rowsWithinReach(rows, { ...options, budgetMs: 10, closed: 5 })).toBeUndefined();
  });
});
