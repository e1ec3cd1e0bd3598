import { existsSync } from "node:fs";
import { dirname, join } from "pathe";
import { XbenchError } from "../errors.ts";
import { embeddedHelpers, extractEmbedded, findHelperDir, HelperCacheError } from "./cache.ts";

export { cacheRoot, extractEmbedded, HelperCacheError, helperCacheNotice } from "./cache.ts";

/** The Node-API module a counted bench process loads (native/linux/counter.c; docs/counting.md). */
export const COUNTER_HELPER = "xbench-counter.node";

/** The platform key helpers are built for, such as `linux-x64`. */
export function hostPlatform(): string {
  return `${process.platform}-${process.arch}`;
}

/**
 * Platforms with native helpers; everywhere else `trace` says it is not available yet. The
 * darwin ones are experimental: built and checked on Linux, not yet run on a Mac.
 */
export const TRACED_PLATFORMS: ReadonlySet<string> = new Set(["linux-x64", "linux-arm64", "win32-x64", "darwin-x64", "darwin-arm64"]);

/** Keyed by platform: a test that fakes another platform must not get this one's folder. */
let resolved: { platform: string; dir: string } | undefined;

/**
 * The folder holding this platform's native helpers: `$XBENCH_HELPER_DIR`, the compiled
 * binary's extracted copy, or the build output next to the sources / npm files. `verify`
 * re-hashes an extracted copy instead of trusting its sizes (see extractEmbedded).
 */
export function helperDir(verify = false): string {
  const platform = hostPlatform();
  if (resolved?.platform === platform && !verify) return resolved.dir;
  const remember = (dir: string) => (resolved = { platform, dir }).dir;
  if (process.env.XBENCH_HELPER_DIR) return remember(process.env.XBENCH_HELPER_DIR);
  if (!TRACED_PLATFORMS.has(platform)) {
    throw new XbenchError(`tracing is not available on ${platform} yet`, { kind: "usage" });
  }
  const embedded = embeddedHelpers();
  if (embedded?.platform) return remember(extractEmbedded({ ...embedded, platform: embedded.platform }, undefined, verify));
  // import.meta.dir: node:url's fileURLToPath is one more built-in to load at start-up.
  const here = (import.meta as { dir?: string }).dir ?? dirname(decodeURIComponent(new URL(import.meta.url).pathname));
  const found = findHelperDir(here, platform);
  if (!found) throw new XbenchError(`native helpers for ${platform} not found; run \`npm run build\``);
  return remember(found);
}

/**
 * One helper's path. From the compiled binary, only that file is checked (and extracted where
 * missing), not the whole folder: a trace needs two of its helpers, and each look costs start-up.
 */
export function helperPath(name: string): string {
  const platform = hostPlatform();
  const embedded = process.env.XBENCH_HELPER_DIR || resolved?.platform === platform ? undefined : embeddedHelpers();
  if (embedded?.platform === platform && embedded.files[name])
    return join(extractEmbedded({ ...embedded, platform: embedded.platform }, undefined, false, [name]), name);
  return join(helperDir(), name);
}

/**
 * A helper's path when this platform has helpers and that one is there; else undefined. A
 * cache xbench refuses is an error, never a helper quietly gone: without its reaper, compare
 * would leave what bench processes start running.
 */
export function optionalHelper(name: string): string | undefined {
  try {
    const path = helperPath(name);
    return existsSync(path) ? path : undefined;
  } catch (error) {
    if (error instanceof HelperCacheError || (error instanceof XbenchError && error.message.startsWith("cannot extract"))) throw error;
    return undefined;
  }
}
