import { describe, expect, test } from "bun:test";
import { planRounds, permutations } from "../../src/schedule/orderings.ts";
import { mulberry32 } from "../../src/schedule/prng.ts";
import { XbenchError } from "../../src/errors.ts";

const ARMS = ["head", "base", "control", "d", "e"];

function count<T>(items: T[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(String(item), (counts.get(String(item)) ?? 0) + 1);
  return counts;
}

/** All values of a map equal `expected`, and there are `size` keys. */
function expectUniform(counts: Map<string, number>, size: number, expected: number): void {
  expect(counts.size).toBe(size);
  for (const [key, n] of counts) expect([key, n]).toEqual([key, expected]);
}

describe("permutations", () => {
  test.each([
    [0, 1],
    [1, 1],
    [2, 2],
    [3, 6],
    [4, 24],
    [5, 120],
  ])("k=%i has %i distinct orderings", (k, n) => {
    const perms = permutations(k);
    expect(perms.length).toBe(n);
    expect(new Set(perms.map((p) => p.join())).size).toBe(n);
    for (const p of perms) expect([...p].sort()).toEqual(Array.from({ length: k }, (_, i) => i));
  });
});

describe("planRounds", () => {
  test("two arms alternate AB, BA and never round 10 up", () => {
    const plan = planRounds({ arms: ["base", "head"], rounds: 10, seed: 1 });
    expect(plan.planned).toBe(10);
    expect(plan.cycle).toBe(2);
    expect(plan.roundedUp).toBe(false);
    for (let i = 1; i < plan.orders.length; i++) expect(plan.orders[i]).toEqual([...plan.orders[i - 1]!].reverse());
  });

  test("rounds are rounded up to whole cycles and the rounding is reported", () => {
    expect(planRounds({ arms: ARMS.slice(0, 3), rounds: 10 })).toMatchObject({ planned: 12, cycle: 6, roundedUp: true });
    expect(planRounds({ arms: ARMS.slice(0, 3), rounds: 12 })).toMatchObject({ planned: 12, roundedUp: false });
    expect(planRounds({ arms: ARMS.slice(0, 5), rounds: 1 })).toMatchObject({ planned: 120, cycle: 120, roundedUp: true });
    expect(planRounds({ arms: ["only"], rounds: 3 }).orders).toEqual([["only"], ["only"], ["only"]]);
  });

  test("the same seed gives the same schedule; another seed shuffles the cycle", () => {
    const a = planRounds({ arms: ARMS.slice(0, 3), rounds: 12, seed: 7 });
    expect(planRounds({ arms: ARMS.slice(0, 3), rounds: 12, seed: 7 })).toEqual(a);
    // Without shuffling, a cycle would be fixed by its starting arm: at most 3 distinct schedules.
    const seeds = Array.from({ length: 20 }, (_, i) => i);
    const schedules = seeds.map((seed) => JSON.stringify(planRounds({ arms: ARMS.slice(0, 3), rounds: 6, seed }).orders));
    expect(new Set(schedules).size).toBeGreaterThan(3);
    expect(a.seed).toBe(7);
  });

  test("bad input is a one-line usage error", () => {
    expect(() => planRounds({ arms: [], rounds: 2 })).toThrow(XbenchError);
    expect(() => planRounds({ arms: ARMS.concat("f"), rounds: 2 })).toThrow("1 to 5 arms");
    expect(() => planRounds({ arms: ["a", "a"], rounds: 2 })).toThrow("distinct");
    expect(() => planRounds({ arms: ["a", "b"], rounds: 0 })).toThrow("rounds");
    expect(() => planRounds({ arms: ["a", "b"], rounds: 2.5 })).toThrow("rounds");
  });
});

describe("planRounds properties, over whole cycles", () => {
  // Several seeds and cycle counts per k: the properties must not depend on luck.
  const cases = [1, 2, 3, 4, 5].flatMap((k) => [1, 2, 3].flatMap((cycles) => [11, 2024].map((seed) => ({ k, cycles, seed }))));

  test.each(cases)("k=$k cycles=$cycles seed=$seed", ({ k, cycles, seed }) => {
    const arms = ARMS.slice(0, k);
    const cycle = permutations(k).length;
    const plan = planRounds({ arms, rounds: cycle * (cycles - 1) + 1, seed });
    expect(plan.planned).toBe(cycle * cycles);
    expect(plan.orders.length).toBe(plan.planned);

    for (let c = 0; c < cycles; c++) {
      const slice = plan.orders.slice(c * cycle, (c + 1) * cycle);
      // every ordering exactly once per cycle
      expectUniform(count(slice.map((o) => o.join(">"))), cycle, 1);
      // every arm in every position equally often: (k-1)! per cycle
      expectUniform(count(slice.flatMap((o) => o.map((arm, pos) => `${arm}@${pos}`))), k * k, cycle / k);
      // within rounds, every ordered pair of distinct neighbours equally often: (k-1)! per cycle
      if (k > 1) {
        const pairs = slice.flatMap((o) => o.slice(1).map((arm, i) => `${o[i]}>${arm}`));
        expectUniform(count(pairs), k * (k - 1), cycle / k);
      }
      // across boundaries (the cycle closed on itself): each round starts with the arm the one
      // before ended with, so in the flat stream every arm follows every arm, itself included,
      // (k-1)! times per cycle.
      const stream = slice.flat();
      const cyclicPairs = stream.map((arm, i) => `${arm}>${stream[(i + 1) % stream.length]}`);
      expectUniform(count(cyclicPairs), k * k, cycle / k);
    }
    // and consecutive rounds chain across cycle boundaries too
    for (let i = 1; i < plan.orders.length; i++) expect(plan.orders[i]![0]).toBe(plan.orders[i - 1]![k - 1]!);
  });
});

test("mulberry32 is deterministic and in [0, 1)", () => {
  const a = mulberry32(42);
  const b = mulberry32(42);
  for (let i = 0; i < 1000; i++) {
    const x = a();
    expect(x).toBe(b());
    expect(x >= 0 && x < 1).toBe(true);
  }
});
