/**
 * Whether a bench file that cannot load on head is written for another runtime (Deno, Bun), or
 * calls vitest's names as globals its vitest config does not set up: reads its source, the
 * nearest deno.json and the vitest config, and lets `diagnose.ts` judge. Checked once per file
 * after its inventory, so such a project stops before any round with one line that names the
 * cause (`--runtime deno`, the config), instead of failing every row with the runtime's error.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "pathe";
import type { Runtime } from "../../model/result.ts";
import { readByVitest, VITEST_GLOBALS, vitestSetup } from "../../runner/vitest-config.ts";
import { DENO_RESOLVES, missingVitestGlobal, runtimeSignals, wrongRuntime } from "../sides/diagnose.ts";
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

/** Head's load error of a file and its source, when it failed to load there. */
function headFailure(file: string, outcome: InventoryOutcome, headRoot: string): { error: string; source: string } | undefined {
  const error = outcome.errors.head;
  if (error === undefined) return undefined;
  try {
    return { error, source: readFileSync(join(headRoot, file), "utf8") };
  } catch {
    return undefined;
  }
}

/** The one-line error for a file head cannot load because it is another runtime's, if it is. */
export function runtimeMismatch(file: string, outcome: InventoryOutcome, headRoot: string, runtime: Runtime): string | undefined {
  const failed = headFailure(file, outcome, headRoot);
  return failed && wrongRuntime(file, runtime, runtimeSignals(failed.source, denoConfig(headRoot, file)), failed.error);
}

/**
 * The one-line error for a vitest file head cannot load because a name vitest's globals or a
 * setup file would provide (`describe`, `bench`) is not defined: the config and what it set up.
 */
export function vitestGlobalMismatch(file: string, outcome: InventoryOutcome, headRoot: string): string | undefined {
  const failed = headFailure(file, outcome, headRoot);
  if (!failed || !readByVitest(failed.source)) return undefined;
  const setup = vitestSetup(join(headRoot, file));
  const seen = setup && {
    config: relative(headRoot, setup.config),
    globals: setup.globals,
    setupFiles: setup.setupFiles.map((f) => relative(headRoot, f)),
  };
  return missingVitestGlobal(file, failed.error, [...VITEST_GLOBALS, "bench"], seen);
}
