import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "pathe";
import { XbenchError } from "../../errors.ts";
import { failureTail } from "../../util/text.ts";
import { addWorktree, git, noFilters, removeWorktree, submoduleCommits } from "../../git/git.ts";
import { codeEnv } from "../../runner/env.ts";
import { runToEnd } from "../../runner/spawn.ts";
import type { Side } from "../../model/result.ts";
import type { Cleanup } from "../../util/scope.ts";
import type { OnCompareEvent } from "../events.ts";
import type { RunPlan } from "../run/store.ts";
import {
  installArgv,
  isManagerPackage,
  LOCKFILE_NAMES,
  type ManagerFacts,
  managerSpec,
  missingPackage,
  wantedManager,
  type WantedManager,
} from "./install.ts";

/**
 * A side's own install or build failed: the commit's answer (history records it as a gap),
 * unlike a failure of xbench's own (a driver it cannot compile, a full disk), which says nothing
 * about the commit.
 */
export class SideSetupError extends XbenchError {
  override name = "SideSetupError";
}

/** One side of a compare, ready to bundle and run. */
export interface SideTree {
  side: Side;
  /** Folder the side's files are in: a temporary worktree, or the repository itself for a dirty head. */
  root: string;
  sha: string;
}

/** Where a run checks sides out: the repository, the run's temp folder, its cleanup scope, where events go. */
export interface CheckoutScope {
  repo: string;
  tmp: string;
  cleanup: Cleanup;
  onEvent: OnCompareEvent;
}

/**
 * Checks `sha` out into `<tmp>/<folder>` (the side's name unless bisect names one per commit)
 * as a detached worktree and registers its removal. The temp folder sits outside the
 * repository so tools that walk the repo never see it.
 */
export function checkoutSide(scope: CheckoutScope, side: Side, sha: string, folder: string = side): SideTree {
  const { repo, tmp, cleanup, onEvent } = scope;
  const root = join(tmp, folder);
  cleanup.add(() => removeWorktree(repo, root));
  addWorktree(repo, root, sha);
  initSubmodules(repo, root, side, onEvent);
  return { side, root, sha };
}

/**
 * A new worktree has empty folders where its commit pins submodules. Each is filled from the
 * clone the repository already has at that path: a shared clone (objects borrowed, nothing
 * copied, no network; the URL in .gitmodules is never used), then the pinned commit checked
 * out, nested submodules likewise. A submodule the repository never checked out, or whose
 * clone lacks the pinned commit, stays empty and is reported: a bench file that needs it then
 * fails with its own error, and one that does not still runs.
 */
export function initSubmodules(source: string, target: string, side: Side, onEvent: OnCompareEvent, prefix = ""): void {
  for (const { path, sha } of submoduleCommits(target)) {
    const from = join(source, path);
    const to = join(target, path);
    const name = `${prefix}${path}`;
    if (!existsSync(join(from, ".git"))) {
      onEvent({ type: "submodule-empty", side, path: name, why: "not-checked-out", sha });
      continue;
    }
    try {
      git(target, [...noFilters(target), "clone", "--quiet", "--shared", "--no-checkout", from, to]);
      git(to, [...noFilters(to), "checkout", "--quiet", "--detach", sha]);
    } catch {
      onEvent({ type: "submodule-empty", side, path: name, why: "commit-missing", sha });
      continue;
    }
    initSubmodules(from, to, side, onEvent, `${name}/`);
  }
}

/** Head: a worktree of `--head REF`, or the repository itself (working tree, edits included). */
export function checkoutHead(scope: CheckoutScope, sha: string, headRef: string | undefined): SideTree {
  return headRef ? checkoutSide(scope, "head", sha) : { side: "head", root: scope.repo, sha };
}

/**
 * Head's bench files (those in `from`) replace the other sides' (`to`), so a benchmark added by
 * the change measures base too; whatever a bench file imports still comes from its own side. Named bench files that head
 * (`--head REF`) lacks come from the working tree first: a wrapper the user has not committed.
 */
export function copyBenchFiles(plan: Pick<RunPlan, "repo" | "files" | "fromWorkingTree">, from: string, to: readonly string[]): void {
  const copy = (file: string, source: string, target: string) => {
    if (source === target) return;
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(source, file), join(target, file));
  };
  for (const file of plan.fromWorkingTree ?? []) copy(file, plan.repo, from);
  for (const target of to) for (const file of plan.files) copy(file, from, target);
}

