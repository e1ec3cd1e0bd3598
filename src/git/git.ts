import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { XbenchError } from "../errors.ts";
import { didYouMean } from "../util/suggest.ts";

/** A git command failed, or the repository lacks what was asked of it (a ref, a base). */
export class GitError extends XbenchError {
  override name = "GitError";
}

/**
 * What the repository's configuration may run that none of xbench's git calls need: hooks
 * (post-checkout, reference-transaction…) and the fsmonitor. Each call turns them off
 * (docs/reliability.md, "What is trusted input").
 */
const QUIET_CONFIG = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"];

/** `args` of a git call with the repository's hooks and fsmonitor turned off. */
export function gitArgs(args: string[]): string[] {
  return [...QUIET_CONFIG, ...args];
}

/**
 * Runs git in `cwd` and returns trimmed stdout; a failure throws with git's own message.
 * `input` is written to its stdin (plumbing such as hash-object --stdin and mktree).
 */
export function git(cwd: string, args: string[], options: { allowFail?: boolean; input?: string } = {}): string {
  const result = spawnSync("git", gitArgs(args), { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, input: options.input });
  if (result.error) throw new GitError(`git: ${result.error.message}`);
  if (result.status !== 0) {
    if (options.allowFail) return "";
    const message = (result.stderr || result.stdout || "").trim().split("\n").pop() ?? "";
    throw new GitError(`git ${args[0]} failed: ${message}`);
  }
  return result.stdout.replace(/\n$/, "");
}

export function repoRoot(cwd: string): string {
  const found = spawnSync("git", gitArgs(["rev-parse", "--show-toplevel"]), { cwd, encoding: "utf8" });
  if (found.error) throw new GitError(`git: ${found.error.message}`);
  const root = found.status === 0 ? found.stdout.trim() : "";
  if (root) return root;
  // git refuses a repository another user owns (its safe.directory check): say that, not "no repository".
  const dubious = /detected dubious ownership in repository at '([^']+)'/.exec(found.stderr ?? "");
  if (dubious)
    throw new GitError(
      `git refuses the repository ${dubious[1]}: it is owned by another user (git's safe.directory check); if you trust it, git config --global --add safe.directory ${dubious[1]}`,
      { kind: "usage" },
    );
  // A bare repository is a repository, but has no files to build or bench.
  if (git(cwd, ["rev-parse", "--is-bare-repository"], { allowFail: true }) === "true") {
    throw new GitError(
      `${cwd} is a bare repository (no working tree): run xbench in a clone of it, or in a worktree (git worktree add DIR)`,
      {
        kind: "usage",
      },
    );
  }
  throw new GitError(`not inside a git repository: ${cwd}`, { kind: "usage" });
}

/** A repository with no commit yet, told as such, or undefined when HEAD names a commit. */
function noCommitsYet(root: string): GitError | undefined {
  if (tryResolveCommit(root, "HEAD") || refNames(root).length > 0) return undefined;
  return new GitError(`the repository ${root} has no commits yet: xbench compares commits; commit first (git commit)`, { kind: "usage" });
}

/** For a ref a shallow clone lacks: what the clone is and how to fetch more; else "". */
function shallowHint(root: string): string {
  if (git(root, ["rev-parse", "--is-shallow-repository"], { allowFail: true }) !== "true") return "";
  return " (this clone is shallow: its history stops where it was cloned with --depth; fetch more with git fetch --deepen=N, or all of it with git fetch --unshallow)";
}

/** Whether `commit` is where a shallow clone's history stops (its parents were not fetched). */
export function isShallowEdge(root: string, commit: string): boolean {
  const file = git(root, ["rev-parse", "--path-format=absolute", "--git-path", "shallow"], { allowFail: true });
  if (!file || !existsSync(file)) return false;
  return readFileSync(file, "utf8").split("\n").includes(commit);
}

/** The folder git keeps its own data in (shared by all worktrees). */
export function gitCommonDir(root: string): string {
  return git(root, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
}

/** Full SHA of a commit-ish, or undefined when it does not name a commit. */
export function tryResolveCommit(root: string, ref: string): string | undefined {
  if (ref.startsWith("-")) return undefined;
  return git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], { allowFail: true }) || undefined;
}

export function resolveCommit(root: string, ref: string, what: string): string {
  if (ref.startsWith("-"))
    throw new GitError(`${what} ${ref}: a ref cannot start with "-" (git would read it as an option)`, { kind: "usage" });
  const sha = tryResolveCommit(root, ref);
  if (sha) return sha;
  const empty = noCommitsYet(root);
  if (empty) throw empty;
  // A ref into history (main~5, a sha) may lie beyond a shallow clone's depth; a name is more likely a typo.
  const guess = didYouMean(ref, refNames(root));
  const shallow = /[~^]|^[0-9a-f]{4,40}$/i.test(ref) || !guess ? shallowHint(root) : "";
  const hint = shallow || guess;
  throw new GitError(`${what} ref not found: ${ref}${hint}`, { kind: "usage" });
}

