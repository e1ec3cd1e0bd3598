import { copyFileSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "pathe";
import { XbenchError } from "../cli/errors.ts";
import { lastLines } from "../util/text.ts";
import { addWorktree, removeWorktree } from "../git/git.ts";
import { runToEnd } from "../runner/spawn.ts";
import type { Side } from "../report/model.ts";
import type { Cleanup } from "./cleanup.ts";

/** One side of a compare, ready to bundle and run. */
export interface SideTree {
  side: Side;
  /** Folder the side's files are in: a temporary worktree, or the repository itself for a dirty head. */
  root: string;
  sha: string;
}

/**
 * Checks `sha` out into `<tmp>/<side>` as a detached worktree and registers its removal.
 * The temp folder sits outside the repository so tools that walk the repo never see it.
 */
export function checkoutSide(repo: string, tmp: string, side: Side, sha: string, cleanup: Cleanup): SideTree {
  const root = join(tmp, side);
  cleanup.add(() => removeWorktree(repo, root));
  addWorktree(repo, root, sha);
  return { side, root, sha };
}

/** Head: a worktree of `--head REF`, or the repository itself (working tree, edits included). */
export function checkoutHead(repo: string, tmp: string, sha: string, headRef: string | undefined, cleanup: Cleanup): SideTree {
  return headRef ? checkoutSide(repo, tmp, "head", sha, cleanup) : { side: "head", root: repo, sha };
}

/**
 * Head's bench files replace base's, so a benchmark added by the change measures base too;
 * whatever a bench file imports still comes from its own side.
 */
export function copyBenchFiles(files: string[], from: string, to: string): void {
  for (const file of files) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(from, file), join(to, file));
  }
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

/**
 * Runs a setup step (install or build) in a side; a failure names the side and shows the tail
 * of its output. Asynchronous, and tracked like a bench process, so a Ctrl-C stops it at once
 * (the signal handler ends its tree) instead of waiting for it to finish.
 */
export async function runSetupStep(side: SideTree, what: string, argv: string[]): Promise<void> {
  const result = await runToEnd(argv, { cwd: side.root, env: { ...process.env, XBENCH_SIDE: side.side } });
  if (result.error) throw new XbenchError(`${what} failed on ${side.side}: ${result.error}`);
  if (result.code !== 0) {
    const output = lastLines(`${result.stdout}\n${result.stderr}`, 15);
    throw new XbenchError(
      `${what} failed on ${side.side} (${side.sha.slice(0, 12)}, exit ${result.code ?? result.signal}):\n${output}`,
    );
  }
}

export async function installDependencies(side: SideTree): Promise<void> {
  const argv = installCommand(side.root);
  if (argv) await runSetupStep(side, `install (${argv.join(" ")})`, argv);
}

export function buildSide(side: SideTree, command: string): Promise<void> {
  return runSetupStep(side, `build (${command})`, ["sh", "-c", command]);
}