/** Repo-relative folders from a bench file's folder up to the root (`a/b/x.bench.ts` → `a/b`, `a`, ``). */
export function ancestors(file: string): string[] {
  const parts = file.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, parts.length - i).join("/")).concat("");
}

/** Folders of the side's workspace packages: every folder of a package.json git tracks there. */
function packageFolders(root: string): string[] {
  const manifests = git(root, ["ls-files", "-z", "--", "package.json", "**/package.json"], { allowFail: true }).split("\0");
  return manifests
    .filter((path) => path.endsWith("package.json") && !path.includes("node_modules/"))
    .map((path) => dirname(path).replace(/^\.$/, ""));
}

/**
 * A worktree has no node_modules of its own: link head's, at the root, in every folder
 * between a bench file and the root, and in every workspace package (so that a package's
 * build on this side finds its tools, and its code its dependencies), unless `--install`
 * asked for a real install.
 */
export function linkDependencies(headRoot: string, side: SideTree, files: string[] = []): void {
  if (side.root === headRoot) return;
  const folders = new Set(["", ...files.flatMap(ancestors), ...packageFolders(side.root)]);
  for (const folder of folders) {
    const source = join(headRoot, folder, "node_modules");
    const target = join(side.root, folder, "node_modules");
    if (!existsSync(source) || existsSync(target) || !existsSync(join(side.root, folder))) continue;
    symlinkSync(source, target, "dir");
  }
}

/**
 * Where a side's bundle of `file` goes: inside the node_modules nearest to the bench file,
 * so the packages it imports resolve as they would for the file itself; undefined when the
 * side has none on that path.
 */
