import { readFileSync } from "node:fs";
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
  child: "runner/child/child.ts",
  api: "bench/api.ts",
  mitataMain: "mitata/src/main.mjs",
  mitataLib: "mitata/src/lib.mjs",
} as const;
export type ChildAsset = keyof typeof CHILD_ASSETS;

function diskPath(asset: ChildAsset): string {
  const name = CHILD_ASSETS[asset];
  if (name.startsWith("mitata/")) {
    const main = createRequire(import.meta.url).resolve("mitata");
    return join(dirname(main), name.slice("mitata/src/".length));
  }
  return join(dirname(fileURLToPath(import.meta.url)), "..", name);
}

export function readAsset(asset: ChildAsset): string {
  const embedded = embeddedHelpers()?.assets?.[CHILD_ASSETS[asset]];
  return readFileSync(embedded ?? diskPath(asset), "utf8");
}

/** Where each asset lives on disk, for build.ts to embed. */
export function assetSources(): Record<string, string> {
  return Object.fromEntries(
    (Object.keys(CHILD_ASSETS) as ChildAsset[]).map((asset) => [CHILD_ASSETS[asset], diskPath(asset)]),
  );
}
