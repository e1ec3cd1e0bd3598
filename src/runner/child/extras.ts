/**
 * Rows mitata cannot express, measured by a bench process that holds one side only: the
 * xbench metrics (measured once per process) and command rows (wall time and peak RSS of a
 * launch, through xbench-exec-stats or `xbench exec-stats`).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "xbench-internal:sampler";
import type { CommandDefinition, MetricDefinition } from "../../bench/api.ts";
import type { ChildRow } from "../protocol.ts";

/** A row of this side (the driver adds which side). */
export type ExtraRow = Omit<ChildRow, "side">;

/** What xbench-exec-stats writes to its --out file. */
interface ExecStats {
  wallNs: number;
  maxRssBytes: number;
  exitCode: number;
  signal?: string;
  error?: string;
}

/** The first line of an error's message (or of whatever was thrown). */
export function firstLine(error: unknown): string {
  return String((error as { message?: unknown } | null | undefined)?.message ?? error).split("\n")[0]!;
}

/** One launch through xbench-exec-stats (or `xbench exec-stats`): the command's wall time and peak RSS. */
function launch(prefix: string[], command: CommandDefinition): ExecStats {
  const dir = mkdtempSync(join(tmpdir(), "xbench-exec-"));
  try {
    const out = join(dir, "stats.json");
    const result = spawnSync(prefix[0]!, [...prefix.slice(1), "--out", out, "--", ...command.argv], {
      cwd: command.options.cwd,
      env: { ...process.env, ...command.options.env },
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
    });
    if (result.error) throw result.error;
    let text: string;
    try {
      text = readFileSync(out, "utf8");
    } catch {
      throw new Error(`exec-stats wrote nothing (exit ${result.status}): ${String(result.stderr).trim().split("\n")[0]}`);
    }
    const stats = JSON.parse(text) as ExecStats;
    if (stats.error) throw new Error(stats.error);
    if (stats.exitCode !== 0) {
      throw new Error(`${command.argv[0]} exited ${stats.exitCode}${stats.signal ? ` (${stats.signal})` : ""}`);
    }
    return stats;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function commandRows(commands: CommandDefinition[], prefix: string[] | undefined): Promise<ExtraRow[]> {
  const rows: ExtraRow[] = [];
  for (const command of commands) {
    const wall = `${command.label}`;
    const rss = `${command.label} (peak RSS)`;
    try {
      if (!prefix) throw new Error("command rows need the xbench binary (XBENCH_EXEC_STATS unset)");
      for (let i = 0; i < (command.options.warmup ?? 1); i++) launch(prefix, command);
      const samples: ExecStats[] = [];
      for (let i = 0; i < (command.options.runs ?? 5); i++) samples.push(launch(prefix, command));
      rows.push({ label: wall, unit: "ns", value: median(samples.map((s) => s.wallNs)) });
      rows.push({ label: rss, unit: "bytes", sampled: true, value: median(samples.map((s) => s.maxRssBytes)) });
    } catch (error) {
      const message = firstLine(error);
      rows.push({ label: wall, unit: "ns", error: message }, { label: rss, unit: "bytes", sampled: true, error: message });
    }
  }
  return rows;
}

export async function metricRows(metrics: MetricDefinition[]): Promise<ExtraRow[]> {
  const rows: ExtraRow[] = [];
  for (const metric of metrics) {
    try {
      const value = await metric.measure();
      if (typeof value !== "number" || !Number.isFinite(value)) throw new Error(`metric returned ${String(value)}`);
      rows.push({ label: metric.label, unit: metric.unit, value });
    } catch (error) {
      rows.push({ label: metric.label, unit: metric.unit, error: firstLine(error) });
    }
  }
  return rows;
}
