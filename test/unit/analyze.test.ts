import { describe, expect, test } from "bun:test";
import { analyzeRows, withMinEffectResult, type RawRow } from "../../src/report/row-stats.ts";
import type { CompareResult } from "../../src/model/result.ts";
import { verdictWithin } from "../../src/stats/equivalence.ts";
import { pairedStats } from "../../src/stats/paired.ts";

const row = (over: Partial<RawRow>): RawRow => ({
  id: "f-00000000: b",
  file: "bench/f.bench.ts",
  label: "b",
  unit: "ns",
  base: [100, 110, 120],
  head: [101, 112, 119],
  presentOn: { base: true, head: true },
  ...over,
});

describe("analyzeRows", () => {
  test("a timed row gets paired stats; an exact row an exact comparison", () => {
    const [timed, exact] = analyzeRows([row({}), row({ unit: "count", base: [4, 4], head: [2, 2] })], { holm: false });
    expect(timed!.status).toBe("ok");
    expect(timed!.stats).toEqual(pairedStats("f-00000000: b", [100, 110, 120], [101, 112, 119]));
    expect(timed!.exact).toBeUndefined();
    expect(exact!.exact).toEqual({ base: 4, head: 2, difference: -2, verdict: "fewer" });
    expect(exact!.stats).toBeUndefined();
  });

  test("a sampled bytes row (a command's peak RSS) gets paired stats, not an exact comparison", () => {
    const rss = { unit: "bytes" as const, base: [1_048_576, 1_069_056, 1_052_672], head: [1_060_864, 1_048_576, 1_056_768] };
    const [sampled, exact] = analyzeRows([row({ ...rss, sampled: true }), row(rss)], { holm: false });
    expect(sampled!.stats).toEqual(pairedStats("f-00000000: b", rss.base, rss.head));
    expect(sampled!.exact).toBeUndefined();
    expect(exact!.exact?.verdict).toBe("more"); // what an A/A run of a command showed before
  });

  test("status: failed, new, removed; raw rounds kept", () => {
    const rows = analyzeRows(
      [
        row({ error: { side: "base", message: "boom" } }),
        row({ presentOn: { base: false, head: true }, base: [] }),
        row({ presentOn: { base: true, head: false }, head: [] }),
        row({ presentOn: { base: false, head: false } }),
      ],
      { holm: false },
    );
    expect(rows.map((r) => r.status)).toEqual(["failed", "new", "removed", "failed"]);
    expect(rows[0]!.error).toEqual({ side: "base", message: "boom" });
    expect(rows[1]!.head).toEqual([101, 112, 119]);
    expect(rows.every((r) => !r.stats && !r.exact)).toBe(true);
  });

  test("rounds with null on either side are dropped pairwise", () => {
    const [r] = analyzeRows([row({ base: [100, null, 120, 130], head: [101, 112, null, 131] })], { holm: false });
    expect(r!.stats!.n).toBe(2);
    expect(r!.stats).toEqual(pairedStats("x", [100, 130], [101, 131]));
    expect(r!.base).toEqual([100, null, 120, 130]);
  });

  test("fewer than 2 pairs or bad values make a failed row, not a throw", () => {
    const rows = analyzeRows(
      [
        row({ base: [100, null, 120], head: [101, 112, null] }),
        row({ base: [100, 0, 120], head: [101, 112, 119] }),
        row({ unit: "bytes", base: [1, 2], head: [1, -1] }),
        row({}),
      ],
      { holm: false },
    );
    expect(rows.map((r) => r.status)).toEqual(["failed", "failed", "failed", "ok"]);
    expect(rows[0]!.error!.message).toBe("only 1 of 3 rounds have a value on both sides; need at least 2");
    expect(rows[1]!.error).toEqual({ side: "base", message: "base round 2 is 0; values must be finite and > 0" });
    expect(rows[2]!.error).toEqual({ side: "head", message: "head round 2 is -1; values must be finite and >= 0" });
  });

  test("holm adjusts only the timed ok rows, and only when asked, into new objects", () => {
    const raws = [
      row({}),
      row({ base: [100, 101, 102, 103, 104, 105, 106, 107], head: [103, 104.5, 105, 106.2, 107.6, 109.1, 109.9, 111.4] }),
      row({ unit: "count", base: [1, 1], head: [2, 2] }),
      row({ error: { side: "head", message: "x" } }),
    ];
    const plain = analyzeRows(raws, { holm: false });
    const holm = analyzeRows(raws, { holm: true });
    // 8 rounds, all slower: W+ = 36 of 36, exact p = 2/256
    expect(plain[1]!.stats!.p).toBe(2 / 256);
    expect(plain[1]!.stats!.verdict).toBe("slower");
    expect(plain[1]!.stats!.pAdjusted).toBeUndefined();
    expect(holm[1]!.stats!.pAdjusted).toBeCloseTo(Math.min(1, 2 * plain[1]!.stats!.p!), 12);
    expect(holm[1]!.stats!.p).toBe(plain[1]!.stats!.p!);
    // rank 1 of 2 is tested at 1 - 0.05/2: k = 3 (2·P(W+ <= 2) = 6/256), not 4 as at 95%
    expect(holm[1]!.stats!.level).toBe(1 - 6 / 256);
    expect(holm[1]!.stats!.ci[0]).toBeLessThan(plain[1]!.stats!.ci[0]);
    expect(holm[1]!.stats!.halfWidth).toBeCloseTo((holm[1]!.stats!.ci[1] - holm[1]!.stats!.ci[0]) / 2, 15);
    expect(holm[1]!.stats!.verdict).toBe("slower");
    // three rounds have no 95% interval at all; Holm leaves it unbounded
    expect(holm[0]!.stats!.ci).toEqual([-1, Infinity]);
    expect(holm[2]).toEqual(plain[2]!);
    expect(holm[3]).toEqual(plain[3]!);
    // the plain analysis of the same rows is untouched by a Holm analysis
    expect(plain[1]!.stats!.level).toBe(1 - 2 * (5 / 256));
  });
});

