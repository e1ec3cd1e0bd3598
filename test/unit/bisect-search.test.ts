import { describe, expect, test } from "bun:test";
import { nextStep, type BisectConclusion, type Probe, type ProbeVerdict } from "../../src/compare/bisect/bisect-search.ts";

/** Runs the search against a known history: `truth(i)` is what probing commit i would say. */
function bisect(last: number, truth: (index: number) => ProbeVerdict): { probes: number[]; done: BisectConclusion } {
  const history: Probe[] = [];
  for (;;) {
    const step = nextStep(history, last);
    if ("done" in step) return { probes: history.map((p) => p.index), done: step.done };
    expect(history.some((p) => p.index === step.probe)).toBe(false); // never the same commit twice
    expect(step.probe).toBeGreaterThan(0);
    expect(step.probe).toBeLessThanOrEqual(last);
    history.push({ index: step.probe, verdict: truth(step.probe) });
  }
}

const slowFrom = (first: number) => (i: number) => (i >= first ? "bad" : "good");

describe("bisect search", () => {
  test("16 commits (good, then 15), slow from commit 11: found in at most ceil(log2 16) + 2 = 6 probes, --bad first", () => {
    const { probes, done } = bisect(15, slowFrom(11));
    expect(done).toEqual({ kind: "found", firstBad: 11, reverted: [] });
    expect(probes[0]).toBe(15);
    expect(probes.length).toBeLessThanOrEqual(6);
  });

  test.each(Array.from({ length: 15 }, (_, i) => i + 1))("slow from commit %d of 15: found, at most 6 probes", (first) => {
    const { probes, done } = bisect(15, slowFrom(first));
    expect(done).toEqual({ kind: "found", firstBad: first, reverted: [] });
    expect(probes.length).toBeLessThanOrEqual(6);
  });

  test("one commit after good: probed once, found", () => {
    expect(bisect(1, slowFrom(1))).toEqual({ probes: [1], done: { kind: "found", firstBad: 1, reverted: [] } });
  });

  test("--bad not slower, or undecidable: nothing to search, one probe", () => {
    expect(bisect(15, () => "good")).toEqual({ probes: [15], done: { kind: "not-bad", verdict: "good" } });
    expect(bisect(15, () => "skip").done).toEqual({ kind: "not-bad", verdict: "skip" });
  });

  test("a slowdown introduced at 6, reverted at 9, then a real one at 12: finds 12 and says 6-8 came and went", () => {
    const truth = (i: number): ProbeVerdict => ((i >= 6 && i < 9) || i >= 12 ? "bad" : "good");
    const { done } = bisect(15, truth);
    expect(done).toEqual({ kind: "found", firstBad: 12, reverted: [{ bad: 6, firstBad: 6, goodAgain: 11 }] });
  });

  test("a reverted slowdown the probes never touch is not reported (it cannot be seen)", () => {
    const truth = (i: number): ProbeVerdict => (i === 2 || i >= 11 ? "bad" : "good");
    expect(bisect(15, truth).done).toEqual({ kind: "found", firstBad: 11, reverted: [] });
  });

  test("skipped commits: the search goes around them, and ends in a range when one hides the answer", () => {
    const around = bisect(15, (i) => (i === 7 ? "skip" : slowFrom(11)(i)));
    expect(around.done).toEqual({ kind: "found", firstBad: 11, reverted: [] });
    const hidden = bisect(15, (i) => (i === 10 ? "skip" : slowFrom(11)(i)));
    expect(hidden.done).toEqual({ kind: "range", after: 9, upTo: 11, skipped: [10], reverted: [] });
    const itself = bisect(15, (i) => (i === 11 ? "skip" : slowFrom(11)(i)));
    expect(itself.done).toEqual({ kind: "range", after: 10, upTo: 12, skipped: [11], reverted: [] });
  });

  test("the check above a found commit is one probe, in the longest untested stretch", () => {
    // Probes 15, 7, 3, 5, 6 find commit 6; the check then probes the middle of 8..14.
    const { probes } = bisect(15, slowFrom(6));
    expect(probes).toEqual([15, 7, 3, 5, 6, 11]);
  });
});
