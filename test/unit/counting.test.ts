/**
 * Counting (`compare --measure instructions|cycles`, docs/counting.md) without valgrind: the dump
 * header and the cycle estimate, the window and warm-up sizes, and the counting sampler on
 * simulated subjects whose cost per call falls as a JIT would make it fall, read through a fake
 * counter that counts what the subjects report inside their regions.
 */
import { describe, expect, mock, test } from "bun:test";
import * as sampler from "../../src/runner/child/sampler.ts";

// The bench process imports its siblings by virtual names (runner/bundle.ts): here, the files.
mock.module("xbench-internal:sampler", () => sampler);
const { estimatedCycles, measureValue, parseDumpHeader } = await import("../../src/runner/child/counter.ts");
const { sampleCounts, warmupCalls, windowIterations, windowsSettled } = await import("../../src/runner/child/count-sampler.ts");
import type { Counter, Events } from "../../src/runner/child/counter.ts";
import type { Subject } from "../../src/runner/child/sampler.ts";
import { CYCLE_WEIGHTS, type CountBudget } from "../../src/runner/protocol.ts";
import { COUNT_DEFAULTS, countBudget, DEFAULT_MAX_TIME_S, DEFAULT_TARGET, samplingRule } from "../../src/compare/plan.ts";
import { uncountedPart } from "../../src/report/row-stats.ts";
import { crossoverRounds } from "../../src/stats/crossover.ts";
import { SEQUENTIAL_LEVEL } from "../../src/stats/paired.ts";
import { formatCounted, formatValue, loadNote, percentDigits, runNotes } from "../../src/report/text.ts";
import { analyzeResult } from "../../src/report/analysis.ts";
import { aaResult } from "../support/report-fixtures.ts";

const HEADER = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 9540
cmd:  node --single-threaded --expose-gc w.mjs
part: 1

desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: Trigger: Client Request: xbench window 0

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 1000 300 100 10 20 5 2 4 1

