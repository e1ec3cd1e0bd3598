import { describe, expect, test } from "bun:test";
import { XbenchError } from "../../src/errors.ts";
import { compareExact } from "../../src/stats/exact.ts";
import { holmAdjust, holmIntervals, walshSource } from "../../src/stats/holm.ts";
import { mdcAt, noiseFloor, readAA } from "../../src/stats/noise.ts";
import { logRatios, overhead, pairedStats, ratioInterval } from "../../src/stats/paired.ts";
import { median, quantile, spread } from "../../src/stats/quantile.ts";
import { hodgesLehmannInterval, hodgesLehmannP, verdictOf, walshSummary } from "../../src/stats/signed-rank.ts";
import { intervalAt, pairedP, summarize, tInterval } from "../../bench/truth-lab/t-interval.ts";
import { pairUp } from "../../src/stats/validate.ts";
import type { CompareResult } from "../../src/model/result.ts";
import { mulberry32 } from "../../src/schedule/prng.ts";

const pct = (x: number) => Number((x * 100).toFixed(2));

/** A deterministic ±1% wobble, so tests do not depend on a random source. */
const wobble = (i: number) => 1 + 0.01 * Math.sin(i * 12.9898);

describe("pairedStats known answers (signed-rank test, Hodges–Lehmann interval)", () => {
  test("base [100, 200], head [150, 260]: two rounds have no 95% interval, so it is unbounded and ~", () => {
    const s = pairedStats("two", [100, 200], [150, 260]);
    expect(s.n).toBe(2);
    // Walsh averages {ln 1.3, (ln 1.3 + ln 1.5) / 2, ln 1.5}: the median is the middle one.
    expect(s.delta).toBeCloseTo(Math.sqrt(1.5 * 1.3) - 1, 12);
    expect(s.ci).toEqual([-1, Infinity]);
    expect(s.halfWidth).toBe(Infinity);
    expect(s.level).toBe(1);
    expect(s.verdict).toBe("~");
    expect(s.p).toBe(0.5); // both positive: W+ = 3 of 3, P(W+ >= 3) = 1/4, two-sided 1/2
    expect(s.method).toBe("signed-rank");
    expect(s.baseMedian).toBe(150);
    expect(s.headMedian).toBe(205);
  });

  test("40 rounds whose ratios alternate 1.1 and 1.2: every Walsh average between k and M+1-k is the middle one", () => {
    const base = Array.from({ length: 40 }, (_, i) => 1000 + 37 * i);
    const head = base.map((b, i) => b * (i % 2 === 0 ? 1.1 : 1.2));
    const s = pairedStats("alternating", base, head);
    // Walsh averages: 210 of ln 1.1, 400 of (ln 1.1 + ln 1.2) / 2, 210 of ln 1.2; k = 265 (table: 264 + 1).
    const middle = Math.sqrt(1.1 * 1.2) - 1;
    expect(s.ci[0]).toBeCloseTo(middle, 12);
    expect(s.ci[1]).toBeCloseTo(middle, 12);
    expect(s.delta).toBeCloseTo(middle, 12);
    expect(s.verdict).toBe("slower");
    // all 40 positive, two tie groups of 20: only the all-plus sign vector reaches W+ = 820
    expect(s.p).toBe(2 ** -39);
    // the fspy view: median and quartiles (type 7) of h/b - 1
    expect(s.ratioMedian).toBeCloseTo(0.15, 12);
    expect(s.ratioQ1).toBeCloseTo(0.1, 12);
    expect(s.ratioQ3).toBeCloseTo(0.2, 12);
  });

  test("a +10% change hidden under 10x drift between rounds is slower", () => {
    const n = 10;
    const base = Array.from({ length: n }, (_, i) => 1e6 * 10 ** (i / (n - 1)) * wobble(i));
    const head = base.map((b, i) => b * 1.1 * wobble(i + 100));
    const s = pairedStats("drift", base, head);
    expect(s.verdict).toBe("slower");
    expect(s.ci[0]).toBeGreaterThan(0.05);
    expect(s.ci[1]).toBeLessThan(0.15);
    expect(s.halfWidth).toBeCloseTo((s.ci[1] - s.ci[0]) / 2, 15);
    expect(s.level).toBe(1 - 50 / 1024); // n = 10: k = 9, 2·P(W+ <= 8) = 50/1024
    // the medians alone could not tell: the drift is 10x, the change 10%
    expect(Math.max(...base) / Math.min(...base)).toBeGreaterThan(9);
  });

  test("a faster head is faster", () => {
    const base = Array.from({ length: 8 }, (_, i) => 5000 * wobble(i));
    const s = pairedStats(
      "faster",
      base,
      base.map((b, i) => b * 0.7 * wobble(i + 50)),
    );
    expect(s.verdict).toBe("faster");
    expect(s.ci[1]).toBeLessThan(0);
  });

  test("identical sides give delta 0, a zero-width interval and ~", () => {
    const values = [3, 1, 4, 1, 5, 9, 2, 6];
    const s = pairedStats("same", values, [...values]);
    expect(s).toMatchObject({ delta: 0, ci: [0, 0], verdict: "~", ratioMedian: 0, ratioQ1: 0, ratioQ3: 0, p: 1, halfWidth: 0 });
  });

  test("the p-value is the smallest α at which the interval excludes zero", () => {
    const base = [10, 11, 12, 10, 13, 12];
    const head = [10.5, 11.2, 12.9, 10.1, 13.4, 12.8];
    const walsh = walshSummary(logRatios(base, head));
    const s = pairedStats("p", base, head);
    expect(s.p).toBe(2 / 64); // six rounds, all slower: W+ = 21, P(W+ = 21) = 1/64
    expect(hodgesLehmannP(walsh)).toBe(s.p!);
    expect(verdictOf(hodgesLehmannInterval(walsh, 1 - s.p!).interval)).toBe("slower");
    expect(verdictOf(hodgesLehmannInterval(walsh, 1 - s.p! + 1e-9).interval)).toBe("~");
    expect(s.verdict).toBe("slower");
  });
});

