import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../../src/schedule/prng.ts";
import {
  criticalRank,
  EXACT_LIMIT,
  hodgesLehmannInterval,
  hodgesLehmannP,
  signedRankCdf,
  signedRankTest,
  verdictOf,
  walshSummary,
} from "../../src/stats/signed-rank.ts";
import { walshCount, walshOrderStatistic, walshSample } from "../../src/stats/walsh.ts";
import { normalCdf } from "../../src/stats/normal.ts";

/**
 * Independent reference for n <= 12: midranks by counting (no sorting), and the p-value by
 * enumerating all 2^n sign vectors of the nonzero |d|. Shares no code with signed-rank.ts.
 */
function bruteForceP(d: readonly number[]): number {
  const a = d.filter((x) => x !== 0).map(Math.abs);
  const rank = a.map((x) => a.filter((y) => y < x).length + (a.filter((y) => y === x).length + 1) / 2);
  const observed = d.filter((x) => x !== 0).reduce((sum, x, i) => (x > 0 ? sum + rank[i]! : sum), 0);
  let atMost = 0;
  let atLeast = 0;
  for (let signs = 0; signs < 2 ** a.length; signs++) {
    let w = 0;
    for (let i = 0; i < a.length; i++) if (signs & (1 << i)) w += rank[i]!;
    if (w <= observed + 1e-9) atMost++;
    if (w >= observed - 1e-9) atLeast++;
  }
  return Math.min(1, (2 * Math.min(atMost, atLeast)) / 2 ** a.length);
}

/** P(W+ <= j) for ranks 1..n by enumeration. */
function bruteForceCdf(n: number, j: number): number {
  let count = 0;
  for (let signs = 0; signs < 2 ** n; signs++) {
    let w = 0;
    for (let i = 0; i < n; i++) if (signs & (1 << i)) w += i + 1;
    if (w <= j) count++;
  }
  return count / 2 ** n;
}

