/** Helpers for the tracer tests: run `xbench trace`, compile fixtures. */
import { test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "pathe";
import { ROOT, tempDir, xbench, type RunResult } from "./xbench.ts";

export const FIXTURES = resolve(ROOT, "test", "fixtures", "trace");
export const HELPERS = process.env.XBENCH_HELPER_DIR ?? join(ROOT, "dist", "helpers", "linux-x64");
export const SUPERVISOR = join(HELPERS, "xbench-supervisor");

/** The python3 interpreter itself, not a version-manager shim in front of it. */
export const PYTHON = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout?.trim() || "python3";

export interface TracedAccess {
  path: string;
  pathHex?: string;
  modes: string[];
  pid: number;
  truncated?: boolean;
}

export interface TraceJson {
  backend: string;
  backendsUsed: string[];
  complete: boolean;
  incompleteReasons: string[];
  changes: string[];
  exitCode: number | null;
  accesses: TracedAccess[];
}

export interface TraceRun extends RunResult {
  trace: TraceJson;
  /** path -> modes */
  modes: Map<string, string[]>;
}

/** `xbench trace --format json -o FILE [flags] -- cmd...`, parsed. */
export function traceRun(cmd: string[], flags: string[] = [], options: Parameters<typeof xbench>[1] = {}): TraceRun {
  return tracedBy(cmd, flags, (trace) => xbench([...trace, ...cmd], options));
}

/** The same trace, made by `run` given xbench's arguments before the command (to run it under strace). */
export function tracedBy(cmd: string[], flags: string[], run: (trace: string[]) => RunResult): TraceRun {
  const { dir, cleanup } = tempDir("xbench-trace-out-");
  try {
    const out = join(dir, "trace.json");
    const result = run(["trace", "--format", "json", "-o", out, ...flags, "--"]);
    let trace: TraceJson;
    try {
      trace = JSON.parse(readFileSync(out, "utf8")) as TraceJson;
    } catch (error) {
      throw new Error(`no trace of ${cmd.join(" ")} written (exit ${result.code}): ${result.stderr}`, { cause: error });
    }
    return { ...result, trace, modes: new Map(trace.accesses.map((a) => [a.path, a.modes])) };
  } finally {
    cleanup();
  }
}

/**
 * A case this machine cannot run, kept in the output as a skipped test that says why: a run
 * without the tool or permission it needs reads as skipped, never as passed.
 */
export function skipBecause(name: string, reason: string): void {
  test.skip(`${name}: skipped because ${reason}`, () => {});
}

export function have(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

/** Undefined when every program is on PATH; otherwise why a case that runs them is skipped. */
export function lacking(...programs: string[]): string | undefined {
  const missing = programs.filter((p) => !have(p));
  return missing.length ? `${missing.join(", ")} not installed` : undefined;
}

/** Compiles a fixture; throws with the compiler's output on failure. */
export function compile(compiler: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const r = spawnSync(compiler, args, { encoding: "utf8", env, cwd: FIXTURES, timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${compiler} ${args.join(" ")} failed: ${r.stderr}`);
}

export function fixture(name: string): string {
  return join(FIXTURES, name);
}
