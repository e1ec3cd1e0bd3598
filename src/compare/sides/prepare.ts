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
 * build run, then every bench file bundled once per side; the driver every bench process runs
 * is bundled once per run. One function, `prepareSides`, does it for a list of commits: a
 * compare's base and head, bisect's good and bad and then each commit it probes.
 */
import { existsSync } from "node:fs";
import { join } from "pathe";
import type { Runtime, Side } from "../../model/result.ts";
import { bundle } from "../../runner/bundle.ts";
import type { Cleanup } from "../../util/scope.ts";
import type { RunContext, SideBundles } from "../context.ts";
import type { OnCompareEvent } from "../events.ts";
import { ownPath } from "../run/reclaim.ts";
import {
  buildSide,
  explainBuild,
  checkoutSide,
  copyBenchFiles,
  installCommand,
  installDependencies,
  linkDependencies,
  nearestNodeModules,
  type SideTree,
} from "./sides.ts";
import type { RunPlan } from "../run/store.ts";
export { SideSetupError } from "./sides.ts";

/** Dependencies (linked from the repository, or installed) and the build of one checked-out side. */
async function setUpSide(plan: RunPlan, side: SideTree, onEvent: OnCompareEvent): Promise<void> {
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

/** A commit to prepare as one side of a compare. */
export interface SideCommit {
  side: Side;
  sha: string;
  /** Its worktree's folder in the run's temp folder and its bundles' tag: the side's name in a compare, `commit-<sha>` in bisect. */
  name: string;
  /** Compare's head without `--head REF`: the repository itself, edits included, instead of a worktree. */
  workingTree?: boolean;
}

/** A compare's two commits: base, and head (the working tree unless `--head REF`). */
export function compareCommits(plan: Pick<RunPlan, "base" | "head">): [SideCommit, SideCommit] {
  const head: SideCommit = { side: "head", sha: plan.head.sha, name: "head" };
  return [{ side: "base", sha: plan.base.sha, name: "base" }, plan.head.headRef ? head : { ...head, workingTree: true }];
}

/** One of bisect's commits: a folder of its own (`commit-<sha>`, which reclaim.ts recognizes), kept across steps. */
export function bisectCommit(side: Side, sha: string): SideCommit {
  return { side, sha, name: `commit-${sha.slice(0, 12)}` };
}

/** One side ready for bench processes: its checkout, set up, and a bundle (or its error) of each bench file. */
export interface PreparedSide {
  tree: SideTree;
  bundles: SideBundles;
}

/**
 * What preparing sides works in: the plan (bench files, install, build, runtime), the run's name
 * (its bundles' tags), its temp folder and cleanup scope (every worktree and bundle is removed
 * with it), where events go.
 */
export interface PrepareScope {
  plan: RunPlan;
  runId: string;
  tmp: string;
  cleanup: Cleanup;
  onEvent: OnCompareEvent;
}

/**
 * Prepares each commit as a side, stage by stage over the list: every checkout, the bench files
 * (from `benchFrom`, by default the list's head) copied onto each, dependencies and the build of
 * each in turn, then a bundle per bench file and side. Stage by stage, because head must be
 * checked out before its bench files can go onto base, and so that a compare says each stage of
 * base, then of head. Throws the set-up's error (`SideSetupError`) when an install or a build
 * fails; what it made so far goes with the scope.
 */
export async function prepareSides<const C extends readonly SideCommit[]>(
  scope: PrepareScope,
  commits: C,
  benchFrom?: string,
): Promise<{ [K in keyof C]: PreparedSide }> {
  const { plan, runId, tmp, cleanup, onEvent } = scope;
  const at = { repo: plan.repo, tmp, cleanup, onEvent };
  const trees = commits.map((c) =>
    c.workingTree ? { side: c.side, root: plan.repo, sha: c.sha } : checkoutSide(at, c.side, c.sha, c.name),
  );
  const roots = trees.map((tree) => tree.root);
  const source = benchFrom ?? trees.find((tree) => tree.side === "head")?.root;
  if (source) copyBenchFiles(plan, source, roots);
  for (const tree of trees) await setUpSide(plan, tree, onEvent);
  const names = [...new Set(trees.map((tree) => tree.side))].join(" and ");
  onEvent({ type: "working", what: `bundling ${plan.files.length} bench file(s) for ${names}` });
  const target = (tag: string): BundleTarget => ({ runtime: plan.runtime, repo: plan.repo, tag, tmp, cleanup });
  const prepared: PreparedSide[] = [];
  for (const [i, tree] of trees.entries()) {
    prepared.push({ tree, bundles: await bundleSide(tree, plan.files, target(`${runId}-${commits[i]!.name}`)) });
  }
  return prepared as { [K in keyof C]: PreparedSide };
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
async function bundleSide(
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

/** What a run's stages read of its sides (`RunContext`'s sides and bundles): two prepared sides and the driver. */
export function pairSides(base: PreparedSide, head: PreparedSide, driver: string): Pick<RunContext, "sides" | "bundles"> {
  return { sides: { base: base.tree, head: head.tree }, bundles: { driver, sides: { base: base.bundles, head: head.bundles } } };
}
