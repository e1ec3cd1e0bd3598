import { describe, expect, test } from "bun:test";
import {
  bestSideNs,
  budgetAt,
  fitMinimumRounds,
  splitHalfVariance,
  parallelMs,
  processMs,
  roundSeconds,
  SIDE_NS_LIMITS,
  type RowRound,
} from "../../src/compare/rounds/allocate.ts";
import { samplingBudget } from "../../src/compare/plan.ts";

const BUDGET = samplingBudget(200);

/** Rounds whose log ratios alternate ±a (so 1.4826 × MAD = 1.4826a), each with in-process variance `within`. */
const rounds = (a: number, within: number, n = 8, sideNs = 200e6, warmupNs = 50e6): RowRound[] =>
  Array.from({ length: n }, (_, i) => ({ d: i % 2 === 0 ? a : -a, within, sideNs, warmupNs }));

describe("the sampling time that narrows a row most per second", () => {
  test("T = √(W·c / B): W the in-process variance times the time, c the fixed cost, B the rest", () => {
    const total = (1.4826 * 0.02) ** 2;
    // Each round's split-half value is σ²·χ²₁: its median, 0.4549 σ², stands for σ².
    const within = total / 2;
    const expected = Math.sqrt((within * 200e6 * (50e6 + 10e6)) / (total - within));
    expect(bestSideNs(rounds(0.02, 0.4549 * within), 10e6)).toBeCloseTo(expected, -3);
    // One process whose halves disagreed wildly does not set the row's time.
    const outlier = rounds(0.02, 0.4549 * within).map((r, i) => (i === 0 ? { ...r, within: 1 } : r));
    expect(bestSideNs(outlier, 10e6)).toBeCloseTo(expected, -3);
  });

  test("noise all between processes: the shortest time, more rounds; all in-process: the longest time", () => {
    expect(bestSideNs(rounds(0.05, 1e-9), 1e6)).toBe(SIDE_NS_LIMITS.min);
    expect(bestSideNs(rounds(0.001, 1), 1e6)).toBe(SIDE_NS_LIMITS.max);
  });

  test("too few rounds to split the noise: no advice", () => {
    expect(bestSideNs(rounds(0.02, 1e-5, 5), 1e6)).toBeUndefined();
  });

  test("a process's own noise from its two halves: (d₁ − d₂)²/4", () => {
    const d1 = Math.log(1.02);
    const d2 = Math.log(0.99);
    expect(splitHalfVariance([100, 100], [102, 99])).toBeCloseTo((d1 - d2) ** 2 / 4, 12);
    // What both sides' halves share (the second half of the process ran slower) is not noise of d.
    expect(splitHalfVariance([100, 150], [100, 150])).toBe(0);
  });
});

describe("what a round costs, and fitting the minimum rounds into --max-time", () => {
  test("a process: its load, then per row both sides' sampling and warm-up, a quarter more for calibration and rewarms", () => {
    expect(processMs(300, [BUDGET, BUDGET])).toBeCloseTo(300 + 2 * 2 * 1.25 * 250, 6);
    expect(processMs(300, [BUDGET], 1)).toBeCloseTo(300 + 1.25 * 250, 6);
  });

  test("processes several at a time: the work spread over the jobs, never less than the longest", () => {
    expect(parallelMs([100, 100, 100, 100], 2)).toBe(200);
    expect(parallelMs([1000, 10, 10], 2)).toBe(1000);
    expect(parallelMs([], 2)).toBe(0);
  });

  test("the default time when the minimum fits; shorter when it does not; the floor and a warning when even that does not", () => {
    const files = [{ loadMs: 200, rows: 10, processes: 1 }];
    const fits = fitMinimumRounds(files, BUDGET, { minRounds: 6, maxTimeS: 120, jobs: 1 });
    expect(fits).toMatchObject({ budget: BUDGET, fits: true });
    const shortened = fitMinimumRounds(files, BUDGET, { minRounds: 6, maxTimeS: 20, jobs: 1 });
    expect(shortened.fits).toBe(true);
    expect(shortened.budget.sideNs).toBeLessThan(BUDGET.sideNs);
    expect(shortened.minimumS).toBeLessThanOrEqual(20 / 3); // a third of the budget: the rest for the rows still wide
    expect(6 * roundSeconds(files, shortened.budget, 1)).toBeCloseTo(shortened.minimumS, 6);
    const floor = fitMinimumRounds(files, BUDGET, { minRounds: 6, maxTimeS: 2, jobs: 1 });
    expect(floor).toMatchObject({ fits: false, budget: budgetAt(SIDE_NS_LIMITS.min, BUDGET) });
    // Two processes at once halve a round of two files.
    const two = [...files, ...files];
    expect(roundSeconds(two, BUDGET, 2)).toBeCloseTo(roundSeconds(files, BUDGET, 1), 6);
  });

  test("a --time the user gave is never shortened: the floor is that time", () => {
    const files = [{ loadMs: 200, rows: 40, processes: 1 }];
    const kept = fitMinimumRounds(files, BUDGET, { minRounds: 6, maxTimeS: 10, jobs: 1, floorNs: BUDGET.sideNs });
    expect(kept).toMatchObject({ budget: BUDGET, fits: false });
  });
});
