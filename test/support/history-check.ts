/**
 * The method check of `xbench history` (docs/history.md): the seeded 30-commit library of
 * history-fixture.ts, every commit recorded with `xbench history record`, then `xbench history
 * --json`, and a direct `xbench compare` of the first commit against the last. Shared by the
 * e2e test, which asserts on it, and bench/history-method.ts, which prints its figures.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "pathe";
import type { HistoryReport } from "../../src/history/chain.ts";
import type { CompareResult } from "../../src/model/result.ts";
import { COMPARE_ENV } from "./compare.ts";
import { commitHistory, fixtureHistory, type KnownStep } from "./history-fixture.ts";
import { createRepo } from "./repo.ts";
import { requireBinary } from "./xbench.ts";

/**
 * The check's sampling: each commit's rows sampled until within ±0.5% (at least 6 rounds, at
 * most 40 s a commit), so a +3% step's interval clears the 1% minimum effect on a loaded
 * machine too, and the time of a record is bounded whatever the load. Ten fixed rounds left a
 * +3% step inside ±4% here (docs/measurements.md, "History of a seeded 30-commit project").
 */
export const METHOD_SETTINGS = { rounds: "6", time: "60", target: "0.5", maxTime: "40" } as const;

/** METHOD_SETTINGS (or others) as flags; an empty value leaves its flag out. */
export function settingsFlags(settings: { rounds: string; time: string; target: string; maxTime: string }): string[] {
  const flags: Array<[string, string]> = [
    ["--rounds", settings.rounds],
    ["--time", settings.time],
    ["--target", settings.target],
    ["--max-time", settings.maxTime],
  ];
  return flags.filter(([, value]) => value !== "").flat();
}

export interface MethodCheck {
  shas: string[];
  history: HistoryReport;
  direct: CompareResult;
  /** Wall time of recording all commits, and of the direct compare, in seconds. */
  recordS: number;
  directS: number;
  failures: string[];
}

/** Runs the check on a history with `steps`, with compare's sampling flags `settings` (the same for every record and the direct compare). */
export function runMethodCheck(steps: readonly KnownStep[], settings: string[], minEffect: string): MethodCheck {
  const bin = requireBinary();
  const repo = createRepo();
  try {
    const shas = commitHistory(repo, fixtureHistory(steps));
    const run = (args: string[]) => spawnSync(bin, args, { cwd: repo.dir, env: COMPARE_ENV, encoding: "utf8", timeout: 900_000 });
    const failures: string[] = [];
    let started = performance.now();
    for (const sha of shas.slice(1)) {
      const r = run(["history", "record", "--commit", sha, ...settings]);
      if (r.status !== 0) failures.push(`record ${sha.slice(0, 12)}: exit ${r.status}: ${r.stderr.trim().split("\n").pop()}`);
    }
    const recordS = (performance.now() - started) / 1000;
    const historyFile = join(repo.dir, "..", `${repo.dir.split("/").pop()}-history.json`);
    const shown = run(["history", "--min-effect", minEffect, "--json", historyFile]);
    if (shown.status !== 0) failures.push(`history: exit ${shown.status}: ${shown.stderr.trim()}`);
    const history = JSON.parse(readFileSync(historyFile, "utf8")) as HistoryReport;
    rmSync(historyFile, { force: true });
    const directFile = join(repo.dir, "..", `${repo.dir.split("/").pop()}-direct.json`);
    started = performance.now();
    const direct = run(["compare", "--base", shas[0]!, "--head", shas.at(-1)!, ...settings, "--json", directFile]);
    const directS = (performance.now() - started) / 1000;
    if (direct.status !== 0) failures.push(`compare: exit ${direct.status}: ${direct.stderr.trim().split("\n").pop()}`);
    const result = JSON.parse(readFileSync(directFile, "utf8")) as CompareResult;
    rmSync(directFile, { force: true });
    return { shas, history, direct: result, recordS, directS, failures };
  } finally {
    repo.cleanup();
  }
}

/** A ratio change as a signed percentage: +3.4%. */
export const percent = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
/** An interval of ratio changes: [+2.9%, +3.9%]. */
export const interval = (ci: readonly [number, number]) => `[${percent(ci[0])}, ${percent(ci[1])}]`;

/** One line per known step's row: the truth, the commits that moved it, its own step there, the chained cumulative and the direct compare. */
export function methodLines(check: MethodCheck, steps: readonly KnownStep[]): string[] {
  return steps.map((step) => {
    const row = check.history.rows.find((r) => r.file === `bench/${step.module}.bench.ts`)!;
    const own = row.steps[step.index - 1]!;
    const direct = check.direct.rows.find((r) => r.file === row.file)?.stats;
    const c = row.cumulative;
    const moved = row.moved.map((m) => check.shas.indexOf(m.sha)).join(",") || "none";
    return [
      `${row.name}: truth ${percent(step.ratio - 1)} at commit ${step.index}`,
      `own step ${own.delta !== undefined ? `${percent(own.delta)} ${interval(own.ci!)}` : own.gap}`,
      `moved by commit ${moved}`,
      `chained ${c ? `${percent(c.delta)} ${interval(c.ci)} over ${c.steps} steps` : "none"}`,
      `direct ${direct ? `${percent(direct.delta)} ${interval(direct.ci)}` : "none"}`,
    ].join("; ");
  });
}
