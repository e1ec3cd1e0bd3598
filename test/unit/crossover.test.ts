/**
 * The crossover interval of counted rows (src/stats/crossover.ts, docs/statistics.md "Counted
 * rows: the order of the sides"): its null distribution against enumeration, its interval and p
 * on rounds whose only difference is which side ran first, and, by seeded simulation, its false
 * verdicts and coverage at fixed rounds and under the stop rule a compare samples by.
 */
import { describe, expect, test } from "bun:test";
import { NOISE, type Noise } from "../support/noise.ts";
import { rowOpen } from "../../src/compare/rounds/sampling.ts";
import type { Row } from "../../src/model/result.ts";
import { analyzeRows, type RawRow } from "../../src/report/row-stats.ts";
import { analyzeResult } from "../../src/report/analysis.ts";
import { baseResult } from "../support/report-fixtures.ts";
import { mulberry32 } from "../../src/schedule/prng.ts";
import { crossoverInterval, crossoverP, crossoverRounds, crossoverSummary } from "../../src/stats/crossover.ts";
import { countedAnalysis, type FirstSides, SEQUENTIAL_LEVEL } from "../../src/stats/paired.ts";

/** Every way to choose which m of m + n distinct values are x: the share with U = #{x < z} <= u. */
function enumeratedCdf(m: number, n: number, u: number): number {
  let hits = 0;
  let total = 0;
  for (let mask = 0; mask < 1 << (m + n); mask++) {
    let ones = 0;
    for (let b = 0; b < m + n; b++) if (mask & (1 << b)) ones++;
    if (ones !== m) continue;
    total++;
    // Values 0..m+n-1 in order; bit b set: value b is an x. U counts pairs x < z.
    let below = 0;
    let zSeen = 0;
    for (let b = m + n - 1; b >= 0; b--) {
      if (mask & (1 << b)) below += zSeen;
      else zSeen++;
    }
    if (below <= u) hits++;
  }
  return hits / total;
}

/** Rounds 0..n-1, head first in the even ones: the balanced orders a compare's cycles give. */
const balanced = (n: number): FirstSides => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? "head" : "base"));

describe("the crossover's null distribution and interval", () => {
  test("P(U <= u) is the enumerated share, for every m, n up to 5", () => {
    for (let m = 1; m <= 5; m++)
      for (let n = 1; n <= 5; n++) {
        const summary = crossoverSummary(
          Array.from({ length: m }, (_, i) => i * 10),
          Array.from({ length: n }, (_, j) => -(j * 10 + 5)),
        );
        for (let u = 0; u <= m * n; u++) expect(summary.cdf(u)).toBeCloseTo(enumeratedCdf(m, n, u), 12);
      }
  });

  test("4 rounds of each order give a 97% interval, [min D, max D] / 2 at 97.1%; 3 and 3 give none", () => {
    expect(crossoverRounds(SEQUENTIAL_LEVEL)).toBe(4);
    expect(crossoverRounds(0.95)).toBe(4);
    const four = crossoverSummary([0.01, 0.02, 0.03, 0.04], [0.0, -0.01, 0.01, 0.02]);
    const reached = crossoverInterval(four, SEQUENTIAL_LEVEL);
    expect(reached.level).toBeCloseTo(1 - 2 / 70, 12);
    expect(reached.interval[0]).toBeCloseTo((0.01 - 0.01) / 2, 12);
    expect(reached.interval[1]).toBeCloseTo((0.04 + 0.02) / 2, 12);
    const three = crossoverSummary([0.01, 0.02, 0.03], [0.0, -0.01, 0.01]);
    expect(crossoverInterval(three, SEQUENTIAL_LEVEL).interval).toEqual([-Infinity, Infinity]);
  });

  test("rounds that differ only by which side ran first read exactly no change", () => {
    // Going first costs a side 3.3% in every process: d = +π head first, −π base first.
    const d = balanced(8).map((first) => (first === "head" ? 0.033 : -0.033));
    const base = d.map(() => 1000);
    const head = d.map((x) => 1000 * Math.exp(x));
    const { stats } = countedAnalysis("r", base, head, balanced(8), SEQUENTIAL_LEVEL);
    expect(stats.method).toBe("crossover");
    expect(stats.delta).toBeCloseTo(0, 12);
    expect(stats.ci[0]).toBeCloseTo(0, 12);
    expect(stats.ci[1]).toBeCloseTo(0, 12);
    // The same rounds without their order: the signed-rank interval holds ±π.
    const unordered = countedAnalysis(
      "r",
      base,
      head,
      balanced(8).map(() => null),
      SEQUENTIAL_LEVEL,
    );
    expect(unordered.stats.method).toBe("signed-rank");
    expect(unordered.stats.ci[0]).toBeLessThan(-0.03);
    expect(unordered.stats.ci[1]).toBeGreaterThan(0.03);
  });

  test("a change beside the order's effect is read whole, with an interval around it", () => {
    const tau = Math.log(1.005);
    const d = balanced(8).map((first, i) => tau + (first === "head" ? 0.03 : -0.03) + (i % 3) * 1e-5);
    const { stats } = countedAnalysis(
      "r",
      d.map(() => 1),
      d.map(Math.exp),
      balanced(8),
      SEQUENTIAL_LEVEL,
    );
    expect(stats.delta).toBeCloseTo(0.005, 4);
    expect(stats.verdict).toBe("slower");
    expect(stats.halfWidth!).toBeLessThan(1e-4);
  });

  test("p is the smallest α at which the interval excludes zero", () => {
    const summary = crossoverSummary([0.01, 0.02, 0.03, 0.04, 0.05], [-0.02, 0.0, 0.01, -0.005, 0.002]);
    const p = crossoverP(summary);
    expect(p).toBeLessThan(1);
    const excludes = (level: number) => {
      const [lower, upper] = crossoverInterval(summary, level).interval;
      return lower > 0 || upper < 0;
    };
    expect(excludes(1 - p)).toBe(true);
    expect(excludes(1 - p + 1e-9)).toBe(false);
  });

  test("too few rounds of one order, or a round that was not a duet: the signed-rank interval", () => {
    const values = [1, 1.01, 0.99, 1, 1.02, 0.98, 1, 1.01];
    const first = balanced(8);
    expect(countedAnalysis("r", values, values.slice().reverse(), first.slice(0, 7), SEQUENTIAL_LEVEL).stats.method).toBe("signed-rank");
    const oneIsolated = [...first.slice(0, 7), null];
    expect(countedAnalysis("r", values, values.slice().reverse(), oneIsolated, SEQUENTIAL_LEVEL).stats.method).toBe("signed-rank");
  });
});

