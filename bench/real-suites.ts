#!/usr/bin/env bun
/**
 * The real-suite lab: how `xbench compare` converges on real projects' own bench suites at
 * default settings. For each project (bench/real-suites/projects.ts) it builds a repository as a
 * user's checkout looks (the project's files at the pinned commit, the packages the bench files
 * need from npm, committed as "pinned"), adds a commit that slows one function by a few percent,
 * and runs compare on it again and again: `--mode aa` (`--base HEAD`, code against itself) or
 * `--mode change` (`--base HEAD~1`, the slowdown). Each run is read from compare's JSON.
 *
 *   bun bench/real-suites.ts --source es-toolkit=/path/to/es-toolkit.git [--source rou3=PATH]
 *       [--mode aa|change|small] [--measure time,instructions] [--runs 1] [--hogs 0]
 *       [--work /tmp/xbench-real-suites] [--bin PATH] [--json OUT]
 *       [-- EXTRA XBENCH FLAGS, e.g. --max-time 60 --jobs 2]
 *
 * `--mode small` compares the pinned commit with the branch `lab-small`, a change of about
 * +0.5% in one function's instructions (projects with a `smallChange`). `--measure` lists the
 * measures each run takes in turn, one compare each, so that they share the machine's state.
 *
 * The source is a git directory holding the pinned commit (docs/real-suites.md: how to clone it).
 * Repositories are built once under `--work` and reused.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "pathe";
import mri from "mri";
import type { CompareResult, Row } from "../src/model/result.ts";
import { median } from "../src/stats/quantile.ts";
import { type Edit, PROJECTS, type Project, SINK } from "./real-suites/projects.ts";
import { startHogs } from "./hogs.ts";

const dashdash = process.argv.indexOf("--");
const own = dashdash < 0 ? process.argv.slice(2) : process.argv.slice(2, dashdash);
/** Flags after `--` go to every compare unchanged. */
const passThrough = dashdash < 0 ? [] : process.argv.slice(dashdash + 1);
const args = mri(own, { string: ["source", "mode", "measure", "runs", "hogs", "work", "bin", "json"] });

const mode = String(args.mode ?? "aa");
if (mode !== "aa" && mode !== "change" && mode !== "small") throw new Error(`--mode: aa, change or small, not ${mode}`);
/** The measures of each run, one compare each (`--measure time,instructions`); none: compare's default. */
const measures = args.measure === undefined ? [undefined] : String(args.measure).split(",");
const runs = Number(args.runs ?? 1);
const hogCount = Number(args.hogs ?? 0);
const workDir = resolve(String(args.work ?? "/tmp/xbench-real-suites"));
/** The binary under test: this checkout's build unless `--bin` names another (or the npm build's `dist/npm/cli/index.mjs`). */
const BIN = resolve(args.bin ? String(args.bin) : join(import.meta.dir, "..", "dist", "xbench"));

/** `--source NAME=PATH`, repeatable: the projects to run, in the order given. */
export function parseSources(raw: unknown): Array<{ project: Project; gitDir: string }> {
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
  if (list.length === 0) throw new Error(`--source NAME=PATH is required (NAME: ${PROJECTS.map((p) => p.name).join(", ")})`);
  return list.map((entry) => {
    const [name, path] = entry.split("=", 2);
    const project = PROJECTS.find((p) => p.name === name);
    if (!project || !path) throw new Error(`--source ${entry}: want NAME=PATH, NAME one of ${PROJECTS.map((p) => p.name).join(", ")}`);
    return { project, gitDir: resolve(path) };
  });
}