/** Branch, tag and remote-tracking names, for "did you mean" when a ref names nothing. */
export function refNames(root: string): string[] {
  const names = git(root, ["for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags", "refs/remotes"], { allowFail: true });
  return names.split("\n").filter(Boolean);
}

/** The default base: merge-base of HEAD with origin/main, else main, else master. */
export function defaultBase(root: string): { ref: string; sha: string } {
  const empty = noCommitsYet(root);
  if (empty) throw empty;
  for (const candidate of ["origin/main", "main", "master"]) {
    if (!tryResolveCommit(root, candidate)) continue;
    const sha = git(root, ["merge-base", "HEAD", candidate], { allowFail: true });
    if (sha) return { ref: `merge-base(HEAD, ${candidate})`, sha };
  }
  throw new GitError(`no base: none of origin/main, main, master share history with HEAD; pass --base REF${shallowHint(root)}`, {
    kind: "usage",
  });
}

/** What makes a working tree dirty: changed tracked paths and untracked (not ignored) files. */
export interface DirtyPaths {
  changed: string[];
  untracked: string[];
}

export function dirtyPaths(root: string): DirtyPaths {
  const out = git(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  const changed: string[] = [];
  const untracked: string[] = [];
  const entries = out.split("\0");
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.length < 4) continue;
    const path = entry.slice(3);
    if (entry.startsWith("??")) untracked.push(path);
    else changed.push(path);
    if (entry[0] === "R" || entry[0] === "C") i++; // a rename's source path follows as its own entry
  }
  return { changed, untracked };
}

/** Untracked files that are not ignored, repo-relative. */
export function untrackedFiles(root: string): string[] {
  return git(root, ["ls-files", "-z", "--others", "--exclude-standard"]).split("\0").filter(Boolean);
}

/** A file's text at a commit, or undefined when the commit has no such file. */
export function fileAtCommit(root: string, sha: string, path: string): string | undefined {
  const result = spawnSync("git", gitArgs(["cat-file", "blob", `${sha}:${path}`]), {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return result.status === 0 ? result.stdout : undefined;
}

/** Submodules recorded in a checkout's index: path and the commit it pins. */
export function submoduleCommits(root: string): Array<{ path: string; sha: string }> {
  return git(root, ["ls-files", "--stage", "-z"])
    .split("\0")
    .filter((entry) => entry.startsWith("160000 "))
    .map((entry) => {
      const [meta, path] = entry.split("\t") as [string, string];
      return { path, sha: meta.split(" ")[1]! };
    });
}

/** Repo-relative paths of tracked files and of untracked files that are not ignored. */
export function listFiles(root: string): string[] {
  const out = git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"]);
  return out.split("\0").filter(Boolean);
}

/**
 * `-c` settings that turn off every filter driver the configuration of `root` defines (LFS's
 * smudge among them): a checkout for measuring writes the blobs as they are, running nothing
 * of the repository's.
 */
export function noFilters(root: string): string[] {
  const keys = git(root, ["config", "--name-only", "--get-regexp", "^filter\\..*\\.(smudge|process|required)$"], { allowFail: true });
  const drivers = new Set(
    keys
      .split("\n")
      .filter(Boolean)
      .map((key) => key.slice("filter.".length, key.lastIndexOf("."))),
  );
  return [...drivers].flatMap((name) => [
    "-c",
    `filter.${name}.smudge=`,
    "-c",
    `filter.${name}.process=`,
    "-c",
    `filter.${name}.required=false`,
  ]);
}

export function addWorktree(root: string, dir: string, sha: string): void {
  git(root, [...noFilters(root), "worktree", "add", "--detach", "--force", dir, sha]);
}

/** Removes a worktree and its administrative entry; tolerant of a half-created one. */
export function removeWorktree(root: string, dir: string): void {
  git(root, ["worktree", "remove", "--force", "--force", dir], { allowFail: true });
  git(root, ["worktree", "prune"], { allowFail: true });
}

/** A `git bisect` is under way in this worktree (what `git bisect run` runs a command inside). */
export function bisectInProgress(root: string): boolean {
  const marker = git(root, ["rev-parse", "--path-format=absolute", "--git-path", "BISECT_START"], { allowFail: true });
  return marker !== "" && existsSync(marker);
}

/** The commits after `from` up to `to` on `to`'s first-parent line, oldest first, with their subjects. */
export function firstParentPath(root: string, from: string, to: string): Array<{ sha: string; subject: string }> {
  const out = git(root, ["log", "--first-parent", "--reverse", "--format=%H %s", `${from}..${to}`]);
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const space = line.indexOf(" ");
      return space === -1 ? { sha: line, subject: "" } : { sha: line.slice(0, space), subject: line.slice(space + 1) };
    });
}

/** Whether `ancestor` is an ancestor of (or the same commit as) `descendant`. */
export function isAncestor(root: string, ancestor: string, descendant: string): boolean {
  return spawnSync("git", gitArgs(["merge-base", "--is-ancestor", ancestor, descendant]), { cwd: root }).status === 0;
}

/** A commit's subject line. */
export function commitSubject(root: string, sha: string): string {
  return git(root, ["log", "-1", "--format=%s", sha]);
}
