/** Readies the native helpers before a run, and says in one line when the cache could not take them. */
import { helperCacheNotice } from "../helpers/index.ts";
import { reaperPath } from "../runner/spawn.ts";
import { log } from "./log.ts";

/**
 * Extracts the reaper (where the platform has one) before anything runs: a refused cache fails
 * here in one line, before a run folder exists, and one that cannot be written is named once,
 * with the private folder the helpers run from instead.
 */
export function readyHelpers(): void {
  reaperPath();
  const notice = helperCacheNotice();
  if (notice) log.warn(notice);
}
