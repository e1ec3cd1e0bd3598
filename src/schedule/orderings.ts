/**
 * The round scheduler (docs/compare.md, "The scheduler").
 *
 * A run inherits leftovers (caches, CPU frequency, page cache) from the run before it, so one
 * fixed order of arms biases the comparison. Each cycle of k! rounds uses every ordering of the
 * arms exactly once, which puts every arm in every position, and behind every other arm within a
 * round, equally often.
 *
 * The boundary between rounds is balanced too. Read the orderings as edges of a multigraph on
 * the arms, from an ordering's first arm to its last; a cycle that uses each ordering once and
 * starts every round with the arm the previous round ended with is an Eulerian circuit of that
 * graph (each arm has in- and out-degree (k-1)!, so one exists). Then each boundary repeats one
 * arm, every arm ends a round equally often, and in the flat stream of runs every arm is preceded
 * by every arm, itself included, exactly (k-1)! times per cycle (counting the cycle's closing
 * boundary). With two arms that is AB, BA, AB, BA...
 *
 * The random seed picks which circuit each cycle walks (shuffled adjacency in Hierholzer's algorithm);
 * later cycles start where the previous one ended, so the property holds across cycles as well.
 */
import { usageError } from "../errors.ts";
import { mulberry32, shuffled } from "./prng.ts";

export const MAX_ARMS = 5;
/** Used when no seed is given, so that a schedule is reproducible by default. */
export const DEFAULT_SEED = 0x5eed;

export interface RoundPlan {
  /** One ordering of the arm names per round, `planned` of them. */
  orders: string[][];
  /** Rounds that will run: `rounds` rounded up to whole cycles. */
  planned: number;
  /** Rounds per cycle: k! for k arms. */
  cycle: number;
  /** `planned` is larger than the rounds asked for. */
  roundedUp: boolean;
  /** The random seed the orders were drawn with (recorded so that a run can be resumed). */
  seed: number;
}

/** All k! orderings of 0..k-1, in lexicographic order. */
export function permutations(k: number): number[][] {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`permutations: k must be a whole number >= 0, got ${k}`);
  if (k === 0) return [[]];
  const out: number[][] = [];
  for (const rest of permutations(k - 1)) {
    for (let at = 0; at <= rest.length; at++) out.push([...rest.slice(0, at), k - 1, ...rest.slice(at)]);
  }
  return out.sort(compareLex);
}

function compareLex(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

function factorial(k: number): number {
  return k <= 1 ? 1 : k * factorial(k - 1);
}

/**
 * One cycle: every ordering once, each starting with the arm the one before ended with, the first
 * starting with `start` (and the last ending with it). Hierholzer's algorithm over shuffled edges.
 */
function eulerianCycle(perms: number[][], k: number, start: number, random: () => number): number[][] {
  const outgoing: number[][] = Array.from({ length: k }, () => []);
  perms.forEach((perm, edge) => {
    outgoing[perm[0]!]!.push(edge);
  });
  for (let arm = 0; arm < k; arm++) outgoing[arm] = shuffled(outgoing[arm]!, random);

  const stack: Array<{ arm: number; edge: number }> = [{ arm: start, edge: -1 }];
  const circuit: number[] = [];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const edge = outgoing[top.arm]!.pop();
    if (edge !== undefined) {
      stack.push({ arm: perms[edge]![k - 1]!, edge });
    } else {
      stack.pop();
      if (top.edge >= 0) circuit.push(top.edge);
    }
  }
  return circuit.reverse().map((edge) => perms[edge]!);
}

/** Plans the order of arms for every round, rounded up to whole cycles of all orderings. */
export function planRounds(options: { arms: string[]; rounds: number; seed?: number }): RoundPlan {
  const { arms, rounds } = options;
  const seed = options.seed ?? DEFAULT_SEED;
  const k = arms.length;
  if (k < 1 || k > MAX_ARMS) throw usageError(`the scheduler takes 1 to ${MAX_ARMS} arms, got ${k}`);
  if (new Set(arms).size !== k) throw usageError(`arm names must be distinct, got ${arms.join(", ")}`);
  if (!Number.isInteger(rounds) || rounds < 1) throw usageError(`rounds must be a whole number >= 1, got ${rounds}`);
  if (!Number.isInteger(seed)) throw usageError(`seed must be a whole number, got ${seed}`);

  const cycle = factorial(k);
  const planned = Math.ceil(rounds / cycle) * cycle;
  const perms = permutations(k);
  const random = mulberry32(seed);
  const orders: string[][] = [];
  let start = Math.floor(random() * k);
  while (orders.length < planned) {
    for (const perm of eulerianCycle(perms, k, start, random)) orders.push(perm.map((i) => arms[i]!));
    start = arms.indexOf(orders[orders.length - 1]![k - 1]!);
  }
  return { orders, planned, cycle, roundedUp: planned > rounds, seed };
}

/**
 * The order of arms in round `round` of a schedule generated as needed: rounds come in blocks
 * of k! that use every ordering once, each block in its own seeded random order. Balanced
 * like planRounds (every arm in every position, behind every other arm, equally often per
 * block) but without a fixed rhythm: with two arms planRounds runs b,h,h,b,b,h… and a
 * disturbance with a period of four processes lined up with the sides in a measured A/A run.
 * Needs no memory for the rounds before it, so a run may grow one block at a time.
 */
export function orderAt(arms: readonly string[], seed: number, round: number): string[] {
  if (!Number.isInteger(round) || round < 0) throw new RangeError(`orderAt: round must be a whole number >= 0, got ${round}`);
  const perms = permutations(arms.length);
  const block = Math.floor(round / perms.length);
  const random = mulberry32((Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(block + 1, 0x85ebca6b)) >>> 0);
  return shuffled(perms, random)[round % perms.length]!.map((i) => arms[i]!);
}
