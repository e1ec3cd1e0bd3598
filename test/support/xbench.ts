import { spawn, spawnSync, type SpawnSyncOptions } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "pathe";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const BIN = join(ROOT, "dist", "xbench");

/** The compiled binary must exist: `npm test` builds it first. */
export function requireBinary(): string {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing; run \`npm run build\` first`);
  return BIN;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs dist/xbench with `args`, capturing output. */
export function xbench(args: string[], options: SpawnSyncOptions = {}): RunResult {
  const result = spawnSync(requireBinary(), args, { encoding: "utf8", timeout: 120_000, ...options });
  return {
    code: result.status,
    signal: result.signal,
    stdout: String(result.stdout ?? ""),
    stderr: String(result.stderr ?? ""),
  };
}

/** Same as `xbench` but without blocking the event loop (for concurrent runs). */
export function xbenchAsync(args: string[], options: Parameters<typeof spawn>[2] = {}): Promise<RunResult> {
  return new Promise((done, failed) => {
    const child = spawn(requireBinary(), args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", failed);
    child.on("close", (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

/** A temporary folder removed by the returned cleanup. */
export function tempDir(prefix = "xbench-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A dist/xbench started in its own process group (as a terminal's job): its stderr so far, its exit, and a kill for the end of the test. */
export function startXbench(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): { pid: number; stderr: () => string; exited: Promise<number | null>; kill: () => void } {
  const child = spawn(requireBinary(), args, { ...options, stdio: ["ignore", "ignore", "pipe"], detached: true });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  const kill = () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  };
  return { pid: child.pid!, stderr: () => stderr, exited, kill };
}
