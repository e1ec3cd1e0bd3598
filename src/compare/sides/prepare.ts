/**
 * The sides of a compare (compare/sides/): everything about one side's checkout before a bench
 * process runs. This file is the folder's entry: setting a side up and bundling it, and the
 * error a side's set-up fails with. Beside it: worktrees, links and installs (sides.ts,
 * install.ts), what the project declares (scripts.ts, runtime-choice.ts, workspace.ts), why a
 * file registers nothing (diagnose.ts), and whether a file's code is the same on both sides
 * (unchanged.ts, unchanged-files.ts, package-hash.ts). It never runs a bench process nor writes
 * the run folder's rounds.
 *
 * Preparing the sides, the first stage of a compare: each side checked out as a worktree
 * (sides.ts), head's bench files copied onto base, dependencies linked or installed, the
 * build run, then every bench file bundled once per side with the driver every bench process
 * runs. Bisect uses the pieces per commit.
 */
import { existsSync } from "node:fs";
import { join } from "pathe";
import type { Runtime, Side } from "../../model/result.ts";
import { bundle } from "../../runner/bundle.ts";
import type { Cleanup } from "../../util/scope.ts";
import type { Bundles, SideBundles } from "../context.ts";
import { ignoreEvents, type OnCompareEvent } from "../events.ts";
import { ownPath } from "../run/reclaim.ts";
import {
  buildSide,
  checkoutHead,
  explainBuild,
  checkoutSide,
  copyBenchFiles,
  installCommand,
  installDependencies,
  linkDependencies,
  nearestNodeModules,
  type SideTree,
} from "./sides.ts";
import type { RunPlan, RunStore } from "../run/store.ts";
export { SideSetupError } from "./sides.ts";

/** Dependencies (linked from the repository, or installed) and the build of one checked-out side. */
export async function setUpSide(plan: RunPlan, side: SideTree, onEvent: OnCompareEvent = ignoreEvents): Promise<void> {
  if (side.root !== plan.repo) {
    if (plan.install) {
      const argv = await installCommand(side.root);
      // An install takes seconds to minutes: named, with its elapsed time, never silent.
      if (argv) {
        onEvent({ type: "working", what: `installing ${side.side}'s dependencies (${argv.join(" ")})` });
        const started = performance.now();
        await installDependencies(side, argv);
        onEvent({ type: "installed", side: side.side, command: argv, seconds: (performance.now() - started) / 1000 });
      }
    } else linkDependencies(plan.repo, side, plan.files);
  }
  if (plan.build) {
    onEvent({ type: "working", what: `building ${side.side} (${plan.build})` });
    const setting = {
      install: plan.install,
      workingTree: side.root === plan.repo,
      headHasModules: existsSync(join(plan.repo, "node_modules")),
    };
    await buildSide(side, plan.build, (output) => explainBuild(side.side, setting, output));
  }
}

/** What preparing a run's sides works in: its run folder, its temp folder and cleanup scope, where events go. */
export interface PrepareScope {
  store: RunStore;
  tmp: string;
  cleanup: Cleanup;
  onEvent: OnCompareEvent;
}

/** Sets both sides up: worktrees, head's bench files on base, dependencies, builds. */
export async function prepareSides({ store, tmp, cleanup, onEvent }: PrepareScope): Promise<Record<Side, SideTree>> {
  const { plan } = store;
  const at = { repo: plan.repo, tmp, cleanup, onEvent };
  const base = checkoutSide(at, "base", plan.base.sha);
  const head = checkoutHead(at, plan.head.sha, plan.head.headRef);
  copyBenchFiles(plan, head.root, base.root);
  for (const side of [base, head]) await setUpSide(plan, side, onEvent);
  return { base, head };
}

/** What a bundle is built for and where it goes. */
export interface BundleTarget {
  runtime: Runtime;
  /** The repository whose node_modules a worktree side links (runner/bundle.ts maps its workspace links back to the side). */
  repo?: string;
  /** Keeps each side's (each commit's) folders apart. */
  tag: string;
  /** The run's temp folder: a bundle with no node_modules to go into goes there. */
  tmp: string;
  cleanup: Cleanup;
}

/**
 * The driver every bench process runs; it imports only runtime built-ins and the side bundles.
 * It goes into the node_modules of `root` (head's) where there is one, because deno takes the
 * project's settings (package.json and its node_modules layout, npm's or pnpm's, deno.json)
 * from where the main module is: from a temp folder it resolves no package of the project's.
 */
export async function bundleDriver(root: string, { runtime, tag, tmp, cleanup }: BundleTarget): Promise<string> {
  const modules = nearestNodeModules(root, "");
  const outDir = modules ? join(modules, ".cache", "xbench", `${tag}-driver`) : join(tmp, "driver");
  ownPath(tmp, outDir, cleanup);
  return bundle({ kind: "driver", outDir, runtime });
}

/**
 * Compiles each bench file of one side. Bundles go inside the node_modules nearest each bench
 * file on its side, so the packages a bench file imports resolve from that side, exactly as the
 * project's own code would.
 */
export async function bundleSide(
  tree: SideTree,
  files: readonly string[],
  { runtime, repo, tag, tmp, cleanup }: BundleTarget,
): Promise<SideBundles> {
  const bundles: SideBundles = new Map();
  for (const [i, file] of files.entries()) {
    const modules = nearestNodeModules(tree.root, file);
    const outDir = modules ? join(modules, ".cache", "xbench", `${tag}-${i}`) : join(tmp, "bundles", tag, String(i));
    ownPath(tmp, outDir, cleanup);
    try {
      const linkedFrom = repo !== undefined && repo !== tree.root ? { linkedFrom: repo } : {};
      const request = { kind: "side", benchFile: join(tree.root, file), outDir, runtime, root: tree.root, ...linkedFrom } as const;
      bundles.set(file, { path: await bundle(request) });
    } catch (error) {
      bundles.set(file, { error: (error as Error).message });
    }
  }
  return bundles;
}

/** Both sides' bundles and the driver of one run, tagged by the run folder's name. */
export async function bundleAll({ store, tmp, cleanup }: PrepareScope, sides: Record<Side, SideTree>): Promise<Bundles> {
  const runId = store.dir.split("/").pop()!;
  const { files, runtime } = store.plan;
  const target = (tag: string): BundleTarget => ({ runtime, repo: store.plan.repo, tag, tmp, cleanup });
  return {
    driver: await bundleDriver(sides.head.root, target(runId)),
    sides: {
      base: await bundleSide(sides.base, files, target(`${runId}-base`)),
      head: await bundleSide(sides.head, files, target(`${runId}-head`)),
    },
  };
}
