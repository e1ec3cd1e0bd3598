/**
 * The base arm of `xbench compare --suite tracer`: base's helpers built from base's own
 * sources by base's own build.ts, so the base tracer is exactly what base ships.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "pathe";
import { XbenchError } from "../../errors.ts";
import { lastLines } from "../../util/text.ts";
import { findBun } from "../../runner/bun.ts";
import { runToEnd } from "../../runner/spawn.ts";
import { SUPERVISOR } from "./arms.ts";

/**
 * Runs `<worktreeDir>/build.ts --native-only --helpers-out <outDir>` and returns the absolute
 * helper folder, ready for `--base-helper`. The worktree needs its dependencies (build.ts
 * imports them): link or install its node_modules first. A failed build throws an XbenchError
 * naming the base side with the tail of its output.
 */
export async function buildBaseHelpers(worktreeDir: string, outDir: string): Promise<string> {
  const root = resolve(worktreeDir);
  const out = resolve(outDir);
  if (!existsSync(join(root, "build.ts"))) throw new XbenchError(`base has no build.ts in ${root}; cannot build its helpers`);
  if (!existsSync(join(root, "node_modules"))) {
    throw new XbenchError(`base worktree ${root} has no node_modules; link or install them before building its helpers`);
  }
  mkdirSync(out, { recursive: true });
  const bun = findBun(root) ?? { file: "bun", env: process.env }; // not found: spawn names it
  const done = await runToEnd([bun.file, "build.ts", "--native-only", "--helpers-out", out], { cwd: root, env: bun.env });
  if (done.error) throw new XbenchError(`base helpers: ${done.error}`);
  if (done.code !== 0) {
    const code = done.code ?? done.signal;
    throw new XbenchError(`base helpers: build.ts failed in ${root} (exit ${code}):\n${lastLines(done.stdout + done.stderr, 15)}`);
  }
  if (!existsSync(join(out, SUPERVISOR))) {
    throw new XbenchError(`base helpers: build.ts finished but ${out} has no ${SUPERVISOR}`);
  }
  return out;
}