export function nearestNodeModules(root: string, file: string): string | undefined {
  for (const folder of ancestors(file)) {
    const candidate = join(root, folder, "node_modules");
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** What a side's root says about its package manager: the files `wantedManager` reads. */
export function managerFacts(root: string): ManagerFacts {
  const read = (file: string): string | undefined => {
    try {
      return readFileSync(join(root, file), "utf8");
    } catch {
      return undefined;
    }
  };
  const manifest = read("package.json");
  let packageManager: string | undefined;
  try {
    const pm = (JSON.parse(manifest ?? "{}") as { packageManager?: unknown }).packageManager;
    if (typeof pm === "string") packageManager = pm;
  } catch {
    // a package.json that does not parse: the manager says so when it runs
  }
  const lockfiles = LOCKFILE_NAMES.filter((file) => existsSync(join(root, file)));
  const pnpmLock = lockfiles.includes("pnpm-lock.yaml") ? read("pnpm-lock.yaml") : undefined;
  const yarnLock = lockfiles.includes("yarn.lock") ? read("yarn.lock") : undefined;
  const berry = yarnLock === undefined ? undefined : /^__metadata:\s*\n\s+version:\s*(\d+)/m.exec(yarnLock)?.[1];
  return {
    lockfiles,
    packageManager,
    pnpmLockfileVersion: pnpmLock === undefined ? undefined : /^lockfileVersion:\s*'?([\d.]+)/m.exec(pnpmLock)?.[1],
    yarnLock: yarnLock === undefined ? undefined : berry ? Number(berry) : "classic",
    hasPackageJson: manifest !== undefined,
  };
}

/**
 * The install a side declares, as this machine can run it: the manager on PATH when it is the
 * version the side asks for, else that version through npx; undefined without a package.json.
 */
export async function installCommand(root: string): Promise<string[] | undefined> {
  const wanted = wantedManager(managerFacts(root));
  if (!wanted) return undefined;
  const probe = wanted.name === "npm" ? undefined : await runToEnd([wanted.name, "--version"], { cwd: root, env: process.env });
  return installArgv(wanted, probe && !probe.error && probe.code === 0 ? probe.stdout : undefined);
}

/**
 * Runs a setup step (install or build) in a side; a failure names the side and shows the tail
 * of its output, or the one line `explain` makes of it. Asynchronous, and tracked like a bench
 * process, so a Ctrl-C stops it at once (the signal handler ends its tree) instead of waiting
 * for it to finish.
 */
export async function runSetupStep(
  side: SideTree,
  what: string,
  argv: string[],
  explain: (output: string | undefined) => string | undefined = () => undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const result = await runToEnd(argv, { cwd: side.root, env: { ...env, XBENCH_SIDE: side.side } });
  const failed = `${what} failed on ${side.side} (${side.sha.slice(0, 12)}`;
  if (result.error) {
    const missing = /: (command not found|.*\bENOENT\b.*)$/.test(result.error);
    const reason = missing ? (explain(undefined) ?? `${argv[0]}: command not found`) : result.error;
    throw new SideSetupError(`${failed}): ${reason}`);
  }
  if (result.code !== 0) {
    const output = `${result.stdout}\n${result.stderr}`;
    const reason = explain(output);
    if (reason) throw new SideSetupError(`${failed}): ${reason}`);
    throw new SideSetupError(`${failed}, exit ${result.code ?? result.signal}):\n${failureTail(output, 15)}`);
  }
}

/** The one line for an install that could not start or could not find a package; undefined for other failures. */
export function explainInstall(
  side: Side,
  argv: string[],
  wanted: WantedManager | undefined,
  output: string | undefined,
): string | undefined {
  const leaveOut = "or leave out --install to run base with head's node_modules";
  if (output === undefined) {
    const what = argv[0] === "npx" && wanted ? `npx is not on PATH to fetch ${managerSpec(wanted)}` : `${argv[0]} is not on PATH`;
    return `${what}: install ${wanted ? managerSpec(wanted) : argv[0]} (or Node.js's npm), ${leaveOut}`;
  }
  const missing = missingPackage(output);
  if (!missing) return undefined;
  if (argv[0] === "npx" && wanted && isManagerPackage(missing, wanted)) {
    const declared = wanted.pinned ? `${side}'s package.json pins` : `${side}'s lockfile asks for`;
    const onPath = wanted.version ? `${wanted.name} ${wanted.version}` : wanted.name;
    return `${missing}, the package manager ${declared}, is not in the registry: put ${onPath} on PATH, ${leaveOut}`;
  }
  const way = side === "base" ? `pick a --base whose dependencies still resolve, ${leaveOut}` : "fix head's dependencies";
  return `${missing}, which ${side} depends on, is not in the registry: ${way}`;
}

export async function installDependencies(side: SideTree, argv: string[]): Promise<void> {
  const wanted = wantedManager(managerFacts(side.root));
  await runSetupStep(side, `install (${argv.join(" ")})`, argv, (output) => explainInstall(side.side, argv, wanted, output));
}

/** `sh: 1: shx: not found` (dash), `sh: shx: command not found` (bash): a shell that found no such program. */
export function programNotFound(output: string): string | undefined {
  return /^(?:\S*sh: (?:line )?(?:\d+: )?)?[^\s:]+: (?:command )?not found$/m.exec(output)?.[0].trim();
}

/** What a side's build had of dependencies: `--install`, whether it is the working tree, whether head has a node_modules. */
export interface BuildSetting {
  install: boolean;
  workingTree: boolean;
  headHasModules: boolean;
}

/**
 * The one line for a build that failed because a program it runs is not there: a worktree runs
 * with head's node_modules linked unless `--install`, and the working tree is as it is.
 */
export function explainBuild(side: Side, setting: BuildSetting, output: string | undefined): string | undefined {
  const notFound = programNotFound(output ?? "");
  if (!notFound) return undefined;
  if (setting.workingTree) {
    return setting.headHasModules
      ? `${notFound}: the program is neither in the working tree's node_modules nor on PATH`
      : `${notFound}: the working tree has no node_modules: install its dependencies first`;
  }
  if (!setting.install) {
    const linked = setting.headHasModules ? "head's node_modules, linked, which lack it" : "head's node_modules, and head has none";
    return `${notFound}: ${side} runs with ${linked}; add --install so that each side installs its own dependencies before the build`;
  }
  return `${notFound}: the program is neither in ${side}'s installed dependencies nor on PATH`;
}

/** The build runs the side's own scripts: it gets the environment bench processes get, without secrets. */
export function buildSide(side: SideTree, command: string, explain?: (output: string | undefined) => string | undefined): Promise<void> {
  return runSetupStep(side, `build (${command})`, ["sh", "-c", command], explain, codeEnv());
}