function run(command: string, argv: string[], cwd: string, input?: string | Buffer): string {
  const r = spawnSync(command, argv, { cwd, encoding: "utf8", input, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${command} ${argv.join(" ")} (in ${cwd}) exited ${r.status}: ${(r.stderr ?? "").slice(-2000)}`);
  return r.stdout;
}

function git(cwd: string, ...argv: string[]): string {
  return run("git", ["-c", "user.name=lab", "-c", "user.email=lab@example.com", ...argv], cwd).trim();
}

function applyEdit(dir: string, edit: Edit, prefix = ""): void {
  const file = join(dir, edit.file);
  const text = readFileSync(file, "utf8");
  const at = text.indexOf(edit.find);
  if (at < 0 || text.indexOf(edit.find, at + 1) >= 0) throw new Error(`${edit.file}: the change's anchor is not there exactly once`);
  writeFileSync(file, prefix + text.replace(edit.find, edit.replace));
}

/**
 * Packages from npm into a folder beside the repository (its own package.json, so the project's
 * stays as committed), then moved in as the repository's node_modules, as an install leaves it.
 */
function installDeps(project: Project, base: string, repoDir: string): void {
  // A project whose bench files load nothing from npm (Deno's workspace, or only the API compare stands in for).
  if (Object.keys(project.deps).length === 0) return;
  const deps = join(base, "deps");
  rmSync(deps, { recursive: true, force: true });
  mkdirSync(deps, { recursive: true });
  writeFileSync(
    join(deps, "package.json"),
    JSON.stringify({ name: `${project.name}-lab-deps`, private: true, dependencies: project.deps }),
  );
  run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], deps);
  renameSync(join(deps, "node_modules"), join(repoDir, "node_modules"));
}

/** The branch of `--mode small`, and the tag of the pinned commit it starts from. */
const SMALL_BRANCH = "lab-small";
const PINNED_TAG = "lab-pinned";

/** What each mode compares: the code against itself, the calibrated slowdown, the small one. */
function modeRefs(project: Project): string[] {
  if (mode === "aa") return ["--base", "HEAD"];
  if (mode === "change") return ["--base", "HEAD~1"];
  if (!project.smallChange) throw new Error(`${project.name} has no small change for --mode small`);
  return ["--base", PINNED_TAG, "--head", SMALL_BRANCH];
}