ob=(11) /x/xbench-counter.node
`;

describe("a callgrind dump", () => {
  test("its header names the events and their totals, in order", () => {
    expect(parseDumpHeader(HEADER)).toEqual({ Ir: 1000, Dr: 300, Dw: 100, I1mr: 10, D1mr: 20, D1mw: 5, ILmr: 2, DLmr: 4, DLmw: 1 });
  });

  test("a window that collected nothing lists fewer totals than events: the rest are 0", () => {
    expect(parseDumpHeader("events: Ir Dr\nsummary: 7\n")).toEqual({ Ir: 7, Dr: 0 });
  });

  test("a header without events or summary is not a dump", () => {
    expect(parseDumpHeader("events: Ir\n")).toBeUndefined();
    expect(parseDumpHeader("summary: 12\n")).toBeUndefined();
    expect(parseDumpHeader("events: Ir\nsummary: x\n")).toBeUndefined();
  });

  test("estimated cycles: L1 hits 1, last-level hits 5, memory 35", () => {
    const events = parseDumpHeader(HEADER)!;
    // 1400 accesses, 35 L1 misses of which 7 missed the last level too.
    const expected = (1400 - 35) * 1 + (35 - 7) * 5 + 7 * 35;
    expect(estimatedCycles(events, CYCLE_WEIGHTS)).toBe(expected);
    expect(measureValue("cycles", CYCLE_WEIGHTS)(events)).toBe(expected);
    expect(measureValue("instructions", CYCLE_WEIGHTS)(events)).toBe(1000);
  });
});

describe("window and warm-up sizes", () => {
  test("a window is the smallest power of two of iterations that holds the target", () => {
    expect(windowIterations(455, 2e6)).toBe(8192);
    expect(windowIterations(500, 2e6)).toBe(4096);
    expect(windowIterations(5e6, 2e6)).toBe(1);
    expect(windowIterations(0, 2e6)).toBe(2 ** 30);
  });

  test("a cheap call warms up for warmupCalls, a costly one for about warmupEvents, in a power of two", () => {
    const budget = countBudget();
    expect(warmupCalls(budget, 100)).toBe(budget.warmupCalls);
    expect(warmupCalls(budget, 100_000)).toBe(512);
    expect(warmupCalls(budget, 1e9)).toBe(1);
    // Costs 3% apart (a heap layout, a hash seed) warm up alike.
    expect(warmupCalls(budget, 70_000)).toBe(warmupCalls(budget, 72_100));
  });

  test("windows settle when the last is no cheaper than the one before, within 0.05%", () => {
    expect(windowsSettled([1000])).toBe(false);
    expect(windowsSettled([1000, 999.6])).toBe(true);
    expect(windowsSettled([1000, 1001])).toBe(true);
    expect(windowsSettled([1000, 990])).toBe(false);
  });
});

/**
 * A benchmark under a simulated JIT: each call costs `cold` events until the subject has made
 * `tierUp` calls, then `warm`; the loop around a call adds `loop`. It reports to `counter` as a
 * counted region would: its events are counted only between begin and end.
 */
function jitSubject(
  counter: FakeCounter,
  spec: { cold: number; warm: number; tierUp: number; loop?: number },
): Subject & { calls: () => number } {
  let calls = 0;
  return {
    async batch(n) {
      counter.begin();
      for (let i = 0; i < n; i++) {
        counter.add((calls < spec.tierUp ? spec.cold : spec.warm) + (spec.loop ?? 0));
        calls++;
      }
      counter.end();
      return 0;
    },
    async finish() {},
    calls: () => calls,
  };
}

/** A counter that counts what subjects add between begin and end, plus a fixed cost per region. */
interface FakeCounter extends Counter {
  begin(): void;
  end(): void;
  add(events: number): void;
  reads: number;
}

function fakeCounter(regionCost = 600): FakeCounter {
  let total = 0;
  let collecting = false;
  const counter: FakeCounter = {
    measure: "instructions",
    value: (events: Events) => events.Ir ?? 0,
    regions: 0,
    reads: 0,
    instrument() {},
    zero() {
      total = 0;
      counter.regions = 0;
    },
    read() {
      counter.reads++;
      return { Ir: total };
    },
    begin() {
      counter.regions++;
      collecting = true;
      total += regionCost / 2;
    },
    end() {
      total += regionCost / 2;
      collecting = false;
    },
    add(events) {
      if (collecting) total += events;
    },
    region: {
      begin: () => (counter.begin(), 0),
      end: () => (counter.end(), 0),
      mark: () => 0,
    },
  };
  return counter;
}

const clock = (() => {
  let t = 0;
  return () => (t += 1000);
})();

describe("the counting sampler", () => {
  const budget: CountBudget = countBudget();

  test("counts each side's warm cost per iteration, the region's own cost taken off", async () => {
    const counter = fakeCounter();
    const a = jitSubject(counter, { cold: 5000, warm: 450, tierUp: 3000 });
    const b = jitSubject(counter, { cold: 5000, warm: 460, tierUp: 3000 });
    const [base, head] = await sampleCounts([a, b], budget, counter, { clock });
    expect(base!.value).toBe(450);
    expect(head!.value).toBe(460);
    // Both sides ran windows of the same length, holding at least the window's events.
    expect(base!.iterations).toBe(head!.iterations);
    expect(base!.iterations * 450).toBeGreaterThanOrEqual(budget.windowEvents);
    expect(base!.batches).toBe(budget.windows);
  });

  test("a tier-up during the measured windows is waited for: the windows that count are the warm ones", async () => {
    const counter = fakeCounter();
    // The warm-up ends at 8192 calls, windows of 4096 follow: the second is part cold, part warm.
    const late = jitSubject(counter, { cold: 900, warm: 450, tierUp: 14_000 });
    const [side] = await sampleCounts([late], budget, counter, { clock });
    expect(side!.value).toBe(450);
    expect(late.calls()).toBeGreaterThan(14_000 + 2 * 4096);
  });

  test("warms up by calls, whatever the clock says: a costly call warms up for fewer of them", async () => {
    const counter = fakeCounter();
    const cheap = jitSubject(counter, { cold: 200, warm: 100, tierUp: 10 });
    await sampleCounts([cheap], budget, counter, { clock });
    expect(cheap.calls()).toBeGreaterThanOrEqual(budget.warmupCalls);
    const costly = jitSubject(counter, { cold: 4e6, warm: 4e6, tierUp: 0 });
    await sampleCounts([costly], budget, counter, { clock });
    expect(costly.calls()).toBeLessThan(64);
  });

  test("the same subjects give the same counts and the same number of dumps in every process", async () => {
    const run = async () => {
      const counter = fakeCounter();
      const sides = [
        jitSubject(counter, { cold: 3000, warm: 720, tierUp: 2500 }),
        jitSubject(counter, { cold: 3100, warm: 721, tierUp: 2600 }),
      ];
      const values = (await sampleCounts(sides, budget, counter, { clock })).map((s) => s.value);
      return { values, reads: counter.reads, calls: sides.map((s) => s.calls()) };
    };
    expect(await run()).toEqual(await run());
  });
});

describe("what counts miss", () => {
  const totals = { windows: 4, iterations: 4 * 4096, events: 4 * 4096 * 500, wallNs: 40e6, cpuNs: 40e6, systemNs: 0, waits: 0 };

  test("a row that ran its windows on the CPU is counted", () => {
    expect(uncountedPart(totals)).toBeUndefined();
  });

  test("a row whose windows mostly waited, and waited often, is not countable", () => {
    expect(uncountedPart({ ...totals, cpuNs: 10e6, waits: 4 * 4096 })).toEqual({ why: "waits", share: 0.75 });
    // A busy machine gives a process little CPU too, but it never waits for it.
    expect(uncountedPart({ ...totals, cpuNs: 10e6, waits: 3 })).toBeUndefined();
  });

  test("a row that would natively spend most of its time in the kernel is not countable", () => {
    // 500 instructions an iteration are about 170 ns natively; 2 µs of system time an iteration.
    const kernel = uncountedPart({ ...totals, systemNs: 4 * 4096 * 2000 });
    expect(kernel?.why).toBe("kernel");
    expect(kernel!.share).toBeGreaterThan(0.9);
    // Valgrind's own system calls, a few ns an iteration, are not the row's.
    expect(uncountedPart({ ...totals, systemNs: 4 * 4096 * 5 })).toBeUndefined();
  });
});

describe("counts in a report", () => {
  test("per iteration, with a prefix past a thousand", () => {
    expect(formatCounted(8.877, "instructions")).toBe("8.9 instr");
    expect(formatCounted(454.9, "instructions")).toBe("454.9 instr");
    expect(formatCounted(61_052, "instructions")).toBe("61.05 k instr");
    expect(formatCounted(3_591_651, "cycles")).toBe("3.59 M cycles");
    expect(formatCounted(999_999, "instructions")).toBe("1.00 M instr");
    expect(formatValue(1500, "ns")).toBe("1.50 µs");
  });

  test("a counted A/A run's notes speak of counted rows, and say nothing of the machine's load", () => {
    const timed = aaResult();
    const busy = {
      ...timed,
      cores: 2,
      loadavg: { start: [6.3, 6, 5] as [number, number, number], end: [7.1, 6, 5] as [number, number, number] },
    };
    const counted = {
      ...busy,
      measure: { quantity: "instructions" as const, tool: "valgrind-3.19.0", runtimeFlags: "node --single-threaded" },
    };
    expect(loadNote(busy)).toContain("other work shared the machine");
    expect(loadNote(counted)).toBeUndefined();
    expect(runNotes(analyzeResult(busy)).join("\n")).toContain("timed rows got a verdict by chance");
    const notes = runNotes(analyzeResult(counted)).join("\n");
    expect(notes).toContain("counted rows got a verdict by chance");
    expect(notes).not.toContain("timed rows");
  });

  test("percentages of counted rows to hundredths, of timed rows to tenths", () => {
    expect(percentDigits("instructions")).toBe(2);
    expect(percentDigits("cycles")).toBe(2);
    expect(percentDigits("ns")).toBe(1);
  });
});

describe("a counting run's defaults", () => {
  test("a narrower target, a longer budget and 8 rounds at least (4 of each order); the time mode keeps its own", () => {
    expect(samplingRule({ measure: "instructions" })).toMatchObject({
      targetHalfWidth: COUNT_DEFAULTS.targetHalfWidth,
      maxTimeS: COUNT_DEFAULTS.maxTimeS,
      minRounds: 2 * crossoverRounds(SEQUENTIAL_LEVEL),
    });
    expect(samplingRule({ measure: "instructions", rounds: 6 })).toMatchObject({ minRounds: 6, maxRounds: 6 });
    expect(samplingRule({ measure: "time" }).minRounds).toBe(6);
    expect(samplingRule({ measure: "cycles" }).targetHalfWidth).toBe(COUNT_DEFAULTS.targetHalfWidth);
    expect(samplingRule({ measure: "time" })).toMatchObject({ targetHalfWidth: DEFAULT_TARGET, maxTimeS: DEFAULT_MAX_TIME_S });
    expect(samplingRule({})).toMatchObject({ targetHalfWidth: DEFAULT_TARGET, maxTimeS: DEFAULT_MAX_TIME_S });
  });
});
