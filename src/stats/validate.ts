/**
 * Input checks shared by the statistics. A problem names the side and round, so that a caller
 * can either throw it (one line, naming the benchmark) or mark just that row as failed.
 */
import { XbenchError } from "../errors.ts";
import type { Side } from "../model/result.ts";

export interface InputProblem {
  side?: Side;
  message: string;
}

export interface InputRules {
  /** Fewest rounds accepted (2 for an interval: one round has no spread). */
  minRounds: number;
  /** Values must be > 0 (timings, for log ratios); otherwise >= 0 (counts, bytes). */
  positive: boolean;
}

/** The first problem with a pair of per-round samples, or undefined when they are usable. */
export function findProblem(
  base: readonly number[],
  head: readonly number[],
  rules: InputRules,
  labels: [string, string] = ["base", "head"],
): InputProblem | undefined {
  if (base.length !== head.length) {
    return { message: `${labels[0]} has ${base.length} rounds but ${labels[1]} has ${head.length}; rounds must pair up` };
  }
  if (base.length < rules.minRounds) {
    return { message: `needs at least ${rules.minRounds} rounds, got ${base.length}` };
  }
  const sides: Array<[Side, readonly number[], string]> = [
    ["base", base, labels[0]],
    ["head", head, labels[1]],
  ];
  for (const [side, values, label] of sides) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      const bad = typeof v !== "number" || !Number.isFinite(v) || (rules.positive ? v <= 0 : v < 0);
      if (bad) {
        const need = rules.positive ? "finite and > 0" : "finite and >= 0";
        return { side, message: `${label} round ${i + 1} is ${String(v)}; values must be ${need}` };
      }
    }
  }
  return undefined;
}

/** Throws the problem, if any, as a one-line XbenchError that names the benchmark. */
export function checkInput(
  name: string,
  base: readonly number[],
  head: readonly number[],
  rules: InputRules,
  labels?: [string, string],
): void {
  const problem = findProblem(base, head, rules, labels);
  if (problem) throw new XbenchError(`benchmark ${quoteName(name)}: ${problem.message}`);
}

/** A benchmark name on one line, whatever it contains (JSON string escaping). */
export function quoteName(name: string): string {
  return JSON.stringify(name);
}

/** Keeps the rounds where both sides have a value (a round missing on one side pairs with nothing). */
export function pairUp(base: ReadonlyArray<number | null>, head: ReadonlyArray<number | null>): { base: number[]; head: number[] } {
  const kept = pairedRounds(base, head);
  return { base: kept.map((i) => base[i]!), head: kept.map((i) => head[i]!) };
}

/** The rounds (indices) with a value on both sides, in order: the ones pairUp keeps. */
export function pairedRounds(base: ReadonlyArray<number | null>, head: ReadonlyArray<number | null>): number[] {
  const kept: number[] = [];
  for (let i = 0; i < Math.min(base.length, head.length); i++) {
    const b = base[i];
    const h = head[i];
    if (b !== null && b !== undefined && h !== null && h !== undefined) kept.push(i);
  }
  return kept;
}
