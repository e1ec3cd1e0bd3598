/**
 * Whether a bench file that cannot load on head is written for another runtime (Deno, Bun):
 * reads its source and the nearest deno.json, and lets `diagnose.ts` judge. Checked once per
 * file after its inventory, so a Deno-first project stops before any round with one line that
 * names `--runtime deno`, instead of failing every row with node's own error.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "pathe";
import type { Runtime } from "../model/result.ts";
import { runtimeSignals, wrongRuntime } from "./diagnose.ts";
import type { InventoryOutcome } from "./jobs.ts";

/** The nearest deno.json or deno.jsonc from the file's folder up to the checkout's root. */
function denoConfig(root: string, file: string): { name: string; text: string } | undefined {
  for (let dir = dirname(join(root, file)); ; dir = dirname(dir)) {
    for (const name of ["deno.json", "deno.jsonc"]) {
      const path = join(dir, name);
      if (existsSync(path)) return { name: relative(root, path), text: readFileSync(path, "utf8") };
    }
    if (dir === root || dirname(dir) === dir || !dir.startsWith(root)) return undefined;
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