/** The repository of one project under `--work`: built on first use, then reused as it is. */
export function ensureRepo(project: Project, gitDir: string): string {
  // The folder's name holds what the repository is built from, so an edited table never reuses a stale one.
  const recipe = JSON.stringify([project.commit, project.deps, project.change, project.smallChange, project.prepare?.toString()]);
  const base = join(
    workDir,
    `${project.name}-${project.commit.slice(0, 12)}-${createHash("sha256").update(recipe).digest("hex").slice(0, 8)}`,
  );
  const dir = join(base, "repo");
  const ready = join(base, "ready");
  if (existsSync(ready)) return dir;
  if (spawnSync("git", ["--git-dir", gitDir, "cat-file", "-e", `${project.commit}^{commit}`]).status !== 0) {
    throw new Error(`${gitDir} has no commit ${project.commit}: git clone --bare https://github.com/${project.repo} (docs/real-suites.md)`);
  }
  console.log(`setting up ${project.name} at ${project.commit.slice(0, 12)} in ${dir}`);
  rmSync(base, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync("git", ["--git-dir", gitDir, "archive", project.commit], { maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${project.commit}: ${archive.stderr}`);
  run("tar", ["-x", "-C", dir], dir, archive.stdout);
  git(dir, "init", "-q");
  // Whatever the project's .gitignore says, the installed packages are no part of its code.
  writeFileSync(join(dir, ".git", "info", "exclude"), "node_modules/\n");
  project.prepare?.(dir);
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", `pinned ${project.repo}@${project.commit}`);
  const pinned = git(dir, "rev-parse", "HEAD");
  if (project.smallChange) {
    git(dir, "checkout", "-q", "-b", SMALL_BRANCH);
    applyEdit(dir, project.smallChange, SINK);
    git(dir, "commit", "-qam", `lab: a small slowdown in ${project.smallChange.file}`);
    git(dir, "checkout", "-q", "-");
  }
  git(dir, "tag", PINNED_TAG, pinned);
  applyEdit(dir, project.change, SINK);
  git(dir, "commit", "-qam", `lab: calibrated slowdown in ${project.change.file}`);
  installDeps(project, base, dir);
  if (git(dir, "status", "--porcelain") !== "") throw new Error(`${dir}: the install left the tree dirty`);
  writeFileSync(ready, `${new Date().toISOString()}\n`);
  return dir;
}

const children = new Set<ChildProcess>();
function stopAll(signal: NodeJS.Signals = "SIGTERM"): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}
process.on("exit", () => stopAll("SIGKILL"));
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    // compare gets the signal too (same process group) or from here; it cleans its worktrees.
    stopAll(signal);
    setTimeout(() => process.exit(130), 3000).unref();
    process.exitCode = 130;
  });
}

function compare(cwd: string, argv: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    // The npm build's CLI (`dist/npm/cli/index.mjs`) is a module for node, not an executable.
    const [command, ...rest] = /\.[mc]?js$/.test(BIN) ? ["node", BIN, ...argv] : [BIN, ...argv];
    const child = spawn(command!, rest, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    children.add(child);
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-20000);
    });
    child.on("close", (code) => {
      children.delete(child);
      done({ code, stderr });
    });
  });
}

/** Half-width of a row's interval, as compare computes it when the JSON does not carry it. */
export function halfWidthOf(row: Row): number | undefined {
  if (!row.stats) return undefined;
  return row.stats.halfWidth ?? (row.stats.ci[1] - row.stats.ci[0]) / 2;
}

/** Rounds a row got: its own count where the JSON has one, else its paired rounds. */
function roundsOf(row: Row): number | undefined {
  const own = (row as { rounds?: unknown }).rounds;
  return typeof own === "number" ? own : row.stats?.n;
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

export interface RunSummary {
  project: string;
  mode: string;
  /** What the rows measured: `time`, `instructions` or `cycles`. */
  measure: string;
  exit: number | null;
  rows: number;
  statuses: Record<string, number>;
  timed: number;
  medianHalfWidth?: number;
  widestHalfWidth?: number;
  target: number;
  missedTarget: string[];
  /** A/A: verdicts of every timed row; change: of the rows whose code changed, and of the others. */
  verdicts: Record<string, Record<string, number>>;
  roundsPerRow?: { min: number; median: number; max: number };
  roundsCompleted: number;
  stoppedBy?: string;
  /** Wall time of the measuring phase (`rounds.measuredS`), the bound --max-time sets. */
  measuringS?: number;
  /** Time inside bench processes, added over processes run at once (`timing.childMs`), and compare's own wall time (`timing.wallMs`). */
  benchProcessS?: number;
  compareWallS?: number;
  wallS: number;
  maxTimeS?: number;
  load: { start: number; end: number };
  failed: Array<{ id: string; message: string }>;
  /** Change mode: each changed row's delta and interval, to see the slowdown the calibration made. */
  changedRows?: Array<{ id: string; delta: number; ci: [number, number] }>;
}

export function summarize(project: Project, result: CompareResult, exit: number | null, wallS: number, load: [number, number]): RunSummary {
  const timed = result.rows.filter((r) => r.stats);
  const widths = timed.map(halfWidthOf).filter((w): w is number => w !== undefined && Number.isFinite(w));
  const target = result.rounds.targetHalfWidth ?? 0.01;
  const verdictOf = (r: Row) => r.stats!.verdict;
  const verdicts: Record<string, Record<string, number>> = mode === "aa"
    ? { all: countBy(timed, verdictOf) }
    : {
        changed: countBy(
          timed.filter((r) => project.changed(r.file, r.label)),
          verdictOf,
        ),
        unchanged: countBy(
          timed.filter((r) => !project.changed(r.file, r.label)),
          verdictOf,
        ),
      };
  const rounds = timed.map(roundsOf).filter((n): n is number => n !== undefined);
  return {
    project: project.name,
    mode,
    measure: result.measure?.quantity ?? "time",
    exit,
    rows: result.rows.length,
    statuses: countBy(result.rows, (r) => r.status),
    timed: timed.length,
    medianHalfWidth: widths.length ? median(widths) : undefined,
    widestHalfWidth: widths.length ? Math.max(...widths) : undefined,
    target,
    missedTarget: timed.filter((r) => !((halfWidthOf(r) ?? Infinity) <= target)).map((r) => r.id),
    verdicts,
    roundsPerRow: rounds.length ? { min: Math.min(...rounds), median: median(rounds), max: Math.max(...rounds) } : undefined,
    roundsCompleted: result.rounds.completed,
    stoppedBy: result.rounds.stoppedBy,
    measuringS: result.rounds.measuredS,
    benchProcessS: result.timing ? result.timing.childMs / 1000 : undefined,
    compareWallS: result.timing ? result.timing.wallMs / 1000 : undefined,
    wallS,
    maxTimeS: result.rounds.maxTimeS,
    load: { start: load[0], end: load[1] },
    failed: result.rows.filter((r) => r.status === "failed").map((r) => ({ id: r.id, message: r.error?.message ?? "" })),
    changedRows:
      mode !== "aa"
        ? timed.filter((r) => project.changed(r.file, r.label)).map((r) => ({ id: r.id, delta: r.stats!.delta, ci: r.stats!.ci }))
        : undefined,
  };
}

const signed = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(2)}%`;
const pct = (x: number | undefined) => (x === undefined ? "-" : `±${(x * 100).toFixed(2)}%`);
const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, n]) => `${n} ${k}`)
    .join(", ") || "none";

export function printRun(s: RunSummary, index: number): void {
  const lines = [
    `run ${index + 1}/${runs} ${s.project} ${s.mode} (${s.measure}): exit ${s.exit}, ${s.rows} rows (${counts(s.statuses)}), ${s.timed} with an interval`,
    `  half-width median ${pct(s.medianHalfWidth)}, widest ${pct(s.widestHalfWidth)}; ${s.missedTarget.length} wider than ${pct(s.target)}`,
    ...Object.entries(s.verdicts).map(([group, c]) => `  verdicts${s.mode === "aa" ? "" : ` (${group} code)`}: ${counts(c)}`),
    `  rounds per row ${s.roundsPerRow ? `${s.roundsPerRow.min}/${s.roundsPerRow.median}/${s.roundsPerRow.max} (min/median/max)` : "-"}, run ${s.roundsCompleted}, stopped by ${s.stoppedBy ?? "-"}`,
    `  measuring ${s.measuringS?.toFixed(0) ?? "-"} s (wall) of --max-time ${s.maxTimeS ?? "-"} s, bench processes ${s.benchProcessS?.toFixed(0) ?? "-"} s, compare ${s.compareWallS?.toFixed(0) ?? "-"} s, lab wall ${s.wallS.toFixed(0)} s, load ${s.load.start.toFixed(2)} -> ${s.load.end.toFixed(2)}`,
    ...(s.changedRows ?? []).map((r) => `  changed ${r.id}: ${signed(r.delta)} [${signed(r.ci[0])}, ${signed(r.ci[1])}]`),
    ...s.failed.slice(0, 5).map((f) => `  failed ${f.id}: ${f.message.split("\n")[0]}`),
  ];
  console.log(lines.join("\n"));
}

/** What the runs of one project add up to. */
export function summaryOver(list: RunSummary[]) {
  const sum = (pick: (s: RunSummary) => Record<string, number>) => {
    const total: Record<string, number> = {};
    for (const s of list) for (const [k, n] of Object.entries(pick(s))) total[k] = (total[k] ?? 0) + n;
    return total;
  };
  const groups = [...new Set(list.flatMap((s) => Object.keys(s.verdicts)))];
  return {
    project: list[0]!.project,
    measure: list[0]!.measure,
    runs: list.length,
    medianHalfWidth: median(list.map((s) => s.medianHalfWidth ?? Number.NaN)),
    widestHalfWidth: Math.max(...list.map((s) => s.widestHalfWidth ?? Number.NaN)),
    missedTarget: list.reduce((n, s) => n + s.missedTarget.length, 0),
    timedRows: list.reduce((n, s) => n + s.timed, 0),
    verdicts: Object.fromEntries(groups.map((g) => [g, sum((s) => s.verdicts[g] ?? {})])),
    medianMeasuringS: median(list.map((s) => s.measuringS ?? Number.NaN)),
    medianWallS: median(list.map((s) => s.wallS)),
  };
}

function xbenchCommit(): string {
  const r = spawnSync("git", ["rev-parse", "HEAD"], { cwd: dirname(BIN), encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : "unknown";
}

/** What the binary says of itself: its build's commit, which a checkout's HEAD may have moved past. */
function xbenchVersion(): string {
  const [command, ...rest] = /\.[mc]?js$/.test(BIN) ? ["node", BIN] : [BIN];
  const r = spawnSync(command!, [...rest, "--version", "--verbose"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim().replace(/\s*\n\s*/g, "; ") : `--version exited ${r.status}`;
}

async function main(): Promise<void> {
  const sources = parseSources(args.source);
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  const header = {
    command: process.argv.join(" "),
    xbench: BIN,
    xbenchCommit: xbenchCommit(),
    xbenchVersion: xbenchVersion(),
    date: new Date().toISOString(),
    load: loadavg(),
  };
  console.log(
    `$ ${header.command}\nxbench ${BIN}, checkout at ${header.xbenchCommit} (${header.xbenchVersion})\n${header.date}, load ${load()}`,
  );
  // Every repository first: a setup is not timed, and hogs would only slow it.
  const repos = sources.map(({ project, gitDir }) => ({ project, dir: ensureRepo(project, gitDir) }));
  const hogs = startHogs(hogCount);
  for (const hog of hogs) children.add(hog);
  if (hogCount > 0) console.log(`${hogCount} CPU hog(s) running: ${hogs.map((h) => h.pid).join(", ")}`);
  const all: RunSummary[] = [];
  try {
    for (const { project, dir } of repos) {
      const out = join(dir, ".git", "real-suites-result.json");
      const argvOf = (measure: string | undefined) => [
        "compare",
        ...modeRefs(project),
        "--json",
        out,
        ...project.bench.flatMap((f) => ["--bench", f]),
        ...(measure ? ["--measure", measure] : []),
        ...passThrough,
      ];
      for (const measure of measures)
        console.log(`\n${project.name} (${project.api}, ${project.commit.slice(0, 12)}): cd ${dir} && ${BIN} ${argvOf(measure).join(" ")}`);
      for (let i = 0; i < runs && process.exitCode !== 130; i++) {
        for (const measure of measures) {
          if (process.exitCode === 130) break;
          rmSync(out, { force: true });
          const loadStart = loadavg()[0]!;
          const start = performance.now();
          const done = await compare(dir, argvOf(measure));
          const wallS = (performance.now() - start) / 1000;
          if (!existsSync(out)) {
            console.log(`run ${i + 1} (${measure ?? "time"}): compare exited ${done.code} without a result:\n${done.stderr.slice(-3000)}`);
            continue;
          }
          const result = JSON.parse(readFileSync(out, "utf8")) as CompareResult;
          const summary = summarize(project, result, done.code, wallS, [loadStart, loadavg()[0]!]);
          all.push(summary);
          printRun(summary, i);
        }
      }
    }
  } finally {
    stopAll();
  }
  if (process.exitCode === 130) console.log("\ninterrupted: the summary covers the runs that finished");
  const groups = [...new Set(all.map((s) => `${s.project}\0${s.measure}`))];
  const summaries = groups.map((key) => summaryOver(all.filter((s) => `${s.project}\0${s.measure}` === key)));
  console.log("\nsummary");
  for (const s of summaries) {
    console.log(
      `  ${s.project} (${s.measure}): ${s.runs} run(s), half-width median ${pct(s.medianHalfWidth)}, widest ${pct(s.widestHalfWidth)}, ` +
        `${s.missedTarget}/${s.timedRows} rows over target, verdicts ${Object.entries(s.verdicts)
          .map(([g, c]) => `${g}: ${counts(c)}`)
          .join("; ")}, measuring ${s.medianMeasuringS.toFixed(0)} s, wall ${s.medianWallS.toFixed(0)} s (medians)`,
    );
  }
  console.log(`load at end ${load()}`);
  if (args.json) writeFileSync(resolve(String(args.json)), JSON.stringify({ ...header, mode, passThrough, runs: all, summaries }, null, 2));
}

await main();
