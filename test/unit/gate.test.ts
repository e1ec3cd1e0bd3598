import { describe, expect, test } from "bun:test";
import type { Gate, GateRule, Row } from "../../src/model/result.ts";
import { decideGate, exitStatus, gateHeadline } from "../../src/report/gate.ts";

/** An ok timed row with interval `ci` of delta (fractions). */
function timed(id: string, ci: [number, number], delta = (ci[0] + ci[1]) / 2): Row {
  return {
    id,
    file: "x.bench.ts",
    label: id,
    unit: "ns",
    status: "ok",
    base: [],
    head: [],
    stats: {
      n: 6,
      delta,
      ci,
      verdict: ci[0] > 0 ? "slower" : ci[1] < 0 ? "faster" : "~",
      baseMedian: 1,
      headMedian: 1,
      ratioMedian: 0,
      ratioQ1: 0,
      ratioQ3: 0,
    },
  };
}

const above = (pct: number): GateRule => ({ on: "above", above: pct / 100 });
const ids = (gate: Gate) => ({ failing: gate.failing.map((r) => r.id), undecided: gate.undecided.map((r) => r.id) });

describe("decideGate", () => {
  const rows = [
    timed("same", [-0.01, 0.012]),
    timed("slower 3%", [0.02, 0.04]),
    timed("faster 5%", [-0.07, -0.03]),
    timed("slower 25%", [0.2, 0.3]),
    timed("around 10%", [0.05, 0.15]),
    timed("unbounded", [-1, Infinity]),
  ];

  test("--fail-on slower: every interval wholly above 0 fails, nothing is undecided", () => {
    const gate = decideGate(rows, { on: "slower" });
    expect(gate.outcome).toBe("fail");
    expect(ids(gate)).toEqual({ failing: ["slower 3%", "slower 25%", "around 10%"], undecided: [] });
  });

  test("--fail-on change: wholly above or wholly below 0", () => {
    expect(ids(decideGate(rows, { on: "change" })).failing).toEqual(["slower 3%", "faster 5%", "slower 25%", "around 10%"]);
  });

  test("--fail-above: wholly above fails; an interval holding the threshold is undecided, not failing", () => {
    expect(ids(decideGate(rows, above(10)))).toEqual({ failing: ["slower 25%"], undecided: ["around 10%", "unbounded"] });
    const none = decideGate(rows.slice(0, 3), above(10));
    expect(none.outcome).toBe("pass");
    const undecided = decideGate([rows[0]!, rows[4]!], above(10));
    expect(undecided.outcome).toBe("undecided");
    expect(ids(undecided)).toEqual({ failing: [], undecided: ["around 10%"] });
    // A lower bound exactly on the line is not wholly above it.
    expect(decideGate([timed("edge", [0.1, 0.2])], above(10)).outcome).toBe("undecided");
  });

  test("rows without an interval never decide: failed, new, exact", () => {
    const failed: Row = { ...timed("broken", [0.5, 0.6]), status: "failed", stats: undefined, error: { side: "head", message: "x" } };
    const exact: Row = {
      ...timed("count", [0, 0]),
      unit: "count",
      stats: undefined,
      exact: { base: 1, head: 9, difference: 8, verdict: "more" },
    };
    const gate = decideGate([failed, exact, { ...timed("new", [0, 0]), status: "new", stats: undefined }], { on: "change" });
    expect(gate).toEqual({ rule: { on: "change" }, outcome: "pass", failing: [], undecided: [] });
  });

  test("the headline says the outcome, the rule as typed and how many rows decided it", () => {
    expect(gateHeadline(decideGate(rows, above(10)))).toBe("gate failed (--fail-above 10): 1 row confidently more than 10% slower");
    expect(gateHeadline(decideGate(rows.slice(0, 1), { on: "slower" }))).toBe("gate passed (--fail-on slower): no row confidently slower");
    expect(gateHeadline(decideGate([rows[4]!], above(12.5)))).toBe(
      "gate passed, undecided (--fail-above 12.5): 1 row with an interval holding +12.5%; more rounds would tell",
    );
  });
});

describe("exitStatus", () => {
  const gate = (outcome: Gate["outcome"]): Gate => ({ rule: { on: "slower" }, outcome, failing: [], undecided: [] });
  test.each([
    // gate, rows that did not run, under git bisect run → status
    [undefined, false, false, 0],
    [undefined, true, false, 3],
    [undefined, true, true, 3], // no gate: bisect's 125 is for gated compares only
    [gate("pass"), false, false, 0],
    [gate("undecided"), false, false, 0],
    [gate("fail"), false, false, 1],
    [gate("fail"), true, false, 1], // a confident regression stands whatever else broke
    [gate("pass"), true, false, 3],
    [gate("undecided"), false, true, 125],
    [gate("pass"), true, true, 125],
    [gate("fail"), false, true, 1],
    [gate("pass"), false, true, 0],
  ] as const)("gate %o, not measured %p, bisecting %p → %d", (g, notMeasured, bisecting, status) => {
    expect(exitStatus({ gate: g, notMeasured, bisecting })).toBe(status);
  });
});