describe("the t-interval (the old inference, kept so the truth lab can compare)", () => {
  const d = (base: number[], head: number[]) => logRatios(base, head);

  test("base [100, 200], head [150, 260]: CI [-43.74%, +246.62%] at df 1", () => {
    const t = tInterval(d([100, 200], [150, 260]));
    expect(t.ci[0] * 100).toBeCloseTo(-43.7419, 3);
    expect(t.ci[1] * 100).toBeCloseTo(246.6166, 3);
    expect(t.delta).toBeCloseTo(Math.sqrt(1.5 * 1.3) - 1, 12);
    expect(t.verdict).toBe("~");
  });

  test("40 rounds whose ratios alternate 1.1 and 1.2: [+13.28%, +16.52%] with t(39)", () => {
    const base = Array.from({ length: 40 }, (_, i) => 1000 + 37 * i);
    const t = tInterval(
      d(
        base,
        base.map((b, i) => b * (i % 2 === 0 ? 1.1 : 1.2)),
      ),
    );
    expect([pct(t.ci[0]), pct(t.ci[1])]).toEqual([13.28, 16.52]);
    expect(t.verdict).toBe("slower");
  });

  test("the p-value is the level at which the interval touches zero", () => {
    const summary = summarize(d([10, 11, 12, 10, 13, 12], [10.5, 11.2, 12.9, 10.1, 13.4, 12.8]));
    const p = pairedP(summary);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.05);
    expect(intervalAt(summary, 1 - p)[0]).toBeCloseTo(0, 10);
    expect(() => summarize([1])).toThrow(RangeError);
  });
});

