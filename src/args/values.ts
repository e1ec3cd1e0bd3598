/**
 * Flag values as users type them: units, percent signs. Each check throws one usage line naming
 * the flag; the factories at the end are the `parse` of a flag table (`types.ts`).
 */
import { availableParallelism } from "node:os";
import { usageError } from "../errors.ts";

/** A whole number of at least `min`; `expected` words the range where the flag has more to say. */
export function parsePositiveInt(flag: string, value: unknown, min: number, expected = `an integer of at least ${min}`): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw usageError(`--${flag} must be ${expected} (got ${String(value)})`);
  return n;
}

export function parsePositiveNumber(flag: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw usageError(`--${flag} must be a positive number (got ${String(value)})`);
  return n;
}

/** A percentage, `0.5` or `0.5%`: users type the sign the help text talks in. */
export function parsePercent(flag: string, value: unknown): number {
  return parsePositiveNumber(flag, String(value).trim().replace(/%$/, ""));
}

const SECONDS_PER: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/**
 * A duration in `unit` (the flag's own, when none is typed): `90`, `90s`, `2m`, `1.5h`, `500ms`.
 * Units are accepted rather than refused: `--max-time 2m` reads as what it means.
 */
export function parseDuration(flag: string, value: unknown, unit: "s" | "ms"): number {
  const match = /^((?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*(ms|s|m|h)?$/i.exec(String(value).trim());
  const amount = match ? Number(match[1]) * (SECONDS_PER[(match[2] ?? unit).toLowerCase()]! / SECONDS_PER[unit]!) : Number.NaN;
  if (!(amount > 0) || !Number.isFinite(amount)) {
    const what = unit === "s" ? "seconds" : "milliseconds";
    throw usageError(`--${flag} must be a positive number of ${what}, or with a unit: 500ms, 90s, 2m, 1h (got ${String(value)})`);
  }
  return amount;
}

/** `--min-effect`: a percentage (`0.5` or `0.5%`) as a fraction; 0 is allowed (no equivalence band). */
export function parseMinEffect(flag: string, value: unknown): number {
  const text = String(value).trim().replace(/%$/, "");
  const n = Number(text);
  if (text === "" || !Number.isFinite(n) || n < 0) throw usageError(`--${flag} must be a percentage of at least 0 (got ${String(value)})`);
  return n / 100;
}

/**
 * `--jobs`: at least 1 and at most the cores xbench may use. More bench processes at once than
 * cores take turns on them, and each one's time then measures the others.
 */
export function parseJobs(flag: string, value: unknown): number {
  const cores = availableParallelism();
  const n = parsePositiveInt(flag, value, 1, `a whole number from 1 to ${cores}, the cores xbench may use here`);
  if (n > cores)
    throw usageError(
      `--${flag} must be at most ${cores}, the cores xbench may use here (got ${n}): processes beyond them would time each other`,
    );
  return n;
}

export const jobs = (text: string, flag: string): number => parseJobs(flag, text);

/** An integer of at least `min`. */
export const positiveInt =
  (min: number, expected?: string) =>
  (text: string, flag: string): number =>
    parsePositiveInt(flag, text, min, expected);

/** A positive percentage, `0.5` or `0.5%`, as typed (0.5, not 0.005). */
export const percent = (text: string, flag: string): number => parsePercent(flag, text);

/** A positive duration in `unit`, or with a unit typed. */
export const duration =
  (unit: "s" | "ms") =>
  (text: string, flag: string): number =>
    parseDuration(flag, text, unit);

/** A percentage of at least 0, as a fraction. */
export const minEffect = (text: string, flag: string): number => parseMinEffect(flag, text);
