import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { dirname, join } from "pathe";
import { embeddedHelpers } from "../helpers/cache.ts";

/**
 * Sources compiled into every bench process. From a checkout or npm they are read from
 * disk; the compiled binary carries them (build.ts embeds them under these names).
 */
export const CHILD_ASSETS = {
  shim: "runner/child/shim.ts",
  side: "runner/child/side.ts",
  driver: "runner/child/driver.ts",
  sampler: "runner/child/sampler.ts",
  counter: "runner/child/counter.ts",
  countSampler: "runner/child/count-sampler.ts",
  extras: "runner/child/extras.ts",
  registry: "runner/child/registry.ts",
  vitest: "runner/child/vitest.ts",
  tinybench: "runner/child/tinybench.ts",
  benchmarkjs: "runner/child/benchmarkjs.ts",
  deno: "runner/child/deno.ts",
  codspeed: "runner/child/codspeed.ts",
  api: "bench/api.ts",
  mitataMain: "mitata/src/main.mjs",
  mitataLib: "mitata/src/lib.mjs",
} as const;
export type ChildAsset = keyof typeof CHILD_ASSETS;

/**
 * A file of xbench's own, by its path under `src/`: from a checkout, src/NAME; from the npm
 * build, dist/npm/NAME (build.ts copies the sources there, and the bundled code sits one
 * folder down, in chunks/, shared/ or cli/). The first of `names` that exists.
 */
export function packageFile(...names: string[]): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, ".."), here].flatMap((root) => names.map((name) => join(root, name)));
  return candidates.find((file) => existsSync(file)) ?? candidates[0]!;
}

function diskPath(asset: ChildAsset): string {
  const name = CHILD_ASSETS[asset];
  if (name.startsWith("mitata/")) {
    const main = createRequire(import.meta.url).resolve("mitata");
    return join(dirname(main), name.slice("mitata/src/".length));
  }
  return packageFile(name);
}

export function readAsset(asset: ChildAsset): string {
  const embedded = embeddedHelpers()?.assets?.[CHILD_ASSETS[asset]];
  return readFileSync(embedded ?? diskPath(asset), "utf8");
}

/** Where each asset lives on disk, for build.ts to embed (and to ship beside the npm build). */
export function assetSources(): Record<string, string> {
  return Object.fromEntries((Object.keys(CHILD_ASSETS) as ChildAsset[]).map((asset) => [CHILD_ASSETS[asset], diskPath(asset)]));
}