describe("signed-rank test: known answers", () => {
  // Hollander & Wolfe's depression data, R's ?wilcox.test example: x = first visit, y = second.
  const x = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
  const y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
  const d = x.map((xi, i) => xi - y[i]!);

  test("depression data: V = 40, two-sided p = 20/512 (R: one-sided 0.01953)", () => {
    const t = signedRankTest(d);
    expect(t).toEqual({ n: 9, zeros: 0, wPlus: 40, ties: false, p: 20 / 512, method: "exact" });
  });

  test("depression data: HL estimate 0.46, 95% interval [0.01, 0.786] at 1 - 20/512", () => {
    // By hand, as R does it: qsignrank(0.025, 9) = 6 (P(V <= 5) = 10/512 < 0.025 <= P(V <= 6) = 14/512),
    // so the interval is [A_(6), A_(45 - 6 + 1)]; 5 Walsh averages are below 0, the 6th is d = 0.01.
    const walsh = walshSummary(d);
    const hl = hodgesLehmannInterval(walsh, 0.95);
    expect(walsh.estimate).toBeCloseTo(0.46, 12);
    expect(hl.bounded).toBe(true);
    expect(hl.k).toBe(6);
    expect(hl.interval[0]).toBeCloseTo(0.01, 12);
    expect(hl.interval[1]).toBeCloseTo(0.786, 12);
    expect(hl.level).toBe(1 - 20 / 512);
    expect(hodgesLehmannP(walsh)).toBe(20 / 512);
  });

  test("critical values match the two-sided 5% table of the signed-rank statistic", () => {
    // Largest T with P(W+ <= T) <= 0.025 (e.g. Hollander & Wolfe table A.4); k = T + 1.
    const table: Record<number, number> = {
      6: 0,
      7: 2,
      8: 3,
      9: 5,
      10: 8,
      11: 10,
      12: 13,
      13: 17,
      14: 21,
      15: 25,
      20: 52,
      25: 89,
      30: 137,
      40: 264,
      50: 434,
    };
    for (const [n, t] of Object.entries(table)) expect(criticalRank(Number(n), 0.95).k - 1).toBe(t);
    expect(criticalRank(5, 0.95)).toEqual({ k: 0, achieved: 1 });
    expect(criticalRank(6, 0.95).achieved).toBe(1 - 2 / 64);
  });

  test("the exact null distribution equals enumeration of all 2^n sign vectors, n <= 12", () => {
    for (let n = 1; n <= 12; n++) {
      for (let j = -1; j <= (n * (n + 1)) / 2; j++) expect(signedRankCdf(n, j)).toBeCloseTo(bruteForceCdf(n, j), 14);
    }
  });

  test("p-values equal enumeration over sign vectors, with ties (midranks) and zeros, n <= 12", () => {
    const random = mulberry32(11);
    for (let k = 0; k < 300; k++) {
      const n = 1 + Math.floor(random() * 12);
      // few distinct magnitudes, so ties and zeros are common
      const d = Array.from({ length: n }, () => (random() < 0.5 ? -1 : 1) * Math.floor(random() * 5) * 0.01);
      expect(signedRankTest(d).p).toBeCloseTo(bruteForceP(d), 12);
    }
  });

  test("zeros are dropped (Wilcoxon's convention); all zeros give p = 1", () => {
    expect(signedRankTest([0, 0, 1, 2, 3])).toEqual({ n: 3, zeros: 2, wPlus: 6, ties: false, p: 2 / 8, method: "exact" });
    expect(signedRankTest([0, 0]).p).toBe(1);
    // ties: |d| = 1, 1, 2 → midranks 1.5, 1.5, 3
    expect(signedRankTest([1, -1, 2])).toMatchObject({ wPlus: 4.5, ties: true });
  });

  test("above the exact limit: normal approximation with continuity and tie correction", () => {
    const n = EXACT_LIMIT + 20;
    // 1..120 scaled, with pairs tied (|d| = 1,1,3,3,...) and alternating signs, shifted so W+ > E
    const d = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? -1 : 1) * (2 * Math.floor(i / 2) + 1));
    const t = signedRankTest(d);
    expect(t.method).toBe("normal");
    const groups = n / 2; // every tie group has 2 members
    const variance = (n * (n + 1) * (2 * n + 1)) / 24 - (groups * (8 - 2)) / 48;
    const z = (Math.abs(t.wPlus - (n * (n + 1)) / 4) - 0.5) / Math.sqrt(variance);
    expect(t.p).toBeCloseTo(2 * (1 - normalCdf(z)), 14);
    expect(t.p).toBeGreaterThan(0.001);
    expect(t.p).toBeLessThan(0.5);
  });

  test("at the limit the normal approximation is within 0.002 of the exact tail", () => {
    const n = EXACT_LIMIT;
    const total = (n * (n + 1)) / 2;
    const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
    for (const j of [1900, 2000, 2200, 2400]) {
      expect(Math.abs(signedRankCdf(n, j) - normalCdf((j + 0.5 - total / 2) / sd))).toBeLessThan(0.002);
    }
  });

  test("normal quantities: Φ(1.959964) = 0.975 to 1e-7", () => {
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 7);
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
  });
});

