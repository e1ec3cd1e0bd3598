import { describe, expect, test } from "bun:test";
import { jobsFor, planFile, type InventoryOutcome } from "../../src/compare/jobs.ts";
import { samplingBudget, samplingRule } from "../../src/compare/plan.ts";
import { stopReason } from "../../src/compare/sampling.ts";
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
  const row = (ci: [number, number]): Row =>
    ({ id: "x", file: "f", label: "x", unit: "ns", status: "ok", base: [], head: [], stats: { ci } }) as unknown as Row;
  const state = (rounds: number, widths: number[], benchSeconds = 1) => ({
    rounds,
    cycle: 2,
    benchSeconds,
    rows: () => widths.map((w) => row([0.01 - w, 0.01 + w])),
  });
  const rule = samplingRule({});

  test("defaults: at least 6 rounds, then until every row is within ±1% or 120 s are spent", () => {
    expect(rule).toEqual({ minRounds: 6, maxRounds: 1000, targetHalfWidth: 0.01, maxTimeS: 120 });
    expect(stopReason(rule, state(4, [0]))).toBeUndefined();
    expect(stopReason(rule, state(6, [0.009, 0.002]))).toBe("target");
    expect(stopReason(rule, state(6, [0.011, 0.002]))).toBeUndefined();
    expect(stopReason(rule, state(7, [0]))).toBeUndefined(); // only at whole cycles
    expect(stopReason(rule, state(40, [0.03], 120))).toBe("time");
    expect(stopReason(rule, state(1000, [0.03]))).toBe("rounds");
  });

  test("the rule reads widths only: where an interval lies never stops a run", () => {
    const far = { ...state(8, []), rows: () => [row([0.5, 0.52]), row([-0.04, 0.04])] };
    expect(stopReason(rule, far)).toBeUndefined();
    const near = { ...state(8, []), rows: () => [row([-0.005, 0.005]), row([0.5, 0.51])] };
    expect(stopReason(rule, near)).toBe("target");
  });

  test("--rounds alone is a fixed run, rounded up to whole cycles; with --target it is the minimum", () => {
    expect(samplingRule({ rounds: 7 })).toEqual({ requested: 7, minRounds: 8, maxRounds: 8 });
    expect(stopReason(samplingRule({ rounds: 8 }), state(8, [0.5]))).toBe("rounds");
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
