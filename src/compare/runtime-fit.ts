/**
 * Whether a bench file that cannot load on head is written for another runtime (Deno, Bun):
 * reads its source and the nearest deno.json, and lets `diagnose.ts` judge. Checked once per
 * file after its inventory, so a Deno-first project stops before any round with one line that
 * names `--runtime deno`, instead of failing every row with node's own error.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "pathe";
import type { Runtime } from "../model/result.ts";
import { DENO_RESOLVES, runtimeSignals, wrongRuntime } from "./diagnose.ts";
import type { InventoryOutcome } from "./jobs.ts";

/**
 * The deno.json or deno.jsonc that resolves the file's bare imports: the nearest one from the
 * file's folder up to the checkout's root that has an import map or a workspace, else the nearest.
 * A workspace member's own deno.json only names and exports the member; its imports of the other
 * members (`@std/testing` from `text/`) resolve through the root's `workspace`.
 */
function denoConfig(root: string, file: string): { name: string; text: string } | undefined {
  let nearest: { name: string; text: string } | undefined;
  for (let dir = dirname(join(root, file)); ; dir = dirname(dir)) {
    for (const name of ["deno.json", "deno.jsonc"]) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      const config = { name: relative(root, path), text: readFileSync(path, "utf8") };
      if (DENO_RESOLVES.test(config.text)) return config;
      nearest ??= config;
    }
    if (dir === root || dirname(dir) === dir || !dir.startsWith(root)) return nearest;
  }
}

/** The one-line error for a file head cannot load because it is another runtime's, if it is. */
export function runtimeMismatch(file: string, outcome: InventoryOutcome, headRoot: string, runtime: Runtime): string | undefined {
  const error = outcome.errors.head;
  if (error === undefined) return undefined;
  let source = "";
  try {
    source = readFileSync(join(headRoot, file), "utf8");
  } catch {
    return undefined;
  }
  return wrongRuntime(file, runtime, runtimeSignals(source, denoConfig(headRoot, file)), error);
}