describe("Hodges–Lehmann interval", () => {
  test("too few values for the level: unbounded, said so in the type, verdict ~", () => {
    const five = walshSummary([0.1, 0.2, 0.3, 0.4, 0.5]);
    const hl = hodgesLehmannInterval(five, 0.95);
    expect(hl).toEqual({ bounded: false, interval: [-Infinity, Infinity], level: 1, k: 0, method: "exact" });
    expect(verdictOf(hl.interval)).toBe("~");
    // at 90% five values suffice: [min, max] at 1 - 2/32
    expect(hodgesLehmannInterval(five, 0.9)).toMatchObject({ bounded: true, interval: [0.1, 0.5], level: 1 - 2 / 32, k: 1 });
  });

  test("Walsh order statistics and counts equal a plain sort, kept in order and selected alike", () => {
    const random = mulberry32(9);
    for (let k = 0; k < 200; k++) {
      const n = 1 + Math.floor(random() * 25);
      const d = Array.from({ length: n }, () => Math.round((random() - 0.5) * 20) / 10 + 0); // + 0: no -0, which toEqual tells from 0
      const all: number[] = [];
      for (let i = 0; i < n; i++) for (let j = i; j < n; j++) all.push((d[i]! + d[j]!) / 2);
      all.sort((a, b) => a - b);
      for (const w of [walshSample(d), walshSample(d, 0)]) {
        expect(all.map((_, r) => walshOrderStatistic(w, r + 1))).toEqual(all);
        for (const x of [all[0]! - 1, 0, all[Math.floor(all.length / 2)]!, all[all.length - 1]!]) {
          expect(walshCount(w, x)).toBe(all.filter((a) => a <= x).length);
          expect(walshCount(w, x, true)).toBe(all.filter((a) => a < x).length);
        }
      }
    }
    expect(walshSample([1, 2, 3]).all).toBeDefined();
    expect(walshSample([1, 2, 3], 0).all).toBeUndefined();
  });

  test("beyond 200 values the interval comes from selection and equals the one from a full sort", () => {
    const random = mulberry32(13);
    const d = Array.from({ length: 300 }, () => 0.01 + 0.05 * (random() - 0.5) + (random() < 0.2 ? 0.3 : 0));
    const summary = walshSummary(d);
    expect(summary.averages.all).toBeUndefined();
    const hl = hodgesLehmannInterval(summary, 0.95);
    const all: number[] = [];
    for (let i = 0; i < d.length; i++) for (let j = i; j < d.length; j++) all.push((d[i]! + d[j]!) / 2);
    all.sort((a, b) => a - b);
    expect(hl.interval).toEqual([all[hl.k - 1]!, all[all.length - hl.k]!]);
    expect(summary.estimate).toBe((all[all.length / 2 - 1]! + all[all.length / 2]!) / 2);
    expect(hodgesLehmannP(summary)).toBe(
      Math.min(1, 2 * signedRankCdf(300, Math.min(all.filter((a) => a <= 0).length, all.filter((a) => a >= 0).length))),
    );
  });

  test("#{Walsh averages > 0} is W+ when there are no ties or zeros", () => {
    const random = mulberry32(5);
    for (let k = 0; k < 200; k++) {
      const d = Array.from({ length: 3 + Math.floor(random() * 30) }, () => random() - 0.4);
      const m = (d.length * (d.length + 1)) / 2;
      expect(m - walshCount(walshSummary(d).averages, 0)).toBe(signedRankTest(d).wPlus);
    }
  });

  test("interval and test agree on many random samples without ties, at 95% and at other levels", () => {
    const random = mulberry32(2026);
    let verdicts = 0;
    for (let k = 0; k < 3000; k++) {
      const n = k % 50 === 0 ? EXACT_LIMIT + 1 + Math.floor(random() * 30) : 2 + Math.floor(random() * 40);
      const shift = (random() - 0.5) * 0.8;
      const d = Array.from({ length: n }, () => shift + random() - 0.5);
      const level = k % 3 === 0 ? 0.95 : 0.8 + 0.199 * random();
      const verdict = verdictOf(hodgesLehmannInterval(walshSummary(d), level).interval);
      const p = signedRankTest(d).p;
      expect(verdict !== "~").toBe(p <= 1 - level);
      expect(hodgesLehmannP(walshSummary(d))).toBeCloseTo(p, 12);
      if (verdict !== "~") verdicts++;
    }
    expect(verdicts).toBeGreaterThan(300); // both outcomes are exercised
    expect(verdicts).toBeLessThan(2700);
  });

  test("bad input is a RangeError", () => {
    expect(() => walshSummary([])).toThrow(RangeError);
    expect(() => walshSummary([1, Number.NaN])).toThrow(RangeError);
    expect(() => signedRankTest([Infinity])).toThrow(RangeError);
    expect(() => hodgesLehmannInterval(walshSummary([1, 2, 3, 4, 5, 6]), 1)).toThrow(RangeError);
    expect(() => criticalRank(10, 0)).toThrow(RangeError);
  });
});
