import { describe, expect, test } from "bun:test";
import { jobsFor, planFile, type InventoryOutcome } from "../../src/compare/rounds/jobs.ts";
import { samplingBudget, samplingRule } from "../../src/compare/plan.ts";
import { rowOpen, stopReason } from "../../src/compare/rounds/sampling.ts";
import type { Row } from "../../src/model/result.ts";
import type { SideInventory } from "../../src/runner/protocol.ts";
import { orderAt, permutations } from "../../src/schedule/orderings.ts";

const inventory = (over: Partial<SideInventory> = {}): SideInventory => ({
  benchmarks: ["a", "g › b"],
  metrics: [],
  commands: [],
  isolate: false,
  ...over,
});
const both = (base: SideInventory, head: SideInventory = base): InventoryOutcome => ({ inventories: { base, head }, errors: {} });

describe("which bench processes a round of a file needs", () => {
  test("mitata benchmarks run as one duet process, in the round's order", () => {
    const plan = planFile("f.bench.ts", both(inventory()), { isolate: false });
    expect(plan).toEqual({ file: "f.bench.ts", timed: "duet", extras: [], failed: {} });
    expect(jobsFor(plan, ["head", "base"])).toEqual([{ name: "duet", kind: "duet", sides: ["head", "base"], parts: "timed" }]);
  });

  test("metrics and command rows run one side per process beside the duet", () => {
    const plan = planFile("f.bench.ts", both(inventory({ metrics: [{ label: "parses", unit: "count" }] })), { isolate: false });
    expect(jobsFor(plan, ["base", "head"]).map((j) => `${j.name}:${j.parts}`)).toEqual(["duet:timed", "base:extras", "head:extras"]);
  });

  test("--isolate, isolate() on either side, or sides that cannot share a process: one side per process", () => {
    expect(planFile("f", both(inventory()), { isolate: true }).isolatedBecause).toBe("--isolate");
    expect(planFile("f", both(inventory(), inventory({ isolate: true })), { isolate: false }).isolatedBecause).toBe(
      "the file calls isolate()",
    );
    const clash = planFile("f", { ...both(inventory()), duetError: "Cannot redefine property: x" }, { isolate: false });
    expect(clash.timed).toBe("isolated");
    expect(clash.isolatedBecause).toContain("Cannot redefine property: x");
    expect(jobsFor(clash, ["head", "base"]).map((j) => `${j.name}:${j.parts}`)).toEqual(["head:all", "base:all"]);
  });

  test("a side that cannot load or registers nothing fails the file there, and nothing runs", () => {
    const broken = planFile(
      "f",
      { inventories: { head: inventory() }, errors: { base: "cannot compile f: Unexpected" } },
      { isolate: false },
    );
    expect(broken.failed).toEqual({ base: "cannot compile f: Unexpected" });
    expect(jobsFor(broken, ["base", "head"])).toEqual([]);
    const empty = planFile("f", both(inventory(), inventory({ benchmarks: [] })), { isolate: false });
    expect(empty.failed.head).toMatch(/^registers no benchmark/);
  });
});

