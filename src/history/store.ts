/**
 * The history's store: a ref of its own, `refs/xbench/history`, whose tree holds one
 * `<sha>.json` per recorded commit. Written with git plumbing only (hash-object, mktree,
 * commit-tree, update-ref with the old value), so two recorders in one clone never lose each
 * other's entry, and nothing lives outside the repository. Pushing races other runners: a
 * rejected push fetches theirs, merges the two trees and tries again (docs/history.md).
 */
import { spawnSync } from "node:child_process";
import { XbenchError } from "../errors.ts";
import { git, gitArgs, GitError, isAncestor } from "../git/git.ts";
import { entryName, newerEntry, parseEntry, type HistoryEntry } from "./entry.ts";

export const HISTORY_REF = "refs/xbench/history";
/** Where a fetched remote history lands before it is merged into HISTORY_REF. */
const FETCHED_REF = "refs/xbench/fetched-history";
const ZERO = "0000000000000000000000000000000000000000";
/** Tries of a compare-and-swap or a push before giving up: each lost race means another writer made progress. */
const TRIES = 8;

/**
 * git's reason for a failure in one line: its first `fatal:` or `error:` line (the lines after
 * it are advice, such as "Please make sure you have the correct access rights"), else its last.
 */
export function gitReason(stderr: string): string {
  const lines = stderr
    .trim()
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const first = lines.find((line) => /^(fatal|error):/.test(line));
  return (first ?? lines.pop() ?? "").replace(/^(fatal|error):\s*/, "");
}

/** Checks that the history ref, where there is one, is a history (before a record measures anything). */
export function checkHistoryRef(root: string): void {
  refCommit(root, HISTORY_REF);
}

/** One line of `git ls-tree`: a blob's id under its file name. */
export interface TreeFile {
  name: string;
  blob: string;
}

/**
 * The commit a ref names, or undefined when it does not exist. A ref that names something
 * else (a blob, a tree) is no history xbench wrote: one line saying so, not "nothing recorded".
 */
function refCommit(root: string, ref: string): string | undefined {
  const commit = git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { allowFail: true });
  if (commit) return commit;
  const object = git(root, ["rev-parse", "--verify", "--quiet", ref], { allowFail: true });
  if (!object) return undefined;
  const type = git(root, ["cat-file", "-t", object], { allowFail: true }) || "object";
  throw new GitError(
    `${ref} names a ${type} (${object.slice(0, 12)}), not a commit: it is no history xbench wrote; move it aside with git update-ref -d ${ref}`,
  );
}

function treeFiles(root: string, commit: string | undefined): TreeFile[] {
  if (!commit) return [];
  return git(root, ["ls-tree", "-z", commit])
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const [meta, name] = line.split("\t") as [string, string];
      return { name, blob: meta.split(" ")[2]! };
    });
}

