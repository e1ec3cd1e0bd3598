import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { log } from "../cli/log.ts";
import { embeddedHelpers } from "../helpers/cache.ts";
import { optionalHelper } from "../helpers/index.ts";
import type { CompareResult, Side } from "../report/model.ts";
import { SCHEMA_ID, SCHEMA_VERSION } from "../report/model.ts";
import { analyzeRows } from "../report/analyze.ts";
import { bundleBenchFile } from "../runner/bundle.ts";
import { CHILD_ENV } from "../runner/protocol.ts";
import { killRunningChildren, runBenchProcess, runtimeArgv } from "../runner/spawn.ts";
import { currentLoad } from "../util/load.ts";
import { VERSION } from "../version.ts";
import { createCleanup, exitOnSignals, type Cleanup } from "./cleanup.ts";
import { createProgress } from "./progress.ts";
import { collectRows } from "./rows.ts";
import { buildSide, checkoutHead, checkoutSide, copyBenchFiles, installDependencies, linkDependencies, nearestNodeModules, type SideTree } from "./sides.ts";
import { recordKey, type RunStore } from "./store.ts";

/** Wall time of this invocation and the part of it spent inside bench processes. */
export interface CompareTiming {
  wallMs: number;
  childMs: number;
}

export interface CompareOutcome {
  result: CompareResult;
  timing: CompareTiming;
}

/**
 * How bench processes time a command: the native xbench-exec-stats where this platform has
 * helpers (a launch from a static program of a few pages, so the peak RSS is the command's
 * own); else `xbench exec-stats`, through the binary itself or this script under its runtime.
 */
function execStatsPrefix(): string[] {
  const native = optionalHelper("xbench-exec-stats");
  if (native) return [native];
  if (embeddedHelpers()) return [process.execPath, "exec-stats"];
  return [process.execPath, process.argv[1]!, "exec-stats"];
}

type Bundles = Record<Side, Map<string, { path?: string; error?: string }>>;

/** Sets both sides up: worktrees, head's bench files on base, dependencies, builds. */
function prepareSides(store: RunStore, tmp: string, cleanup: Cleanup): Record<Side, SideTree> {
  const { plan } = store;
  const base = checkoutSide(plan.repo, tmp, "base", plan.base.sha, cleanup);
  const head = checkoutHead(plan.repo, tmp, plan.head.sha, plan.head.headRef, cleanup);
  copyBenchFiles(plan, head.root, base.root);
  for (const side of [base, head]) {
    if (side.root === plan.repo) continue;
    if (plan.install) installDependencies(side);
    else linkDependencies(plan.repo, side, plan.files);
  }
  if (plan.build) for (const side of [base, head]) buildSide(side, plan.build);
  return { base, head };
}

/**
 * Bundles go inside the node_modules nearest each bench file on its side, so the packages a
 * bench file imports resolve from that side, exactly as the project's own code would.
 */
async function bundleAll(store: RunStore, sides: Record<Side, SideTree>, tmp: string, cleanup: Cleanup): Promise<Bundles> {
  const bundles: Bundles = { base: new Map(), head: new Map() };
  const runId = store.dir.split("/").pop()!;
  for (const side of ["base", "head"] as const) {
    const tree = sides[side];
    for (const [i, file] of store.plan.files.entries()) {
      const modules = nearestNodeModules(tree.root, file);
      const outDir = modules
        ? join(modules, ".cache", "xbench", `${runId}-${side}-${i}`)
        : join(tmp, "bundles", side, String(i));
      cleanup.add(() => rmSync(outDir, { recursive: true, force: true }));
      try {
        const path = await bundleBenchFile({ benchFile: join(tree.root, file), outDir, runtime: store.plan.runtime });
        bundles[side].set(file, { path });
      } catch (error) {
        bundles[side].set(file, { error: (error as Error).message });
      }
    }
  }
  return bundles;
}

/**
 * Runs (or continues) a compare: every round, every bench file, one fresh process per side
 * in the round's order; each outcome is appended to the run folder the moment it arrives.
 */
export async function runCompare(store: RunStore): Promise<CompareOutcome> {
  const started = performance.now();
  const { plan } = store;
  const cleanup = createCleanup();
  const progress = createProgress();
  const offSignals = exitOnSignals(cleanup, (signal) => {
    killRunningChildren();
    progress.done();
    log.warn(`${signal}: stopped. Measured rounds are saved; continue with: xbench compare --resume ${store.dir}`);
  });
  let childMs = 0;
  try {
    const tmp = mkdtempSync(join(tmpdir(), "xbench-compare-"));
    cleanup.add(() => rmSync(tmp, { recursive: true, force: true }));
    const sides = prepareSides(store, tmp, cleanup);
    const bundles = await bundleAll(store, sides, tmp, cleanup);
    const done = new Set(store.records.map((r) => recordKey(r.round, r.file, r.side)));
    const total = plan.rounds.planned * plan.files.length * 2;
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      [CHILD_ENV.execStats]: JSON.stringify(execStatsPrefix()),
      ...(plan.benchTimeMs ? { [CHILD_ENV.benchTimeNs]: String(Math.round(plan.benchTimeMs * 1e6)) } : {}),
    };
    const resumedFrom = done.size;
    for (let round = 0; round < plan.rounds.planned; round++) {
      for (const file of plan.files) {
        for (const side of plan.orders[round]!) {
          if (done.has(recordKey(round, file, side))) continue;
          if (!plan.loadavgStart) {
            plan.loadavgStart = currentLoad();
            store.savePlan();
          }
          const bundle = bundles[side].get(file)!;
          if (bundle.error !== undefined) {
            store.append({ round, file, side, wallMs: 0, error: bundle.error });
          } else {
            const outcome = await runBenchProcess({
              argv: runtimeArgv(plan.runtime, sides[side].root, bundle.path!),
              cwd: sides[side].root,
              env: { ...env, XBENCH_SIDE: side },
              resultFile: join(store.dir, `result-${side}.json`),
              timeoutMs: plan.timeoutS * 1000,
            });
            childMs += outcome.wallMs;
            store.append(
              outcome.ok
                ? { round, file, side, wallMs: outcome.wallMs, rows: outcome.report.rows }
                : { round, file, side, wallMs: outcome.wallMs, error: outcome.error },
            );
          }
          done.add(recordKey(round, file, side));
          progress.update({
            round: round + 1,
            rounds: plan.rounds.planned,
            done: done.size - resumedFrom,
            total: total - resumedFrom,
            elapsedS: (performance.now() - started) / 1000,
          });
        }
      }
    }
    progress.done();
    const loadEnd = currentLoad();
    const rows = analyzeRows(collectRows(plan.files, plan.rounds.planned, store.records), { holm: plan.holm });
    const result: CompareResult = {
      schema: SCHEMA_ID,
      schemaVersion: SCHEMA_VERSION,
      xbenchVersion: VERSION,
      runtime: plan.runtime,
      rounds: { ...plan.rounds, completed: plan.rounds.planned },
      base: plan.base,
      head: { ref: plan.head.ref, sha: plan.head.sha, dirty: plan.head.dirty },
      loadavg: { start: plan.loadavgStart ?? loadEnd, end: loadEnd },
      startedAt: plan.startedAt,
      finishedAt: new Date().toISOString(),
      holm: plan.holm,
      rows,
    };
    const timing = { wallMs: performance.now() - started, childMs };
    return { result: { ...result, timing }, timing };
  } finally {
    progress.done();
    offSignals();
    cleanup.run();
  }
}
