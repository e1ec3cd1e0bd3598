/**
 * The cumulative change of a chain of steps (docs/statistics.md, "A chain of steps"), by seeded
 * simulation: each step is a compare of n rounds whose per-round log ratios are its true change
 * plus one of the noise kinds the other simulations use, analysed as compare analyses a row
 * (signed-rank interval at 95%); the steps are chained as `xbench history` chains them. The
 * cumulative's 95% interval must hold the sum of the true changes in at least 94% of runs
 * (2,000 runs a cell: 95% less about two of its standard errors) for chains of 1 to 30 steps,
 * and a commit must read as moved (its own interval beyond ±min-effect) at most at the step
 * interval's error rate when nothing changed, and nearly always when it changed by 10%.
 */
import { describe, expect, test } from "bun:test";
import { chainSteps, moves, stepOf, type Step } from "../../src/history/chain.ts";
import type { CompareResult, Row } from "../../src/model/result.ts";
import { mulberry32 } from "../../src/schedule/prng.ts";
import { LEVEL, statsOfLogRatios } from "../../src/stats/paired.ts";
import { NOISE } from "../support/noise.ts";

const RUNS = 2000;
const CONTEXT = { baseMedian: 1, headMedian: 1, ratioMedian: 0, ratioQ1: 0, ratioQ3: 0 };
const RESULT = { level: LEVEL } as CompareResult;

/** A step of a compare of `n` rounds whose true log change is `truth`. */
function simulatedStep(sha: string, truth: number, n: number, noise: (random: () => number) => number, random: () => number): Step {
  const d = Array.from({ length: n }, () => truth + noise(random));
  const { stats } = statsOfLogRatios(d, CONTEXT, LEVEL);
  const row: Row = { id: "r", file: "f.bench.ts", label: "r", unit: "ns", status: "ok", base: [], head: [], stats };
  return stepOf(sha, row, RESULT);
}

describe("the cumulative interval of a chain of steps", () => {
  for (const [kind, noise] of Object.entries(NOISE)) {
    for (const steps of [2, 5, 30]) {
      for (const n of [6, 10, 20]) {
        test(`${kind}: ${steps} steps of ${n} rounds hold the true sum in at least 94% of runs`, () => {
          const random = mulberry32(steps * 1000 + n);
          let held = 0;
          for (let run = 0; run < RUNS; run++) {
            let truth = 0;
            const chain: Step[] = [];
            for (let k = 0; k < steps; k++) {
              // Changes of -5% to +5%, and every third step the same code (an exact zero), as in a real history.
              const change = k % 3 === 2 ? 0 : (random() - 0.5) * 0.1;
              truth += change;
              chain.push(
                k % 3 === 2
                  ? { sha: `c${k}`, kind: "unchanged", log: 0, se: 0, delta: 0, ci: [0, 0] }
                  : simulatedStep(`c${k}`, change, n, noise, random),
              );
            }
            const { cumulative } = chainSteps("start", chain);
            if (Math.log1p(cumulative!.ci[0]) <= truth && truth <= Math.log1p(cumulative!.ci[1])) held++;
          }
          expect(held / RUNS).toBeGreaterThanOrEqual(0.94);
        });
      }
    }
  }
});

describe("the commits that moved a row", () => {
  for (const [kind, noise] of Object.entries(NOISE)) {
    test(`${kind}: with nothing changed, at most 5% of 10-round steps read as moved beyond ±0.5%`, () => {
      const random = mulberry32(7);
      let moved = 0;
      for (let run = 0; run < RUNS; run++) if (moves(simulatedStep("c", 0, 10, noise, random), 0.005)) moved++;
      expect(moved / RUNS).toBeLessThanOrEqual(0.05);
    });
  }
  test("normal noise of 2% a round: a +10% step of 10 rounds reads as moved in at least 95% of runs", () => {
    const random = mulberry32(11);
    let moved = 0;
    for (let run = 0; run < RUNS; run++) if (moves(simulatedStep("c", Math.log(1.1), 10, NOISE.normal!, random), 0.005)) moved++;
    expect(moved / RUNS).toBeGreaterThanOrEqual(0.95);
  });
});
