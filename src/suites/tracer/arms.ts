/**
 * The arms of the tracer suite and the exact command each one launches. The target program
 * always comes from this build's helpers: only the tracer differs between head and base.
 */
import { join } from "pathe";
import { SUPERVISOR } from "../../tracer/index.ts";
import type { ArmName, Backend, RowName, Workload } from "./model.ts";

export { SUPERVISOR };

/** The target each backend traces: preload needs a dynamic program, seccomp is measured on a static one. */
export const TARGET_FOR: Readonly<Record<Backend, string>> = {
  preload: "xbench-target",
  seccomp: "xbench-target-static",
};

/** `launch` opens nothing; `access` times 2 x 2048 opens inside the target. */
export const WORKLOADS: Readonly<Record<RowName, Workload>> = {
  launch: { threads: 2, opens: 0 },
  access: { threads: 2, opens: 2048 },
};

/** The validation run: one thread, one batch of opens, whose missing path the log must show. */
export const VALIDATION_WORKLOAD: Workload = { threads: 1, opens: 8 };

/** One arm: a tracked arm names the folder of its helper build; the untracked arm has none. */
export interface Arm {
  name: ArmName;
  helperDir?: string;
}

/** A process to start: the executable and its arguments. */
export interface Launch {
  file: string;
  args: string[];
}

/** The path thread `index` of the target opens (the target appends `-<index>` to PATH). */
export function threadPath(missingPath: string, index: number): string {
  return `${missingPath}-${index}`;
}

export function targetArgs(workload: Workload, missingPath: string): string[] {
  return [String(workload.threads), String(workload.opens), missingPath];
}

/**
 * The command of one arm: the target run directly (untracked), or the target under the
 * arm's supervisor with the given backend, logging to `logFile`.
 */
export function launchFor(
  arm: Arm,
  backend: Backend,
  workload: Workload,
  paths: { targetDir: string; missingPath: string; logFile: string },
): Launch {
  const target = join(paths.targetDir, TARGET_FOR[backend]);
  const args = targetArgs(workload, paths.missingPath);
  if (!arm.helperDir) return { file: target, args };
  return {
    file: join(arm.helperDir, SUPERVISOR),
    args: ["--backend", backend, "--log", paths.logFile, "--", target, ...args],
  };
}
