import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "pathe";
import { lastLines } from "../util/text.ts";
import { CHILD_ENV, parseChildLines, type ChildReport } from "./protocol.ts";

export interface BenchProcess {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  resultFile: string;
  timeoutMs: number;
}

/** What a bench process wrote (possibly a part, when it failed) and why it failed, if it did. */
export interface BenchOutcome {
  report: ChildReport;
  error?: string;
  wallMs: number;
}

/** Children in flight, so a signal handler can kill their whole process groups. */
const running = new Set<number>();

export function killRunningChildren(): void {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  running.clear();
}

/**
 * Starts a child in its own process group (so a timeout or Ctrl-C takes its children too),
 * known to killRunningChildren until it closes.
 */
function spawnTracked(argv: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }): ChildProcess {
  const child = spawn(argv[0]!, argv.slice(1), { ...options, stdio: ["ignore", "pipe", "pipe"], detached: true });
  if (child.pid) {
    const pid = child.pid;
    running.add(pid);
    child.on("close", () => running.delete(pid));
  }
  return child;
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not be started. */
  error?: string;
}

/** Runs a helper process (tracked like bench processes) to its end, its output kept. */
export function runToEnd(argv: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawnTracked(argv, options);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", (e) => resolve({ code: null, signal: null, stdout, stderr, error: `cannot start ${argv[0]}: ${e.message}` }));
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * Runs one bench process in its own process group and reads its report file. Never throws
 * for the child's own failures.
 */
export function runBenchProcess(job: BenchProcess): Promise<BenchOutcome> {
  rmSync(job.resultFile, { force: true });
  const start = performance.now();
  return new Promise((resolve) => {
    const child = spawnTracked(job.argv, { cwd: job.cwd, env: { ...job.env, [CHILD_ENV.resultFile]: job.resultFile } });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-16_384);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, job.timeoutMs);
    const finish = (error: string | undefined) => {
      clearTimeout(timer);
      const wallMs = performance.now() - start;
      const report = parseChildLines(existsSync(job.resultFile) ? readFileSync(job.resultFile, "utf8") : "");
      const loadError = Object.values(report.loadErrors)[0];
      if (loadError !== undefined) return resolve({ report, error: loadError, wallMs });
      if (error === undefined && !report.ended) error = "exited without finishing its report";
      resolve({ report, ...(error === undefined ? {} : { error }), wallMs });
    };
    child.on("error", (e) => finish(`cannot start ${job.argv[0]}: ${e.message}`));
    child.on("close", (code, signal) => {
      if (timedOut) return finish(`timed out after ${Math.round(job.timeoutMs / 1000)} s`);
      if (code === 0 && !signal) return finish(undefined);
      const how = signal ? `killed by ${signal}` : `exited ${code}`;
      const tail = lastLines(output, 12);
      finish(`${how}${tail ? `: ${tail}` : ""}`);
    });
  });
}

/** The runtime's command line for a bundle, preferring the side's own installed copy. */
export function runtimeArgv(runtime: "node" | "bun" | "deno", sideRoot: string, bundle: string): string[] {
  const local = (name: string) => {
    const bin = join(sideRoot, "node_modules", ".bin", name);
    return existsSync(bin) ? bin : name;
  };
  if (runtime === "node") return [process.env.XBENCH_NODE || "node", bundle];
  if (runtime === "bun") return [process.env.XBENCH_BUN || local("bun"), bundle];
  return [process.env.XBENCH_DENO || local("deno"), "run", "-A", "--quiet", bundle];
}
