/**
 * `compare --profile` at the edge (docs/profile.md): after the rounds, a few more duet
 * processes per chosen row run under the runtime's CPU profiler; their profiles are read,
 * split between the sides and reduced to a per-function table by src/profile/. These
 * processes never feed a row's interval: the profiler slows code unevenly.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { dirname, join } from "pathe";
import { usageError } from "../errors.ts";
import type { ProfileSummary, RowProfile } from "../model/profile.ts";
import type { CompareResult, Row, Runtime } from "../model/result.ts";
import { SIDES, type Side } from "../model/side.ts";
import { refineStatus, rowProfile } from "../profile/aggregate.ts";
import { attributeProcess, type ProcessAttribution, type SideBundle } from "../profile/attribute.ts";
import { mergeProfiles, parseCpuProfile, type ProfilePart } from "../profile/cpuprofile.ts";
import { decodeSourceMap } from "../profile/sourcemap.ts";
import { CHILD_PROTOCOL, CHILD_ENV, type Job } from "../runner/protocol.ts";
import { codeEnv } from "../runner/env.ts";
import { runtimeLaunch } from "../runner/runtimes.ts";
import { runBenchProcess } from "../runner/spawn.ts";
import { isChange } from "../stats/equivalence.ts";
import type { RunContext } from "./context.ts";
import { inRunFolder } from "./run/run-write.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import type { SideTree } from "./sides/sides.ts";

export type ProfileRows = ProfileSummary["rows"];

/**
 * Profiled processes per row: the fewest for which the 95% signed-rank interval is bounded
 * (at 5 it is (-∞, ∞)), each side loading first in half of them.
 */
export const PROFILE_PROCESSES = 6;
/** The profiler's sampling interval, µs: V8's default (1000) leaves a 1 ms benchmark a handful of samples. */
export const PROFILE_INTERVAL_US = 100;

/**
 * Runtimes whose profiler writes Chrome's .cpuprofile from the command line (`--cpu-prof`).
 * V8's profile names no function its optimizing compiler inlined: the time of an inlined
 * function goes to its caller, and which calls get inlined varies from process to process and
 * side to side. Profiled node processes therefore run without inlining, so each function's
 * time is its own (docs/profile.md). bun's profiler is JavaScriptCore's, which takes no V8 flags.
 */
