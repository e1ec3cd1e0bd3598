/**
 * The bench process's sampler on simulated benchmarks read through a quantized clock: batches
 * are sized by time (never under 1 ms or 1000 ticks of the clock), a cold first batch of the
 * other side does not shrink them, and the paired interval over rounds is never of zero width
 * unless the two sides' values truly are identical. Seeded, so every run is the same.
 */
import { describe, expect, test } from "bun:test";
import {
  batchFloorNs,
  calibrationCapNs,
  MAX_RESOLUTION_NS,
  measureResolution,
  median,
  sample,
  slowValue,
  type Subject,
} from "../../src/runner/child/sampler.ts";
import { samplingBudget } from "../../src/compare/plan.ts";
import { pairedStats } from "../../src/stats/paired.ts";
import { mulberry32 } from "../../src/schedule/prng.ts";

/** Simulated subjects take no CPU time: the sampler counts their batches' reported times as run. */
const SIMULATED = null;

interface Simulated {
  /** True time per iteration, ns. */
  perIteration: number;
  /** Relative noise of a batch (uniform, ±). */
  noise: number;
  /** The first batches run this many times slower: code not yet compiled. */
  cold?: { batches: number; factor: number };
}

/** A subject whose batch of n iterations takes n × perIteration (± noise), read on a clock that ticks every `tick` ns. */
function simulated(spec: Simulated, tick: number, random: () => number, log: number[] = []): Subject {
  let calls = 0;
  return {
    async batch(n: number) {
      calls++;
      log.push(n);
      const slow = spec.cold && calls <= spec.cold.batches ? spec.cold.factor : 1;
      const truth = n * spec.perIteration * slow * (1 + spec.noise * (2 * random() - 1));
      const start = random() * tick; // where in a tick the batch starts
      return Math.floor((start + truth) / tick) * tick - Math.floor(start / tick) * tick;
    },
    async finish() {},
  };
}

/** Rounds of a duet on one simulated benchmark: each round a process of its own speed, both sides sharing it. */
async function rounds(count: number, base: Simulated, head: Simulated, tick: number, seed: number) {
  const random = mulberry32(seed);
  const values = { base: [] as number[], head: [] as number[], batchNs: [] as number[], iterations: [] as number[] };
  const budget = { ...samplingBudget(), sideNs: 20e6, warmupNs: 5e6 };
  for (let r = 0; r < count; r++) {
    const process = 1 + 0.3 * random(); // whole processes differ, which pairing cancels
    const scaled = (s: Simulated) => ({ ...s, perIteration: s.perIteration * process });
    const subjects = [simulated(scaled(base), tick, random), simulated(scaled(head), tick, random)];
    const [b, h] = await sample(subjects, budget, tick, SIMULATED);
    values.base.push(b!.value);
    values.head.push(h!.value);
    values.batchNs.push(b!.batchNs, h!.batchNs);
    values.iterations.push(b!.iterations);
  }
  return values;
}

describe("the clock and the batch floor", () => {
  test("the resolution of a quantized clock is its tick, not the cost of a reading", () => {
    let t = 0;
    expect(measureResolution(() => Math.floor((t += 300) / 1000) * 1000)).toBe(1000);
    let u = 0;
    expect(measureResolution(() => (u += 42))).toBe(42);
  });

  test("a probe cut short by a preemption is taken again: one lost timeslice does not set a floor of seconds", () => {
    // The second reading comes 30 ms after the first (the process was descheduled), past the
    // probe's 20 ms: that probe holds one step of 30 ms. The next probe sees the 42 ns steps.
    let u = 0;
    let calls = 0;
    const preemptedOnce = () => {
      calls++;
      return (u += calls === 2 ? 30e6 : 42);
    };
    expect(measureResolution(preemptedOnce)).toBe(42);
    expect(batchFloorNs(measureResolution(preemptedOnce))).toBe(1e6);
    // A clock that only ever moves in 30 ms steps is read as at most 1 ms: a floor of 1 s, not 30.
    let v = 0;
    expect(measureResolution(() => (v += 30e6))).toBe(MAX_RESOLUTION_NS);
  });

  test("calibration has a wall-clock cap: 20 batches, at least 2 s", () => {
    expect(calibrationCapNs(1e6)).toBe(2e9);
    expect(calibrationCapNs(1e9)).toBe(2e10);
  });

  test("a batch lasts at least 1 ms, or 1000 ticks of a coarser clock", () => {
    expect(batchFloorNs(30)).toBe(1e6);
    expect(batchFloorNs(1000)).toBe(1e6);
    expect(batchFloorNs(100_000)).toBe(1e8);
  });
});