describe("pairedStats input errors name the benchmark on one line", () => {
  const cases: Array<[string, number[], number[], string]> = [
    ["one round", [1], [1], "at least 2 rounds, got 1"],
    ["no rounds", [], [], "at least 2 rounds, got 0"],
    ["unequal", [1, 2, 3], [1, 2], "base has 3 rounds but head has 2"],
    ["zero", [1, 0], [1, 2], "base round 2 is 0"],
    ["negative", [1, 2], [1, -2], "head round 2 is -2"],
    ["nan", [1, 2], [Number.NaN, 2], "head round 1 is NaN"],
    ["infinite", [Infinity, 2], [1, 2], "base round 1 is Infinity"],
  ];
  test.each(cases)("%s", (name, base, head, message) => {
    let error: unknown;
    try {
      pairedStats(`bench ${name}`, base, head);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(XbenchError);
    const text = (error as Error).message;
    expect(text).toContain(`"bench ${name}"`);
    expect(text).toContain(message);
    expect(text).not.toContain("\n");
  });

  test("a name with a newline still gives one line", () => {
    expect(() => pairedStats("a\nb", [1], [1])).toThrow('benchmark "a\\nb": needs at least 2 rounds');
  });
});

describe("quantiles (type 7) and overhead", () => {
  test("type 7 matches R's quantile() / numpy linear", () => {
    expect([quantile([1, 2, 3, 4], 0.25), median([1, 2, 3, 4]), quantile([1, 2, 3, 4], 0.75)]).toEqual([1.75, 2.5, 3.25]);
    expect(spread([7, 1, 3, 5, 9])).toEqual({ median: 5, q1: 3, q3: 7 });
    expect(quantile([10, 20], 0.1)).toBeCloseTo(11, 12);
    expect(quantile([42], 0.3)).toBe(42);
    expect(() => quantile([], 0.5)).toThrow(RangeError);
    // unbounded half-widths (fewer than 6 rounds) are Infinity: an exact order statistic stays one
    expect([median([Infinity]), median([1, Infinity, 2]), quantile([1, Infinity], 1)]).toEqual([Infinity, 2, Infinity]);
  });

  test("overhead = median(arm / control - 1) with quartiles", () => {
    const o = overhead([110, 120, 130, 180], [100, 100, 100, 100]);
    expect(o.median).toBeCloseTo(0.25, 12);
    expect(o.q1).toBeCloseTo(0.175, 12);
    expect(o.q3).toBeCloseTo(0.425, 12);
    expect(() => overhead([1], [1], "tracer launch")).toThrow('"tracer launch"');
    expect(() => overhead([1, 2], [1, 0], "tracer launch")).toThrow("control round 2 is 0");
  });

  test("pairUp drops rounds missing on either side", () => {
    expect(pairUp([1, null, 3, 4], [5, 6, null, 8])).toEqual({ base: [1, 4], head: [5, 8] });
  });
});

describe("Holm", () => {
  test("adjusted p-values match R's p.adjust(method = 'holm')", () => {
    const adjusted = holmAdjust([0.01, 0.04, 0.03, 0.005]);
    expect(adjusted.map((p) => Number(p.toFixed(10)))).toEqual([0.03, 0.06, 0.06, 0.02]);
    expect(holmAdjust([0.5, 0.9])).toEqual([1, 1]);
    expect(holmAdjust([])).toEqual([]);
  });

  /**
   * Twenty log ratios ±0.001·rank whose positive ranks sum to `w` (greedy from the largest rank),
   * so the exact signed-rank p is 2·P(W+ >= w) at n = 20: w 188 → 0.00102, 166 → 0.0215,
   * 163 → 0.0296, 160 → 0.0400, 133 → 0.312 (from the null counts; see signed-rank.test.ts).
   */
  const withW = (w: number) => {
    let left = w;
    const d = Array.from({ length: 20 }, (_, i) => 20 - i).map((rank) => {
      const positive = rank <= left;
      if (positive) left -= rank;
      return (positive ? 1 : -1) * 0.001 * rank;
    });
    return walshSummary(d);
  };
  const asked = (level: number) => hodgesLehmannInterval(withW(105), level).level;

  test("intervals widen to the level of each rank and verdicts follow Holm's decisions", () => {
    // p 0.312 (rank 3, stops: 95%), 0.00102 (rank 1, 1 - 0.05/3), 0.0215 (rank 2, 1 - 0.05/2)
    const rows = holmIntervals([withW(133), withW(188), withW(166)].map(walshSource));
    expect(rows.map((r) => Number(r.p.toFixed(5)))).toEqual([0.31179, 0.00102, 0.02148]);
    // achieved levels of the exact intervals at n = 20 for the asked 0.95, 1 - 0.05/3, 0.975
    expect(rows.map((r) => r.level)).toEqual([asked(0.95), asked(1 - 0.05 / 3), asked(0.975)]);
    expect(rows[1]!.level).toBeGreaterThanOrEqual(1 - 0.05 / 3);
    expect(rows[2]!.level).toBeGreaterThanOrEqual(0.975);
    expect(rows.map((r) => r.verdict)).toEqual(["~", "slower", "slower"]);
    for (const r of rows) expect(r.pAdjusted <= 0.05).toBe(r.verdict !== "~");
  });

  test("once Holm stops, later ranks keep the stopping level (no verdict Holm would not give)", () => {
    // 0.0296 > 0.05/2 stops Holm at rank 1; 0.0400 alone would pass its own 0.05 level.
    const rows = holmIntervals([withW(163), withW(160)].map(walshSource));
    expect(rows.map((r) => r.verdict)).toEqual(["~", "~"]);
    expect(rows.map((r) => r.level)).toEqual([asked(0.975), asked(0.975)]);
    expect(hodgesLehmannInterval(withW(160), 0.95).interval[0]).toBeGreaterThan(0);
    expect(rows.map((r) => Number(r.pAdjusted.toFixed(5)))).toEqual([0.05915, 0.05915]);
  });

  test("with ties and zeros too, a Holm interval excludes zero exactly when Holm rejects", () => {
    const random = mulberry32(31);
    let rejected = 0;
    for (let family = 0; family < 300; family++) {
      const m = 1 + Math.floor(random() * 8);
      const summaries = Array.from({ length: m }, () => {
        const n = 6 + Math.floor(random() * 20);
        const shift = Math.floor(random() * 4);
        // whole numbers in a narrow range: many tied |d|, zeros and Walsh averages at exactly 0
        return walshSummary(Array.from({ length: n }, () => Math.floor(random() * 7) - 3 + shift));
      });
      for (const r of holmIntervals(summaries.map(walshSource))) {
        expect(r.verdict !== "~").toBe(r.pAdjusted <= 0.05);
        if (r.verdict !== "~") rejected++;
      }
    }
    expect(rejected).toBeGreaterThan(50);
  });

  test("on many rows, verdict agrees with pAdjusted <= 0.05 and intervals only widen", () => {
    const summaries = Array.from({ length: 30 }, (_, i) => withW(210 - 2 * i));
    const rows = holmIntervals(summaries.map(walshSource));
    rows.forEach((r, i) => {
      expect(r.pAdjusted <= 0.05).toBe(r.verdict !== "~");
      const plain = ratioInterval(hodgesLehmannInterval(summaries[i]!, 0.95).interval);
      expect(r.ci[0]).toBeLessThanOrEqual(plain[0]);
      expect(r.ci[1]).toBeGreaterThanOrEqual(plain[1]);
    });
    expect(rows.filter((r) => r.verdict !== "~").length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.verdict === "~").length).toBeGreaterThan(0);
  });
});