/** The text of many blobs in one `git cat-file --batch`. */
function readBlobs(root: string, blobs: string[]): Map<string, string> {
  const texts = new Map<string, string>();
  if (blobs.length === 0) return texts;
  const out = spawnSync("git", gitArgs(["cat-file", "--batch"]), {
    cwd: root,
    input: `${blobs.join("\n")}\n`,
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (out.status !== 0) throw new GitError(`git cat-file failed: ${String(out.stderr).trim()}`);
  const buffer = out.stdout as Buffer;
  let at = 0;
  for (const blob of blobs) {
    const headerEnd = buffer.indexOf(10, at);
    const [, , size] = buffer.subarray(at, headerEnd).toString("utf8").split(" ");
    const start = headerEnd + 1;
    const end = start + Number(size);
    texts.set(blob, buffer.subarray(start, end).toString("utf8"));
    at = end + 1;
  }
  return texts;
}

/**
 * Every entry under `ref` (HISTORY_REF by default), by commit; empty when nothing was recorded.
 * An entry that cannot be read (not JSON, not an entry) is left out, a gap in the history, and
 * told to `onUnreadable`: one bad file does not hide the rest.
 */
export function readHistory(root: string, ref = HISTORY_REF, onUnreadable: (why: string) => void = () => {}): Map<string, HistoryEntry> {
  const files = treeFiles(root, refCommit(root, ref)).filter((file) => file.name.endsWith(".json"));
  const texts = readBlobs(
    root,
    files.map((file) => file.blob),
  );
  const entries = new Map<string, HistoryEntry>();
  for (const file of files) {
    try {
      const entry = parseEntry(texts.get(file.blob)!, `${ref}:${file.name}`);
      entries.set(entry.commit, entry);
    } catch (error) {
      if (!(error instanceof XbenchError)) throw error;
      onUnreadable(`${error.message}: read as a gap`);
    }
  }
  return entries;
}

/**
 * The union of two trees' files; a name in both keeps `pick`'s choice (the newer recording).
 * Sorted by name, as a tree lists them.
 */
export function unionFiles(ours: TreeFile[], theirs: TreeFile[], pick: (a: TreeFile, b: TreeFile) => TreeFile): TreeFile[] {
  const byName = new Map(ours.map((file) => [file.name, file]));
  for (const file of theirs) {
    const mine = byName.get(file.name);
    byName.set(file.name, !mine || mine.blob === file.blob ? file : pick(mine, file));
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `git mktree` input for blobs under their names. */
export function mktreeInput(files: TreeFile[]): string {
  return files.map((file) => `100644 blob ${file.blob}\t${file.name}\n`).join("");
}

/** A commit of `files` on top of `parents`; its tree made with mktree. */
function commitFiles(root: string, files: TreeFile[], parents: string[], message: string): string {
  const tree = git(root, ["mktree", "-z"], { input: mktreeInput(files).replaceAll("\n", "\0") });
  // The ref is written by a machine, often a CI runner with no git identity configured.
  const identity = ["-c", "user.name=xbench", "-c", "user.email=xbench@users.noreply.github.com"];
  return git(root, [...identity, "commit-tree", tree, ...parents.flatMap((p) => ["-p", p]), "-m", message], { input: "" });
}

/** Moves `ref` from `old` (undefined: it must not exist) to `commit`; false when another writer moved it first. */
function swapRef(root: string, ref: string, commit: string, old: string | undefined): boolean {
  const result = spawnSync("git", gitArgs(["update-ref", ref, commit, old ?? ZERO]), { cwd: root, encoding: "utf8" });
  return result.status === 0;
}

/** Picks the newer of two stored recordings of one commit. */
function newerFile(root: string): (a: TreeFile, b: TreeFile) => TreeFile {
  return (a, b) => {
    const texts = readBlobs(root, [a.blob, b.blob]);
    const read = (file: TreeFile) => {
      try {
        return parseEntry(texts.get(file.blob)!, file.name);
      } catch {
        return undefined; // an unreadable recording gives way to a readable one
      }
    };
    const [entryA, entryB] = [read(a), read(b)];
    if (!entryA || !entryB) return entryA || !entryB ? a : b;
    return newerEntry(entryA, entryB) === entryA ? a : b;
  };
}

/** Adds (or replaces) one entry in the local history; retried while other local writers move the ref. */
export function storeEntry(root: string, entry: HistoryEntry): string {
  const blob = git(root, ["hash-object", "-w", "--stdin"], { input: `${JSON.stringify(entry, null, 2)}\n` });
  const mine: TreeFile = { name: entryName(entry.commit), blob };
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const old = refCommit(root, HISTORY_REF);
    // The stored one stays when it is newer: a slow recorder does not overwrite a later one.
    const files = unionFiles(treeFiles(root, old), [mine], newerFile(root));
    const commit = commitFiles(root, files, old ? [old] : [], `xbench history: ${entry.commit.slice(0, 12)}`);
    if (swapRef(root, HISTORY_REF, commit, old)) return commit;
  }
  throw new GitError(`${HISTORY_REF} kept moving under ${TRIES} tries to record ${entry.commit.slice(0, 12)}`);
}

/**
 * Joins `other` (a commit of another history) into the local one: the union of their files,
 * the newer recording of a commit kept, as a merge commit. Returns false when the local ref
 * moved meanwhile (the caller tries again).
 */
function mergeHistory(root: string, other: string): boolean {
  const old = refCommit(root, HISTORY_REF);
  if (old === other) return true;
  // Theirs is already part of ours: nothing to join.
  if (old && isAncestor(root, other, old)) return true;
  if (!old || isAncestor(root, old, other)) return swapRef(root, HISTORY_REF, other, old);
  const files = unionFiles(treeFiles(root, old), treeFiles(root, other), newerFile(root));
  const commit = commitFiles(root, files, [old, other], "xbench history: merge");
  return swapRef(root, HISTORY_REF, commit, old);
}

/** Fetches `remote`'s history and merges it into the local one; false when the remote has none. */
export function fetchHistory(root: string, remote: string): boolean {
  const fetched = spawnSync("git", gitArgs(["fetch", "--quiet", "--no-tags", remote, `+${HISTORY_REF}:${FETCHED_REF}`]), {
    cwd: root,
    encoding: "utf8",
  });
  if (fetched.status !== 0) {
    // A remote without the ref yet is the first recording; any other failure is the user's to see.
    if (/couldn't find remote ref|no such ref/i.test(fetched.stderr)) return false;
    throw new GitError(`git fetch ${remote} failed: ${gitReason(fetched.stderr)}`);
  }
  const other = refCommit(root, FETCHED_REF)!;
  for (let attempt = 0; attempt < TRIES; attempt++) if (mergeHistory(root, other)) return true;
  throw new GitError(`${HISTORY_REF} kept moving under ${TRIES} tries to merge ${remote}'s history`);
}

/**
 * Why a push failed, from git's stderr. Only a lost race is retried: another recorder's push came
 * first (rejected as not a fast-forward), or was being written as this one arrived (the remote
 * could not lock or update the ref: `[remote rejected] … (failed to update ref)`). A remote that
 * refuses the push (a hook, a protected ref, no access) would refuse it every time.
 */
export function pushFailure(stderr: string): { kind: "race" } | { kind: "refused"; why: string } | { kind: "other" } {
  const rejected = /\[remote rejected\][^\n]*/i.exec(stderr)?.[0];
  const locked = rejected !== undefined && /\((failed to update ref|cannot lock ref[^)]*|incorrect old value provided)\)/i.test(rejected);
  const refused = locked ? undefined : (rejected ?? /remote: [^\n]*(declined|denied|protected)[^\n]*/i.exec(stderr)?.[0]);
  if (refused) return { kind: "refused", why: refused.replace(/^\s*!\s*/, "").trim() };
  if (locked || /\[rejected\]|non-fast-forward|fetch first|failed to update ref|cannot lock ref/i.test(stderr)) return { kind: "race" };
  return { kind: "other" };
}

/**
 * Pushes the local history to `remote`. A push the remote rejects (another runner pushed first)
 * fetches theirs, merges, and pushes again; returns the number of merges it took.
 */
export function pushHistory(root: string, remote: string): number {
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const pushed = spawnSync("git", gitArgs(["push", "--quiet", "--no-verify", remote, `${HISTORY_REF}:${HISTORY_REF}`]), {
      cwd: root,
      encoding: "utf8",
    });
    if (pushed.status === 0) return attempt;
    const failure = pushFailure(pushed.stderr);
    if (failure.kind !== "race")
      throw new GitError(`git push ${remote} failed: ${failure.kind === "refused" ? failure.why : gitReason(pushed.stderr)}`);
    fetchHistory(root, remote);
  }
  throw new GitError(`git push ${remote}: rejected ${TRIES} times (other recorders kept pushing); run xbench history record --push again`);
}