describe("batches sized by time on a quantized clock", () => {
  const fast: Simulated = { perIteration: 690, noise: 0.01 };

  test("a 690 ns benchmark gets batches of at least 1 ms, though the other side's first batches are cold", async () => {
    const log: number[] = [];
    const random = mulberry32(5);
    const cold = { ...fast, cold: { batches: 3, factor: 20 } };
    const [a, b] = await sample([simulated(fast, 1000, random), simulated(cold, 1000, random, log)], samplingBudget(), 1000, SIMULATED);
    for (const side of [a!, b!]) {
      expect(side.iterations).toBeGreaterThanOrEqual(Math.ceil(1e6 / 690));
      expect(side.batchNs).toBeGreaterThanOrEqual(1e6);
      expect(side.batches).toBeGreaterThanOrEqual(8);
    }
    // The cold side's first batch took 20x longer, and n did not come down for it.
    expect(log.at(-1)).toBe(a!.iterations);
  });

  test("a coarse clock (100 µs ticks) stretches every batch to 100 ms", async () => {
    const random = mulberry32(6);
    const [a, b] = await sample([simulated(fast, 1e5, random), simulated(fast, 1e5, random)], samplingBudget(), 1e5, SIMULATED);
    expect(Math.min(a!.batchNs, b!.batchNs)).toBeGreaterThanOrEqual(1e8);
  });

  test("a slow benchmark (60 ms a call) runs one call per batch with no rewarm call between sides", async () => {
    const log: number[] = [];
    const random = mulberry32(7);
    const slow = { perIteration: 60e6, noise: 0.02 };
    const [a] = await sample([simulated(slow, 1000, random, log), simulated(slow, 1000, random)], samplingBudget(), 1000, SIMULATED);
    expect(a!.iterations).toBe(1);
    expect(log.every((n) => n === 1)).toBe(true);
    // A few calls to warm up (it is warm after its first), then at least three times as long
    // measuring: 1 call to calibrate, 4 to 6 warming, 12 to 18 measured.
    expect(a!.batches).toBeGreaterThanOrEqual(12);
    const warming = log.length - 1 - a!.batches;
    expect(a!.batches).toBeGreaterThanOrEqual(3 * warming);
    expect(log.length).toBeLessThanOrEqual(1 + 6 + 18);
  });

  test("a slow benchmark that warms up long measures at least three times as long as it warmed up", async () => {
    const random = mulberry32(8);
    const slow = { perIteration: 60e6, noise: 0.02, cold: { batches: 5, factor: 1.5 } };
    const elapsed: number[][] = [[], []];
    const timed = (subject: Subject, out: number[]): Subject => ({
      async batch(n) {
        const t = await subject.batch(n);
        out.push(t);
        return t;
      },
      finish: subject.finish,
    });
    const sides = await sample(
      [timed(simulated(slow, 1000, random), elapsed[0]!), timed(simulated(slow, 1000, random), elapsed[1]!)],
      samplingBudget(),
      1000,
      SIMULATED,
    );
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    sides.forEach((side, s) => {
      const measured = elapsed[s]!.slice(-side!.batches);
      // Each side's first call sized the batches (one call is already past 1 ms); the rest
      // before the measured calls warmed up.
      const warming = elapsed[s]!.slice(1, -side!.batches);
      expect(sum(measured)).toBeGreaterThanOrEqual(3 * sum(warming));
      expect(side!.batches).toBeGreaterThan(12); // more than the minimum alone would give
    });
  });

  test("A/A on a 1 µs clock: over 10 rounds and 20 seeds, no interval of zero width", async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const v = await rounds(10, fast, fast, 1000, seed);
      expect(Math.min(...v.batchNs)).toBeGreaterThanOrEqual(1e6);
      const stats = pairedStats("aa", v.base, v.head);
      // A tie in a round can happen (medians on a grid of steps under 0.1%), but not in most rounds.
      const ties = v.base.filter((b, i) => b === v.head[i]).length;
      expect({ seed, fewTies: ties < 5, zeroWidth: stats.halfWidth === 0 }).toEqual({ seed, fewTies: true, zeroWidth: false });
    }
  });

  test("control: batches of 16 iterations, as a cold side once made them, tie in most rounds on the same clock", async () => {
    // The sampler's median of batch/n, with n fixed at 16: an 11 µs batch can only read 11 or 12 µs.
    const random = mulberry32(1);
    const medianOf = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
    let ties = 0;
    let zeroWidth = 0;
    for (let seed = 0; seed < 20; seed++) {
      const base: number[] = [];
      const head: number[] = [];
      for (let r = 0; r < 10; r++) {
        const process = 1 + 0.3 * random();
        const subjects = [0, 1].map(() => simulated({ ...fast, perIteration: 690 * process }, 1000, random));
        const side = async (s: Subject) => medianOf(await Promise.all(Array.from({ length: 101 }, async () => (await s.batch(16)) / 16)));
        base.push(await side(subjects[0]!));
        head.push(await side(subjects[1]!));
        if (base.at(-1) === head.at(-1)) ties++;
      }
      if (pairedStats("old", base, head).halfWidth === 0) zeroWidth++;
    }
    expect(ties).toBeGreaterThan(100);
    expect(zeroWidth).toBeGreaterThan(0);
  });

  test("a 0.5% change on a 1 µs clock is measured, not rounded away", async () => {
    const v = await rounds(10, fast, { ...fast, perIteration: 690 * 1.005 }, 1000, 99);
    const stats = pairedStats("change", v.base, v.head);
    expect(stats.halfWidth).toBeGreaterThan(0);
    expect(stats.ci[0]).toBeLessThan(0.005);
    expect(stats.ci[1]).toBeGreaterThan(0.005);
  });

  test("values that truly are identical give the one zero-width interval there is", async () => {
    // An exact clock (1 ns ticks), batches that start on a tick, and no noise: both sides identical.
    const exact: Simulated = { perIteration: 700, noise: 0 };
    const base: number[] = [];
    const head: number[] = [];
    for (let r = 0; r < 6; r++) {
      const subjects = [simulated(exact, 1, () => 0), simulated(exact, 1, () => 0)];
      const [b, h] = await sample(subjects, { ...samplingBudget(), sideNs: 20e6, warmupNs: 5e6 }, 1, SIMULATED);
      base.push(b!.value);
      head.push(h!.value);
    }
    expect(pairedStats("identical", base, head).ci).toEqual([0, 0]);
  });
});

