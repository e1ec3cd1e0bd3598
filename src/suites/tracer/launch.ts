/** Starting one arm's process, timing it wall clock, and reading the target's answer. */
import { spawnSync } from "node:child_process";
import { XbenchError } from "../../errors.ts";
import type { Launch } from "./arms.ts";

/** One finished launch: its wall clock in ns (spawn to exit) and what it printed. */
export interface LaunchResult {
  wallNs: number;
  stdout: string;
}

const TIMEOUT_MS = 60_000;

/** First non-empty line of a process's stderr, for one-line errors. */
function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? ""
  );
}

/**
 * Runs `launch` to completion and times it. A launch that fails to start, times out, dies
 * of a signal or exits non-zero is an error naming `what`.
 */
export function runTimed(launch: Launch, what: string): LaunchResult {
  const start = process.hrtime.bigint();
  const result = spawnSync(launch.file, launch.args, {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    timeout: TIMEOUT_MS,
  });
  const wallNs = Number(process.hrtime.bigint() - start);
  if (result.error) throw new XbenchError(`${what}: could not run ${launch.file}: ${result.error.message}`);
  // Ctrl-C reaches the whole foreground process group: the launch dies of it and so do we.
  if (result.signal === "SIGINT") throw new XbenchError("interrupted", { kind: "interrupted" });
  if (result.signal) throw new XbenchError(`${what}: ${launch.file} was killed by ${result.signal}`);
  if (result.status !== 0) {
    const detail = firstLine(String(result.stderr ?? ""));
    throw new XbenchError(`${what}: ${launch.file} exited with ${result.status}${detail ? `: ${detail}` : ""}`);
  }
  return { wallNs, stdout: String(result.stdout ?? "") };
}

/** The target's one number: the median batch time in ns. */
export function parseBatchTime(stdout: string, what: string): number {
  const text = stdout.trim();
  if (!/^\d+$/.test(text) || Number(text) <= 0) {
    throw new XbenchError(`${what}: the target printed ${JSON.stringify(text.slice(0, 40))} instead of a batch time in ns`);
  }
  return Number(text);
}
