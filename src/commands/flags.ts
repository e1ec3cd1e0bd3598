/** Reading flags citty leaves to the command: repeats, what the user typed, the part after `--`. */
import { usageError } from "../errors.ts";

/** The first of `flags` the user typed (`--rounds 3` or `--rounds=3`); citty's defaults hide that. */
export function givenFlag(rawArgs: string[], flags: string[]): string | undefined {
  return rawArgs.map((a) => a.split("=")[0]!).find((name) => flags.includes(name));
}

/** Every value of a repeatable flag (`--bench a --bench=b`), up to `--`; citty keeps only the last. */
export function flagValues(rawArgs: string[], flag: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") break;
    if (arg === flag && i + 1 < rawArgs.length) values.push(rawArgs[++i]!);
    else if (arg.startsWith(`${flag}=`)) values.push(arg.slice(flag.length + 1));
  }
  return values;
}

/** The command line after `--` (`xbench trace -- make -j4` → `make -j4`); empty without one. */
export function afterDoubleDash(args: string[]): string[] {
  const dash = args.indexOf("--");
  return dash === -1 ? [] : args.slice(dash + 1);
}

export function parsePositiveInt(flag: string, value: unknown, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw usageError(`--${flag} must be an integer of at least ${min} (got ${String(value)})`);
  return n;
}

export function parsePositiveNumber(flag: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw usageError(`--${flag} must be a positive number (got ${String(value)})`);
  return n;
}

/** A percentage given in percent (`--min-effect 0.5`), as a fraction; 0 is allowed. */
export function parsePercent(flag: string, value: unknown): number {
  const n = Number(value);
  if (value === "" || !Number.isFinite(n) || n < 0) throw usageError(`--${flag} must be a percentage of at least 0 (got ${String(value)})`);
  return n / 100;
}
