import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "pathe";
import { XbenchError } from "../errors.ts";
import { failureTail } from "../util/text.ts";
import { addWorktree, git, removeWorktree, submoduleCommits } from "../git/git.ts";
import { runToEnd } from "../runner/spawn.ts";
import type { Side } from "../model/result.ts";
import type { Cleanup } from "../util/scope.ts";
import type { OnCompareEvent } from "./events.ts";
import type { RunPlan } from "./store.ts";

/** One side of a compare, ready to bundle and run. */
export interface SideTree {
  side: Side;
  /** Folder the side's files are in: a temporary worktree, or the repository itself for a dirty head. */
  root: string;
  sha: string;
}

/**
 * Checks `sha` out into `<tmp>/<folder>` (the side's name unless bisect names one per commit)
 * as a detached worktree and registers its removal. The temp folder sits outside the
 * repository so tools that walk the repo never see it.
 */
export function checkoutSide(
  repo: string,
  tmp: string,
  side: Side,
  sha: string,
  cleanup: Cleanup,
  onEvent: OnCompareEvent,
  folder: string = side,
): SideTree {
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
      git(target, ["clone", "--quiet", "--shared", "--no-checkout", from, to]);
      git(to, ["checkout", "--quiet", "--detach", sha]);
    } catch {
      onEvent({ type: "submodule-empty", side, path: name, why: "commit-missing", sha });
      continue;
    }
    initSubmodules(from, to, side, onEvent, `${name}/`);
  }
}

/** Head: a worktree of `--head REF`, or the repository itself (working tree, edits included). */
export function checkoutHead(
  repo: string,
  tmp: string,
  sha: string,
  headRef: string | undefined,
  cleanup: Cleanup,
  onEvent: OnCompareEvent,
): SideTree {
  return headRef ? checkoutSide(repo, tmp, "head", sha, cleanup, onEvent) : { side: "head", root: repo, sha };
}

/**
 * Head's bench files replace base's, so a benchmark added by the change measures base too;
 * whatever a bench file imports still comes from its own side. Named bench files that head
 * (`--head REF`) lacks come from the working tree first: a wrapper the user has not committed.
 */
export function copyBenchFiles(plan: Pick<RunPlan, "repo" | "files" | "fromWorkingTree">, from: string, to: string): void {
  const copy = (file: string, source: string, target: string) => {
    if (source === target) return;
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(source, file), join(target, file));
  };
  for (const file of plan.fromWorkingTree ?? []) copy(file, plan.repo, from);
  for (const file of plan.files) copy(file, from, to);
}

/** Repo-relative folders from a bench file's folder up to the root (`a/b/x.bench.ts` → `a/b`, `a`, ``). */
export function ancestors(file: string): string[] {
  const parts = file.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, parts.length - i).join("/")).concat("");
}

/**
 * A worktree has no node_modules of its own: link head's, at the root and in every folder
 * between a bench file and the root (workspace packages), unless `--install` asked for a
 * real install.
 */
export function linkDependencies(headRoot: string, side: SideTree, files: string[] = []): void {
  if (side.root === headRoot) return;
  const folders = new Set(["", ...files.flatMap(ancestors)]);
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

/** The install command for the lockfile a side carries. */
export function installCommand(root: string): string[] | undefined {
  if (existsSync(join(root, "bun.lock")) || existsSync(join(root, "bun.lockb"))) return ["bun", "install", "--frozen-lockfile"];
  if (existsSync(join(root, "pnpm-lock.yaml"))) return ["pnpm", "install", "--frozen-lockfile"];
  if (existsSync(join(root, "yarn.lock"))) return ["yarn", "install", "--frozen-lockfile"];
  if (existsSync(join(root, "package-lock.json"))) return ["npm", "ci", "--no-audit", "--no-fund"];
  if (existsSync(join(root, "package.json"))) return ["npm", "install", "--no-audit", "--no-fund"];
  return undefined;
}

/** `pnpm@9.1.0` from a side's package.json, when it pins its package manager. */
export function pinnedPackageManager(root: string): string | undefined {
  try {
    const pm = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { packageManager?: unknown }).packageManager;
    return typeof pm === "string" ? pm : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs a setup step (install or build) in a side; a failure names the side and shows the tail
 * of its output. Asynchronous, and tracked like a bench process, so a Ctrl-C stops it at once
 * (the signal handler ends its tree) instead of waiting for it to finish.
 */
export async function runSetupStep(side: SideTree, what: string, argv: string[], hint?: string): Promise<void> {
  const result = await runToEnd(argv, { cwd: side.root, env: { ...process.env, XBENCH_SIDE: side.side } });
  const tail = hint ? `\nhint: ${hint}` : "";
  if (result.error) {
    const missing = /: (command not found|.*\bENOENT\b.*)$/.test(result.error);
    const reason = missing ? `${argv[0]}: command not found` : result.error;
    throw new XbenchError(`${what} failed on ${side.side} (${side.sha.slice(0, 12)}): ${reason}${tail}`);
  }
  if (result.code !== 0) {
    const output = failureTail(`${result.stdout}\n${result.stderr}`, 15);
    throw new XbenchError(
      `${what} failed on ${side.side} (${side.sha.slice(0, 12)}, exit ${result.code ?? result.signal}):\n${output}${tail}`,
    );
  }
}

export async function installDependencies(side: SideTree): Promise<void> {
  const argv = installCommand(side.root);
  if (!argv) return;
  const pinned = pinnedPackageManager(side.root);
  // A pin (packageManager) makes pnpm and yarn refuse to run as another version; corepack runs
  // the pinned one. Without --install, both sides link head's node_modules and need no install.
  const hint = pinned
    ? `package.json pins ${pinned}; run \`corepack enable\` so \`${pinned.split("@")[0]}\` on PATH is that version, or drop --install to link head's node_modules`
    : undefined;
  await runSetupStep(side, `install (${argv.join(" ")})`, argv, hint);
}

export function buildSide(side: SideTree, command: string): Promise<void> {
  return runSetupStep(side, `build (${command})`, ["sh", "-c", command]);
}