describe("which rows the crossover analyses", () => {
  const raw = (unit: RawRow["unit"], rounds = 8): RawRow => {
    const first = balanced(rounds) as Array<"base" | "head" | null>;
    return {
      id: `f-0: ${unit}`,
      file: "f",
      label: unit,
      unit,
      base: first.map(() => 1000),
      head: first.map((side) => 1000 * Math.exp(side === "head" ? 0.033 : -0.033)),
      presentOn: { base: true, head: true },
      mode: "duet",
      firstSide: first,
    };
  };

  test("counted rows with their orders, never timed ones (a time's analysis is unchanged)", () => {
    const [instructions, cycles, ns] = analyzeRows([raw("instructions"), raw("cycles"), raw("ns")], {
      holm: false,
      level: SEQUENTIAL_LEVEL,
    });
    expect(instructions!.stats!.method).toBe("crossover");
    expect(cycles!.stats!.method).toBe("crossover");
    expect(ns!.stats!.method).toBe("signed-rank");
    expect(instructions!.stats!.verdict).toBe("same");
    expect(ns!.stats!.verdict).toBe("~");
  });

  test("an A/A reading of counted rows reads them by their orders, as the table does", () => {
    const rows = analyzeRows([raw("instructions"), raw("ns")], { holm: false, minEffect: 0.001 });
    expect(rows[0]!.firstSide).toHaveLength(8);
    expect(rows[1]!.firstSide).toBeUndefined(); // a time's row is written as before
    const aa = analyzeResult(baseResult({ rows, minEffect: 0.001 })).aa!;
    expect(aa).toMatchObject({ rows: 2, same: 1, falseVerdicts: 0 });
  });

  test("Holm adjusts crossover rows by their own p and intervals", () => {
    // Two rows: the first is tested at 97.5%, which 4 rounds of each order cannot reach (97.1%) and 6 can.
    const short = analyzeRows([raw("instructions"), raw("instructions")], { holm: true });
    for (const row of short) expect(row.stats).toMatchObject({ method: "crossover", pAdjusted: 1, halfWidth: Infinity });
    const rows = analyzeRows([raw("instructions", 12), raw("instructions", 12)], { holm: true });
    for (const row of rows) expect(row.stats).toMatchObject({ method: "crossover", pAdjusted: 1, ci: [0, 0], verdict: "same" });
  });
});

