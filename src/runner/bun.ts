import { existsSync } from "node:fs";
import { dirname, join } from "pathe";
import { isBunPlaceholder, packagedBun } from "./bun-package.ts";

/** How to start Bun: a command and the environment it needs. */
export interface BunCommand {
  file: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The Bun to start for work in `dir`: $XBENCH_BUN; else the nearest `node_modules/.bin/bun` at
 * or above `dir` (the project's own); else the Bun running xbench (a compiled xbench acts as
 * Bun with BUN_BE_BUN=1); else the `bun` xbench's npm package depends on; else `bun` on PATH. Undefined when there is none.
 */
export function findBun(dir: string, env: NodeJS.ProcessEnv = process.env): BunCommand | undefined {
  if (env.XBENCH_BUN) return { file: env.XBENCH_BUN, env };
  for (let folder = dir; ; folder = dirname(folder)) {
    const local = join(folder, "node_modules", ".bin", "bun");
    if (existsSync(local) && !isBunPlaceholder(local)) return { file: local, env };
    if (dirname(folder) === folder) break;
  }
  if (process.versions.bun) return { file: process.execPath, env: { ...env, BUN_BE_BUN: "1" } };
  const packaged = packagedBun();
  if (packaged) return { file: packaged, env };
  const found = onPath("bun", env);
  return found ? { file: found, env } : undefined;
}

/** The first `name` in the folders of $PATH, as a shell would find it; undefined when none has it. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const folder of (env.PATH ?? "").split(":")) {
    if (folder && existsSync(join(folder, name))) return join(folder, name);
  }
  return undefined;
}
