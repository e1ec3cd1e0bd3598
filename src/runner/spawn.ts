import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { optionalHelper } from "../helpers/index.ts";
import { hasExited } from "../util/proc.ts";
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
  /** The process ran past its timeout and was killed (`error` says so). */
  timedOut?: true;
  wallMs: number;
}

/**
 * How a child's whole tree is ended. "reaper": it runs under xbench-reaper (Linux), which
 * kills every descendant, own sessions included, when it gets SIGTERM or when the child
 * exits, and which dies with xbench even on SIGKILL. "group": elsewhere, SIGKILL to the
 * child's process group, which misses descendants that left the group.
 */
type TreeKind = "reaper" | "group";

/** Children in flight, so a signal handler can end their trees. */
const running = new Map<number, TreeKind>();

let reaper: string | null | undefined;

/**
 * The native reaper where this platform has it; undefined means process groups only, as with
 * `XBENCH_REAPER=off` (a way to tell a reaper problem from a bench problem).
 */
export function reaperPath(): string | undefined {
  if (process.env.XBENCH_REAPER === "off") return undefined;
  if (reaper === undefined) reaper = (process.platform === "linux" && optionalHelper("xbench-reaper")) || null;
  return reaper ?? undefined;
}

/** Sends a signal that may race with the target's exit: ESRCH (already gone) is not an error. */
export function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: it exited meanwhile; EPERM: the pid was reused by someone else's process.
  }
}

function stopTree(pid: number, kind: TreeKind): void {
  if (kind === "reaper") signalQuietly(pid, "SIGTERM");
  else signalQuietly(-pid, "SIGKILL");
}

/** Set once xbench ends its children for good: a process that dies now was stopped by xbench. */
let stopping = false;

/** Whether xbench is ending its children (a signal): no process is started again after that. */
export function stoppingChildren(): boolean {
  return stopping;
}

/**
 * Ends every child's tree, and waits (up to 5 s) for the reapers to finish killing theirs: it
 * runs right before xbench exits on a signal, and nothing may be left running after that.
 */
export function killRunningChildren(): void {
  stopping = true;
  const reapers = [...running].filter(([, kind]) => kind === "reaper").map(([pid]) => pid);
  for (const [pid, kind] of running) stopTree(pid, kind);
  running.clear();
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 5000;
  while (reapers.some((pid) => !hasExited(pid)) && Date.now() < deadline) Atomics.wait(sleeper, 0, 0, 2);
}

interface Tracked {
  child: ChildProcess;
  /** Ends the child's tree now (a timeout). */
  stop(): void;
}

/**
 * Starts a child in its own process group (so a Ctrl-C at the terminal reaches xbench alone,
 * which then ends the child's tree), under the reaper where there is one, known to
 * killRunningChildren until it closes.
 */
function spawnTracked(argv: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }): Tracked {
  const path = reaperPath();
  const kind: TreeKind = path ? "reaper" : "group";
  const full = path ? [path, "--", ...argv] : argv;
  const child = spawn(full[0]!, full.slice(1), { ...options, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const pid = child.pid;
  if (pid) {
    running.set(pid, kind);
    child.on("close", () => running.delete(pid));
    // The child is its group's leader: what is left of the group once it exits goes too.
    if (kind === "group") child.on("exit", () => signalQuietly(-pid, "SIGKILL"));
  }
  return { child, stop: () => pid && stopTree(pid, kind) };
}

/** The longest delay setTimeout keeps (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

const REAPER_EXEC_FAILED = /^xbench-reaper: cannot start .*?: (.*)$/m;

/** The reaper's own line for a command it could not start, as the reason, else undefined. */
function startFailure(argv: string[], code: number | null, stderr: string): string | undefined {
  if (code !== 127) return undefined;
  const match = REAPER_EXEC_FAILED.exec(lastLines(stderr, 1));
  return match ? `cannot start ${argv[0]}: ${match[1]}` : undefined;
}

/**
 * Calls `done` once the child has exited and its output is read. The round ends when the
 * child exits: if a descendant that escaped its tree (no reaper here) still holds the pipes,
 * they are closed after a grace period instead of being waited for.
 */
function whenFinished(child: ChildProcess, done: (code: number | null, signal: NodeJS.Signals | null) => void): void {
  let settled = false;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const settle = (code: number | null, signal: NodeJS.Signals | null) => {
    if (settled) return;
    settled = true;
    clearTimeout(grace);
    done(code, signal);
  };
  child.on("exit", (code, signal) => {
    grace = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      settle(code, signal);
    }, 2000);
  });
  child.on("close", settle);
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
    const { child } = spawnTracked(argv, options);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", (e) => resolve({ code: null, signal: null, stdout, stderr, error: `cannot start ${argv[0]}: ${e.message}` }));
    whenFinished(child, (code, signal) => {
      const error = startFailure(argv, code, stderr);
      resolve(error ? { code, signal, stdout, stderr, error } : { code, signal, stdout, stderr });
    });
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
    const { child, stop } = spawnTracked(job.argv, { cwd: job.cwd, env: { ...job.env, [CHILD_ENV.resultFile]: job.resultFile } });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-16_384);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    let timedOut = false;
    // A timer's delay is a 32-bit count of ms: a longer one would fire at once, not in weeks.
    const timer = setTimeout(
      () => {
        if (child.exitCode !== null || child.signalCode !== null) return; // exited; its pipes are closing
        timedOut = true;
        stop();
      },
      Math.min(job.timeoutMs, MAX_TIMER_MS),
    );
    const finish = (error: string | undefined) => {
      clearTimeout(timer);
      const wallMs = performance.now() - start;
      const report = parseChildLines(existsSync(job.resultFile) ? readFileSync(job.resultFile, "utf8") : "");
      const loadError = Object.values(report.loadErrors)[0];
      if (loadError !== undefined) return resolve({ report, error: loadError, wallMs });
      if (error === undefined && !report.ended) error = "exited without finishing its report";
      resolve({ report, ...(error === undefined ? {} : { error }), ...(timedOut ? { timedOut: true as const } : {}), wallMs });
    };
    child.on("error", (e) => finish(`cannot start ${job.argv[0]}: ${e.message}`));
    whenFinished(child, (code, signal) => {
      if (timedOut) return finish(`timed out after ${Math.round(job.timeoutMs / 1000)} s`);
      if (code === 0 && !signal) return finish(undefined);
      const failed = startFailure(job.argv, code, output);
      if (failed) return finish(failed);
      const how = signal ? `killed by ${signal}` : `exited ${code}`;
      const tail = lastLines(output, 12);
      finish(`${how}${tail ? `: ${tail}` : ""}`);
    });
  });
}
