/**
 * `--profile`, `--profile all` and `--profile=all` (docs/profile.md). A boolean to citty, so
 * that `--profile` alone needs no value; the `all` after it is read here from what was typed
 * (citty takes it for the filter, which it then is not).
 */
import { usageError } from "../errors.ts";
import type { ProfileSummary } from "../model/profile.ts";

export interface ProfileFlag {
  rows?: ProfileSummary["rows"];
  /** `--profile all` as two words: citty read `all` as the filter. */
  allAsFilter: boolean;
}

export function readProfileFlag(rawArgs: readonly string[]): ProfileFlag {
  let rows: ProfileFlag["rows"];
  let allAsFilter = false;
  for (let i = 0; i < rawArgs.length && rawArgs[i] !== "--"; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--profile") {
      allAsFilter = rawArgs[i + 1] === "all";
      rows = allAsFilter ? "all" : "verdict";
    } else if (arg.startsWith("--profile=")) {
      const value = arg.slice("--profile=".length);
      if (value !== "all") throw usageError(`--profile takes nothing or all (got ${JSON.stringify(value)})`);
      rows = "all";
    }
  }
  return { rows, allAsFilter };
}
