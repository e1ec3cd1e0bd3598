/**
 * Rows mitata cannot express, measured by a bench process that holds one side only: the
 * xbench metrics (measured once per process) and command rows (wall time and peak RSS of a
 * launch, through xbench-exec-stats or `xbench exec-stats`).
 */
// @ts-nocheck -- bundled from a virtual module
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "xbench-internal:sampler";

/** One launch through xbench-exec-stats (or `xbench exec-stats`): the command's wall time and peak RSS. */
function launch(prefix, command) {
  const dir = mkdtempSync(join(tmpdir(), "xbench-exec-"));
  try {
    const out = join(dir, "stats.json");
    const result = spawnSync(prefix[0], [...prefix.slice(1), "--out", out, "--", ...command.argv], {
      cwd: command.options.cwd,
      env: { ...process.env, ...command.options.env },
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
    });
    if (result.error) throw result.error;
    let text;
    try {
      text = readFileSync(out, "utf8");
    } catch {
      throw new Error(`exec-stats wrote nothing (exit ${result.status}): ${String(result.stderr).trim().split("\n")[0]}`);
    }
    const stats = JSON.parse(text);
    if (stats.error) throw new Error(stats.error);
    if (stats.exitCode !== 0) {
      throw new Error(`${command.argv[0]} exited ${stats.exitCode}${stats.signal ? ` (${stats.signal})` : ""}`);
    }
    return stats;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function commandRows(commands, prefix) {
  const rows = [];
  for (const command of commands) {
    const wall = `${command.label}`;
    const rss = `${command.label} (peak RSS)`;
    try {
      if (!prefix) throw new Error("command rows need the xbench binary (XBENCH_EXEC_STATS unset)");
      for (let i = 0; i < (command.options.warmup ?? 1); i++) launch(prefix, command);
      const samples = [];
      for (let i = 0; i < (command.options.runs ?? 5); i++) samples.push(launch(prefix, command));
      rows.push({ label: wall, unit: "ns", value: median(samples.map((s) => s.wallNs)) });
      rows.push({ label: rss, unit: "bytes", sampled: true, value: median(samples.map((s) => s.maxRssBytes)) });
    } catch (error) {
      const message = String(error?.message ?? error).split("\n")[0];
      rows.push({ label: wall, unit: "ns", error: message }, { label: rss, unit: "bytes", sampled: true, error: message });
    }
  }
  return rows;
}

export async function metricRows(metrics) {
  const rows = [];
  for (const metric of metrics) {
    try {
      const value = await metric.measure();
      if (typeof value !== "number" || !Number.isFinite(value)) throw new Error(`metric returned ${String(value)}`);
      rows.push({ label: metric.label, unit: metric.unit, value });
    } catch (error) {
      rows.push({ label: metric.label, unit: metric.unit, error: String(error?.message ?? error).split("\n")[0] });
    }
  }
  return rows;
}