const PROFILER_FLAGS: Partial<Record<Runtime, (dir: string) => string[]>> = {
  node: (dir) => [
    "--cpu-prof",
    `--cpu-prof-dir=${dir}`,
    `--cpu-prof-interval=${PROFILE_INTERVAL_US}`,
    "--no-turbo-inlining",
    "--no-maglev-inlining",
  ],
  bun: (dir) => ["--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${PROFILE_INTERVAL_US}`],
};

/** Up front, before any round: a runtime without a profiler xbench can read is a usage error. */
export function checkProfiler(runtime: Runtime): void {
  if (!PROFILER_FLAGS[runtime])
    throw usageError(`--profile needs a sampling CPU profiler that writes a .cpuprofile; --runtime ${runtime} has none (use node or bun)`);
}

/** The rows to profile: timed rows measured in a duet, with a verdict of slower or faster unless `all`. */
export function rowsToProfile(rows: readonly Row[], which: ProfileRows): Row[] {
  return rows
    .filter((row) => row.unit === "ns" && row.status === "ok" && row.mode === "duet" && row.stats)
    .filter((row) => which === "all" || isChange(row.stats!.verdict));
}

/** A side's bundle of `file` as the profile will name it: node and bun name modules by their real path. */
function sideBundle(side: Side, bundle: string, root: string): SideBundle {
  const real = realpathSync(bundle);
  const map = decodeSourceMap(JSON.parse(readFileSync(`${bundle}.map`, "utf8")));
  // Bun writes `sources` relative to the folder it was given; that folder may sit behind a symlink (a linked node_modules).
  const mapDir = [dirname(bundle), dirname(real)].find((dir) => map.sources.some((s) => s.includes("/") && existsSync(join(dir, s))));
  return { side, url: pathToFileURL(real).href, map, mapDir: mapDir ?? dirname(bundle), root: realpathSync(root) };
}

/** One profiled duet process of one row: its profile and how its samples split between the sides, or why it gave none. */
async function profileProcess(ctx: RunContext, row: Row, index: number, bundles: SideBundle[], dir: string) {
  const { plan } = ctx.store;
  const order: Side[] = index % 2 === 0 ? ["base", "head"] : ["head", "base"];
  const paths = Object.fromEntries(order.map((side) => [side, ctx.bundles.sides[side].get(row.file)!.path!]));
  const job: Job = {
    protocol: CHILD_PROTOCOL,
    kind: "duet",
    sides: order.map((side) => ({ side, bundle: paths[side]! })),
    parts: "timed",
    budget: plan.budget,
    labels: [row.label],
  };
  // A resumed run profiles again: no profile of an earlier attempt may be read as this one's.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const root = ctx.sides.head.root;
  const launch = runtimeLaunch(plan.runtime, root, ctx.bundles.driver);
  const [command, ...rest] = launch.argv;
  const outcome = await runBenchProcess({
    argv: [command!, ...PROFILER_FLAGS[plan.runtime]!(dir), ...rest],
    cwd: root,
    env: { ...codeEnv(), ...launch.env, XBENCH_SIDE: "both", [CHILD_ENV.job]: JSON.stringify(job) },
    resultFile: join(ctx.store.dir, "profile-process.ndjson"),
    timeoutMs: plan.timeoutS * 1000,
  });
  if (outcome.error !== undefined) return { error: outcome.error };
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  if (!file) return { error: "the profiler wrote no .cpuprofile" };
  try {
    const profile = parseCpuProfile(readFileSync(join(dir, file), "utf8"), join(dir, file));
    return { attribution: attributeProcess(profile, bundles), profile };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/**
 * Profiles the chosen rows of `result` and returns it with each one's table and the summary;
 * each side's merged profile goes to the run folder as profile-base.cpuprofile and
 * profile-head.cpuprofile.
 */
export async function profileRows(ctx: RunContext, result: CompareResult, which: ProfileRows): Promise<CompareResult> {
  const chosen = rowsToProfile(result.rows, which);
  const tables = new Map<string, RowProfile>();
  const parts: Record<Side, ProfilePart[]> = { base: [], head: [] };
  for (const [r, row] of chosen.entries()) {
    const bundles = SIDES.map((side) => sideBundle(side, ctx.bundles.sides[side].get(row.file)!.path!, ctx.sides[side].root));
    const processes: ProcessAttribution[] = [];
    let error: string | undefined;
    for (let k = 0; k < PROFILE_PROCESSES; k++) {
      ctx.onEvent({ type: "working", what: `profiling ${row.id} (${k + 1}/${PROFILE_PROCESSES})` });
      const done = await profileProcess(ctx, row, k, bundles, join(ctx.store.dir, "profiles", `${r}-${k}`));
      if (!done.attribution) {
        error ??= done.error;
        continue;
      }
      processes.push(done.attribution);
      for (const side of SIDES) parts[side].push({ profile: done.profile, keep: done.attribution.sampleSides.map((s) => s === side) });
    }
    // The row's times as its table shows them: base's median, head's that times 1 + delta.
    const { baseMedian, delta } = row.stats!;
    tables.set(
      row.id,
      processes.length > 0
        ? refineStatuses(rowProfile(processes, { base: baseMedian, head: baseMedian * (1 + delta) }), ctx.sides)
        : { processes: 0, functions: [], other: { base: 0, head: 0 }, error },
    );
  }
  const summary: ProfileSummary = { rows: which, processes: PROFILE_PROCESSES, intervalUs: PROFILE_INTERVAL_US };
  if (parts.base.length > 0) {
    const files = { base: join(ctx.store.dir, "profile-base.cpuprofile"), head: join(ctx.store.dir, "profile-head.cpuprofile") };
    for (const side of SIDES)
      inRunFolder(ctx.store.dir, files[side], () => writeFileAtomic(files[side], JSON.stringify(mergeProfiles(parts[side]))));
    summary.files = files;
  }
  const rows = result.rows.map((row) => (tables.has(row.id) ? { ...row, profile: tables.get(row.id)! } : row));
  return { ...result, rows, profile: summary };
}

/** A row's functions that ran on one side only, told apart: gone from the other side's source, or only not called there. */
function refineStatuses(profile: RowProfile, sides: Record<Side, SideTree>): RowProfile {
  const read = (side: Side, file: string): string | undefined => {
    try {
      return readFileSync(join(sides[side].root, file), "utf8");
    } catch {
      return undefined; // the file is gone on that side: the function with it
    }
  };
  return { ...profile, functions: profile.functions.map((fn) => refineStatus(fn, read)) };
}