describe("exact comparison", () => {
  test("same, more, fewer with the difference", () => {
    expect(compareExact("parses", [4, 4], [4, 4])).toEqual({ base: 4, head: 4, difference: 0, verdict: "same" });
    expect(compareExact("parses", [2, 2], [4, 4])).toEqual({ base: 2, head: 4, difference: 2, verdict: "more" });
    expect(compareExact("parses", [4, 4, 4], [2, 2, 2])).toEqual({ base: 4, head: 2, difference: -2, verdict: "fewer" });
    expect(compareExact("bytes", [0], [0])).toMatchObject({ verdict: "same" });
  });

  test("rounds that disagree are compared by their medians and flagged", () => {
    expect(compareExact("parses", [5, 4, 4], [2, 2, 2])).toEqual({ base: 4, head: 2, difference: -2, verdict: "fewer", varies: true });
  });

  test("bad input names the benchmark", () => {
    expect(() => compareExact("parses", [-1], [1])).toThrow('benchmark "parses": base round 1 is -1');
    expect(() => compareExact("parses", [1, 1], [1])).toThrow(XbenchError);
    expect(() => compareExact("parses", [], [])).toThrow("at least 1 rounds");
  });
});

describe("A/A reading", () => {
  const base = [100, 104, 98, 101, 99, 103, 100, 97, 102, 100];
  const head = [101, 103, 99, 100, 100, 102, 101, 98, 101, 101];

  test("noise floor: half-width, |delta| and MDC = exp((U - L) / 2) - 1 of the log interval", () => {
    const f = noiseFloor("aa", base, head);
    const ps = pairedStats("aa", base, head);
    const [lower, upper] = hodgesLehmannInterval(walshSummary(logRatios(base, head)), 0.95).interval;
    expect(f.halfWidth).toBe(ps.halfWidth!);
    expect(f.halfWidth).toBeCloseTo((ps.ci[1] - ps.ci[0]) / 2, 14);
    expect(f.absDelta).toBeCloseTo(Math.abs(ps.delta), 14);
    expect(f.mdc).toBeCloseTo(Math.expm1((upper - lower) / 2), 14);
    expect(f.verdict).toBe("~");
    expect(f.logRatios).toEqual(logRatios(base, head));
  });

  test("mdcAt: infinite below 6 rounds, shrinks with more, the same for the same run", () => {
    const d = logRatios(base, head);
    expect(mdcAt(d, 5)).toBe(Infinity);
    expect(mdcAt(d, 40)).toBeLessThan(mdcAt(d, 10));
    expect(mdcAt(d, 20)).toBe(mdcAt(d, 20));
    expect(() => mdcAt(d, 1)).toThrow(RangeError);
    expect(() => mdcAt([0.1], 10)).toThrow(RangeError);
  });

  /**
   * The projection against the truth: from one seeded A/A run of 40 rounds, the projected MDC at
   * 10 and 30 rounds vs the median half-width of 1,000 simulated runs at that n (seen: 1.04, 1.02
   * normal; 0.93, 0.83 mixture). The mixture of whole-process shifts is the hard case: its median
   * half-width is 9.3% at 10 rounds and 0.66% at 30, which a 1/√n projection of the 40-round
   * half-width cannot follow (it gave 0.11 of the truth at 10 rounds). 20 rounds is left out on
   * purpose: there 42% of runs are wide (~9%) and the rest narrow (~1%), so a median lands on
   * either side by chance (noise.ts says so).
   */
  test("mdcAt projects the half-width within -40%..+25% on normal and mixture noise", () => {
    const random = mulberry32(7);
    const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const kinds: Record<string, () => number> = {
      normal: () => 0.02 * gauss(),
      mixture: () => 0.01 * gauss() + (random() < 0.2 ? (random() < 0.5 ? -1 : 1) * Math.log(1.4) : 0),
    };
    for (const [kind, noise] of Object.entries(kinds)) {
      const aa = Array.from({ length: 40 }, noise);
      for (const n of [10, 30]) {
        const truth = median(
          Array.from({ length: 1000 }, () => {
            const [lower, upper] = hodgesLehmannInterval(walshSummary(Array.from({ length: n }, noise)), 0.95).interval;
            return Math.expm1((upper - lower) / 2);
          }),
        );
        const ratio = mdcAt(aa, n) / truth;
        expect({ kind, n, within: ratio > 0.6 && ratio < 1.25 }).toEqual({ kind, n, within: true });
      }
    }
  });

  test("readAA reads every ok timed row from its raw rounds", () => {
    const result = {
      base: { ref: "HEAD", sha: "a".repeat(40), dirty: false },
      head: { ref: "HEAD", sha: "a".repeat(40), dirty: false },
      rows: [
        { id: "t", status: "ok", unit: "ns", base: [...base, null], head: [...head, 5] },
        { id: "c", status: "ok", unit: "count", base: [1, 1], head: [1, 1] },
        { id: "n", status: "new", unit: "ns", base: [], head: [1, 2] },
        { id: "one round", status: "ok", unit: "ns", base: [1], head: [1] }, // cannot be read: skipped
      ],
    } as unknown as CompareResult;
    const reading = readAA(result);
    expect(reading.sameCommit).toBe(true);
    expect(reading.rows.map((r) => [r.id, r.n])).toEqual([["t", 10]]);
    expect(reading.falseVerdicts).toBe(0);
  });

  test("readAA reads verdicts against the run's min-effect: a tiny real difference is same, not a false alarm", () => {
    const b = [1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003];
    const h = b.map((x, i) => x * (1.002 + 0.0005 * (i % 3)));
    const result = (minEffect?: number) =>
      ({
        base: { ref: "HEAD", sha: "a".repeat(40), dirty: false },
        head: { ref: "HEAD", sha: "a".repeat(40), dirty: false },
        ...(minEffect !== undefined ? { minEffect } : {}),
        rows: [{ id: "t", status: "ok", unit: "ns", base: b, head: h }],
      }) as unknown as CompareResult;
    expect(readAA(result(0)).rows[0]!.verdict).toBe("slower");
    expect(readAA(result(0)).falseVerdicts).toBe(1);
    expect(readAA(result(0.005)).rows[0]!.verdict).toBe("same");
    expect(readAA(result(0.005)).falseVerdicts).toBe(0);
    expect(readAA(result()).falseVerdicts).toBe(0); // a file from before --min-effect: the default
  });
});