const RUNS = 2000;
const BOUND = 0.05 + 2 * Math.sqrt((0.05 * 0.95) / RUNS);
const CHANGE = Math.log(1.02);

/** A row's log ratios: a place effect of its own (up to ±5%), the noise, and `shift`. */
function drawRow(noise: Noise, random: () => number, shift: number) {
  const place = 0.1 * (random() - 0.5);
  return (first: "head" | "base") => shift + (first === "head" ? place : -place) + noise(random);
}

/** One row as a compare samples it: from 6 rounds, two more while its interval is wider than the target. */
function sampledInterval(noise: Noise, random: () => number, shift: number, target: number): [number, number] {
  const rule = { minRounds: 6, maxRounds: 60, targetHalfWidth: target };
  const draw = drawRow(noise, random, shift);
  const d: number[] = [];
  for (;;) {
    while (d.length < 6) d.push(draw(balanced(d.length + 1)[d.length] as "head" | "base"));
    const first = balanced(d.length);
    const { stats } = countedAnalysis(
      "r",
      d.map(() => 1),
      d.map(Math.exp),
      first,
      SEQUENTIAL_LEVEL,
    );
    const row = { id: "r", file: "f", label: "r", unit: "instructions", status: "ok", base: [], head: [], stats } as Row;
    if (!rowOpen(rule, d.length, row)) return stats.ci;
    d.push(draw(balanced(d.length + 1)[d.length] as "head" | "base"));
    d.push(draw(balanced(d.length + 1)[d.length] as "head" | "base"));
  }
}

describe("seeded simulation: rows whose sides differ by their place in the process", () => {
  test.each(Object.entries(NOISE))(
    "%s: at fixed 8, 12, 20 and 40 rounds, false verdicts <= 5%% and coverage >= 95%%",
    (kind, noise) => {
      for (const n of [8, 12, 20, 40]) {
        const random = mulberry32(kind.length * 7907 + n);
        let verdicts = 0;
        let held = 0;
        const first = balanced(n);
        for (let k = 0; k < RUNS; k++) {
          const still = drawRow(noise, random, 0);
          const d0 = first.map((side) => still(side as "head" | "base"));
          const [l0, u0] = countedAnalysis(
            "r",
            d0.map(() => 1),
            d0.map(Math.exp),
            first,
            0.95,
          ).stats.ci;
          if (l0 > 0 || u0 < 0) verdicts++;
          const moved = drawRow(noise, random, CHANGE);
          const d1 = first.map((side) => moved(side as "head" | "base"));
          const [l1, u1] = countedAnalysis(
            "r",
            d1.map(() => 1),
            d1.map(Math.exp),
            first,
            0.95,
          ).stats.ci;
          if (l1 <= Math.expm1(CHANGE) && Math.expm1(CHANGE) <= u1) held++;
        }
        expect({ kind, n, falseVerdictsAtMost5: verdicts / RUNS <= BOUND }).toEqual({ kind, n, falseVerdictsAtMost5: true });
        expect({ kind, n, coverageAtLeast95: held / RUNS >= 1 - BOUND }).toEqual({ kind, n, coverageAtLeast95: true });
      }
    },
    120_000,
  );

  test.each(Object.entries(NOISE))(
    "%s: under the stop rule at the sequential level, false verdicts <= 5%% and coverage >= 95%%",
    (kind, noise) => {
      for (const target of [0.01, 0.03]) {
        const random = mulberry32(kind.length * 104723 + target * 1e4);
        let verdicts = 0;
        let held = 0;
        for (let k = 0; k < RUNS; k++) {
          const [l0, u0] = sampledInterval(noise, random, 0, target);
          if (l0 > 0 || u0 < 0) verdicts++;
          const [l1, u1] = sampledInterval(noise, random, CHANGE, target);
          if (l1 <= Math.expm1(CHANGE) && Math.expm1(CHANGE) <= u1) held++;
        }
        expect({ kind, target, falseVerdictsAtMost5: verdicts / RUNS <= BOUND }).toEqual({ kind, target, falseVerdictsAtMost5: true });
        expect({ kind, target, coverageAtLeast95: held / RUNS >= 1 - BOUND }).toEqual({ kind, target, coverageAtLeast95: true });
      }
    },
    120_000,
  );
});
