/** Reading flags citty leaves to the command: repeats, what the user typed, the part after `--`. */
import { usageError } from "../errors.ts";
import type { ArgsDef } from "citty";
import type { GateRule } from "../model/result.ts";

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
  const match = /^(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?$/.exec(String(value).trim());
  const amount = match ? Number(match[1]) * (SECONDS_PER[match[2] ?? unit]! / SECONDS_PER[unit]!) : Number.NaN;
  if (!(amount > 0) || !Number.isFinite(amount)) {
    const what = unit === "s" ? "seconds" : "milliseconds";
    throw usageError(`--${flag} must be a positive number of ${what}, or with a unit: 500ms, 90s, 2m, 1h (got ${String(value)})`);
  }
  return amount;
}

/** `--fail-on` and `--fail-above`, declared alike by compare and report. */
export const GATE_ARGS = {
  "fail-on": {
    type: "enum" as const,
    options: ["slower", "change"] as string[],
    description: "Exit 1 when a row's 95% interval lies wholly above 0 (slower), or wholly above or below 0 (change)",
  },
  "fail-above": {
    type: "string" as const,
    valueHint: "PCT",
    description:
      "Exit 1 when a row's 95% interval lies wholly above +PCT%; a row whose interval holds PCT is listed as undecided and passes",
  },
} satisfies ArgsDef;

/** The gate asked for, if any; one rule per run, so what failed is never ambiguous. */
export function gateRule(args: { "fail-on"?: unknown; "fail-above"?: unknown }): GateRule | undefined {
  const on = args["fail-on"];
  const above = args["fail-above"];
  if (on !== undefined && above !== undefined) throw usageError("--fail-on and --fail-above are one gate each; give one of them");
  if (on === "slower" || on === "change") return { on };
  if (on !== undefined) throw usageError(`--fail-on must be slower or change (got ${String(on)})`);
  if (above !== undefined) return { on: "above", above: parsePercent("fail-above", above) / 100 };
  return undefined;
}

/** `--min-effect`: a percentage (`0.5` or `0.5%`) as a fraction; 0 is allowed (no equivalence band). */
export function parseMinEffect(flag: string, value: unknown): number {
  const text = String(value).trim().replace(/%$/, "");
  const n = Number(text);
  if (text === "" || !Number.isFinite(n) || n < 0) throw usageError(`--${flag} must be a percentage of at least 0 (got ${String(value)})`);
  return n / 100;
}