/**
 * An allocating slow benchmark: each call pays for a collection or not depending on where in
 * the collector's cycle it starts, so its times fall in two modes (as a 27 ms parse did: 11 or
 * 35 ms, in turns). Both sides share the cycle, as they share a heap.
 */
function collecting(perCall: number, random: () => number, log: number[] = []): Subject {
  return {
    async batch(n: number) {
      let total = 0;
      for (let i = 0; i < n; i++) total += perCall * (random() < 0.5 ? 1 : 3) * (1 + 0.02 * (2 * random() - 1));
      log.push(total);
      return total;
    },
    async finish() {},
  };
}

describe("slow benchmarks", () => {
  test("a side's value is the mean of its fastest 90% of calls", () => {
    expect(slowValue([10, 30, 10, 30])).toBe(20);
    // 12 calls: the slowest one (descheduled) is dropped, 11 kept.
    expect(slowValue([...Array(11).fill(10), 500])).toBe(10);
    expect(slowValue([7])).toBe(7);
  });

  test("sample() reads a slow side with slowValue, a fast one with the median", async () => {
    const random = mulberry32(11);
    const log: number[] = [];
    const [slow] = await sample([collecting(30e6, random, log), collecting(30e6, random)], samplingBudget(), 1000, SIMULATED);
    expect(slow!.iterations).toBe(1);
    const measured = log.slice(-slow!.batches);
    expect(slow!.value).toBeCloseTo(slowValue(measured), 3);
    expect(slow!.value).not.toBeCloseTo(median(measured), 3);
  });

  test("A/A on a two-mode slow benchmark: the rounds' spread is at least 1.5 times narrower than with medians", async () => {
    const spread = (xs: number[]) => {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
    };
    const random = mulberry32(12);
    const withSampler: number[] = [];
    const withMedians: number[] = [];
    for (let r = 0; r < 40; r++) {
      const logs: number[][] = [[], []];
      const [a, b] = await sample(
        [collecting(30e6, random, logs[0]), collecting(30e6, random, logs[1])],
        samplingBudget(),
        1000,
        SIMULATED,
      );
      withSampler.push(Math.log(b!.value / a!.value));
      withMedians.push(Math.log(median(logs[1]!.slice(-b!.batches)) / median(logs[0]!.slice(-a!.batches))));
    }
    expect(spread(withMedians) / spread(withSampler)).toBeGreaterThan(1.5);
  });
});

/**
 * A subject on a busy machine: each batch runs n × perIteration of CPU time, and with
 * probability `cut` the process is descheduled in it, so its wall time is `stretch` times that.
 * `cpu` is the process's CPU clock, advanced by what the batches ran.
 */
function descheduled(perIteration: number, cut: number, stretch: number, random: () => number, cpu: { ns: number }): Subject {
  return {
    async batch(n: number) {
      const ran = n * perIteration * (1 + 0.01 * (2 * random() - 1));
      cpu.ns += ran;
      return random() < cut ? ran * stretch : ran;
    },
    async finish() {},
  };
}

describe("a busy machine", () => {
  test("sides sample for their running time and read clean batches, though most batches are descheduled", async () => {
    const random = mulberry32(21);
    const cpu = { ns: 0 };
    const budget = { ...samplingBudget(), sideNs: 25e6, warmupNs: 6e6 };
    const subjects = [descheduled(50, 0.6, 5, random, cpu), descheduled(50, 0.6, 5, random, cpu)];
    const [a, b] = await sample(subjects, budget, 1000, () => cpu.ns);
    for (const side of [a!, b!]) {
      // Counted in wall time, 25 ms held about 7 batches of which 3 ran clean: every batch
      // was read, and the median was a descheduled one (250 ns).
      expect(side.value).toBeGreaterThan(49);
      expect(side.value).toBeLessThan(51);
      expect(side.batches).toBeGreaterThanOrEqual(8);
    }
  });
});