describe("sampling until narrow", () => {
  const row = (ci: [number, number], status: Row["status"] = "ok"): Row =>
    ({ id: "x", file: "f", label: "x", unit: "ns", status, base: [], head: [], stats: { ci } }) as unknown as Row;
  const rule = samplingRule({});
  /** The run's state after `rounds` rounds with rows of these half-widths (around +1%). */
  const state = (rounds: number, widths: number[], elapsedS = 1, nextCycleS = 1) => ({
    rounds,
    cycle: 2,
    elapsedS,
    nextCycleS: () => nextCycleS,
    openRows: () => widths.filter((w) => rowOpen(rule, rounds, row([0.01 - w, 0.01 + w]))).length,
  });

  test("defaults: at least 6 rounds, then until every row is within ±1% or 120 s are spent", () => {
    expect(rule).toEqual({ minRounds: 6, maxRounds: 1000, targetHalfWidth: 0.01, maxTimeS: 120 });
    expect(stopReason(rule, state(4, [0]))).toBeUndefined();
    expect(stopReason(rule, state(6, [0.009, 0.002]))).toBe("target");
    expect(stopReason(rule, state(6, [0.011, 0.002]))).toBeUndefined();
    expect(stopReason(rule, state(7, [0]))).toBeUndefined(); // only at whole cycles
    expect(stopReason(rule, state(40, [0.03], 120))).toBe("time");
    expect(stopReason(rule, state(1000, [0.03]))).toBe("rounds");
  });

  test("the time budget is wall time, and a cycle expected to end more than 5% past it is not started", () => {
    expect(stopReason(rule, state(20, [0.03], 100, 25))).toBeUndefined(); // ends at 125 s: within 5%
    expect(stopReason(rule, state(20, [0.03], 100, 27))).toBe("time"); // would end at 127 s
    // the minimum rounds are never cut by time (before them no row has an interval)
    expect(stopReason(rule, state(4, [0.03], 500, 100))).toBeUndefined();
  });

  test("a row narrower than the target is not measured again; failed and unchanged rows never are", () => {
    expect(rowOpen(rule, 4, row([-0.001, 0.001]))).toBe(true); // before the minimum, every row
    expect(rowOpen(rule, 6, row([-0.001, 0.001]))).toBe(false);
    expect(rowOpen(rule, 6, row([-0.02, 0.02]))).toBe(true);
    expect(rowOpen(rule, 6, row([-0.02, 0.02], "failed"))).toBe(false);
    expect(rowOpen(rule, 0, row([-0.02, 0.02], "unchanged"))).toBe(false);
    // rows without an interval (an exact count, a benchmark on one side) need only the minimum
    expect(rowOpen(rule, 6, { ...row([0, 0], "new"), stats: undefined })).toBe(false);
    // --rounds N: every row is measured in exactly N rounds, however narrow
    const fixed = samplingRule({ rounds: 8 });
    expect(rowOpen(fixed, 6, row([-0.0001, 0.0001]))).toBe(true);
    expect(rowOpen(fixed, 8, row([-0.5, 0.5]))).toBe(false);
  });

  test("the rule reads widths only: where an interval lies never stops a row or a run", () => {
    expect(rowOpen(rule, 8, row([0.5, 0.51]))).toBe(false);
    expect(rowOpen(rule, 8, row([-0.04, 0.04]))).toBe(true);
    expect(rowOpen(rule, 8, row([-0.005, 0.005]))).toBe(false);
  });

  test("--rounds alone is a fixed run, rounded up to whole cycles; with --target it is the minimum", () => {
    expect(samplingRule({ rounds: 7 })).toEqual({ requested: 7, minRounds: 8, maxRounds: 8 });
    expect(stopReason(samplingRule({ rounds: 8 }), { ...state(8, [0.5]), openRows: () => 1 })).toBe("rounds");
    expect(samplingRule({ rounds: 10, targetHalfWidth: 0.005 })).toMatchObject({ minRounds: 10, targetHalfWidth: 0.005 });
  });

  test("the per-process budget: 1 ms batches, a quarter to warm up, 8 batches a side at least", () => {
    expect(samplingBudget(200)).toEqual({ batchNs: 1e6, sideNs: 2e8, warmupNs: 5e7, minBatches: 8 });
    // never shorter than 1 ms, whatever --time: a shorter batch is quantized by the clock
    expect(samplingBudget(4).batchNs).toBe(1e6);
  });
});

describe("the order of sides, generated as needed", () => {
  test("each block of k! rounds holds every ordering once", () => {
    for (const arms of [
      ["base", "head"],
      ["a", "b", "c"],
    ]) {
      const k = permutations(arms.length).length;
      for (let block = 0; block < 50; block++) {
        const seen = new Set(Array.from({ length: k }, (_, i) => orderAt(arms, 7, block * k + i).join()));
        expect(seen.size).toBe(k);
      }
    }
  });

  test("no fixed rhythm: the order within blocks varies, and is the same for the same seed (resume)", () => {
    const firsts = Array.from({ length: 200 }, (_, r) => orderAt(["base", "head"], 11, r)[0]);
    const blockStarts = firsts.filter((_, r) => r % 2 === 0);
    const baseStarts = blockStarts.filter((s) => s === "base").length;
    expect(baseStarts).toBeGreaterThan(30);
    expect(baseStarts).toBeLessThan(70);
    expect(Array.from({ length: 200 }, (_, r) => orderAt(["base", "head"], 11, r)[0])).toEqual(firsts);
    expect(Array.from({ length: 200 }, (_, r) => orderAt(["base", "head"], 12, r)[0])).not.toEqual(firsts);
  });
});