describe("--min-effect: no change beyond ±m is an answer, distinct from too wide to tell", () => {
  // 10 rounds of ratios within ±0.3%: the interval lies inside ±0.5% but holds zero.
  const tight = {
    base: [1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003],
    head: [1002, 1008, 991, 1004, 997, 1001, 999, 1003, 998, 1004],
  };
  const wide = { base: tight.base, head: tight.base.map((b, i) => b * (1 + (i % 2 === 0 ? 0.03 : -0.03))) };

  test("verdictWithin: same inside ±m (also when the interval excludes zero), else against zero", () => {
    expect(verdictWithin([-0.004, 0.003], 0.005)).toBe("same");
    expect(verdictWithin([0.001, 0.004], 0.005)).toBe("same");
    expect(verdictWithin([0.001, 0.006], 0.005)).toBe("slower");
    expect(verdictWithin([-0.006, -0.001], 0.005)).toBe("faster");
    expect(verdictWithin([-0.004, 0.006], 0.005)).toBe("~");
    expect(verdictWithin([-0.004, 0.003], 0)).toBe("~");
    expect(verdictWithin([0, 0], 0)).toBe("same");
    expect(() => verdictWithin([0, 0], -1)).toThrow(RangeError);
  });

  test("a narrow interval around zero reads same at the default ±0.5%, ~ with --min-effect 0", () => {
    const [narrow, broad] = analyzeRows([row(tight), row(wide)], { holm: false });
    expect(narrow!.stats!.ci[0]).toBeGreaterThanOrEqual(-0.005);
    expect(narrow!.stats!.ci[1]).toBeLessThanOrEqual(0.005);
    expect(narrow!.stats!.verdict).toBe("same");
    expect(broad!.stats!.verdict).toBe("~");
    const [strict] = analyzeRows([row(tight)], { holm: false, minEffect: 0 });
    expect(strict!.stats!.verdict).toBe("~");
    expect(strict!.stats!.ci).toEqual(narrow!.stats!.ci);
  });

  test("with Holm, the adjusted interval is what is read against ±m", () => {
    const [plain] = analyzeRows([row(tight), row(wide)], { holm: true, minEffect: 0.005 });
    expect(plain!.stats!.verdict).toBe(verdictWithin(plain!.stats!.ci, 0.005));
  });

  test("a saved result read again with another min-effect changes verdicts only", () => {
    const rows = analyzeRows([row(tight), row(wide), row({ unit: "count", base: [1, 1], head: [1, 1] })], { holm: false });
    const result = { minEffect: 0.005, rows } as unknown as CompareResult;
    const strict = withMinEffectResult(result, 0);
    expect(strict.minEffect).toBe(0);
    expect(strict.rows.map((r) => r.stats?.verdict ?? r.exact?.verdict)).toEqual(["~", "~", "same"]);
    expect(strict.rows.map((r) => r.stats?.ci)).toEqual(rows.map((r) => r.stats?.ci));
    expect(withMinEffectResult(result, 0.005)).toEqual(result);
  });
});