/**
 * The interval's promise, checked by simulation: at 95%, an unchanged benchmark gets a verdict in
 * at most 5% of runs (the exact level of the discrete interval: 4.88% at 10 rounds, 3.125% at 6) and
 * a changed one's interval holds its true change in at least 95%. Rounds share a large drift (the
 * machine's state), which only pairing cancels. Seeded, so every run is the same. Heavy-tailed and
 * mixture noise are in signed-rank.test.ts.
 */
describe("coverage by simulation", () => {
  const random = mulberry32(20261130);
  /** Box-Muller: one standard normal draw. */
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  /** One run of `n` rounds: a shared drift of ±30% per round, ±2% noise per side, head `change` slower. */
  const run = (n: number, change: number) => {
    const base: number[] = [];
    const head: number[] = [];
    for (let i = 0; i < n; i++) {
      const round = 1000 * Math.exp(0.3 * normal());
      base.push(round * Math.exp(0.02 * normal()));
      head.push(round * (1 + change) * Math.exp(0.02 * normal()));
    }
    return { base, head };
  };
  const RUNS = 4000; // binomial sd of a 5% rate over 4000 runs: 0.34 points; of 3.1%: 0.27 points

  test("an unchanged benchmark gets a verdict at the interval's exact level (±1 point), at 6 and at 10 rounds", () => {
    for (const [n, level] of [
      [6, 2 / 64],
      [10, 50 / 1024],
    ] as const) {
      let verdicts = 0;
      for (let k = 0; k < RUNS; k++) {
        const { base, head } = run(n, 0);
        if (pairedStats("aa", base, head).verdict !== "~") verdicts++;
      }
      expect(verdicts / RUNS).toBeGreaterThan(level - 0.01);
      expect(verdicts / RUNS).toBeLessThan(level + 0.01);
    }
  });

  test("a 5% change: its interval holds +5% in 95% of runs, and 10 rounds call it slower nearly always", () => {
    let held = 0;
    let slower = 0;
    for (let k = 0; k < RUNS; k++) {
      const { base, head } = run(10, 0.05);
      const s = pairedStats("ab", base, head);
      if (s.ci[0] <= 0.05 && 0.05 <= s.ci[1]) held++;
      if (s.verdict === "slower") slower++;
    }
    expect(held / RUNS).toBeGreaterThan(0.94);
    expect(held / RUNS).toBeLessThan(0.96);
    expect(slower / RUNS).toBeGreaterThan(0.99);
  });

  test("Holm keeps 10 unchanged rows to at most one family in 20 with any verdict; plain 95% does not", () => {
    let holmFamilies = 0;
    let plainFamilies = 0;
    const FAMILIES = 1000;
    for (let k = 0; k < FAMILIES; k++) {
      const summaries = Array.from({ length: 10 }, () => {
        const { base, head } = run(10, 0);
        return walshSummary(logRatios(base, head));
      });
      if (holmIntervals(summaries.map(walshSource)).some((r) => r.verdict !== "~")) holmFamilies++;
      if (summaries.some((s) => verdictOf(hodgesLehmannInterval(s, 0.95).interval) !== "~")) plainFamilies++;
    }
    expect(holmFamilies / FAMILIES).toBeLessThan(0.065);
    expect(plainFamilies / FAMILIES).toBeGreaterThan(0.3); // 1 - (1 - 0.0488)^10 = 39%
  });
});
