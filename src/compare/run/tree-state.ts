/**
 * What the working tree held when a run began, so that `--resume` measures the tree its
 * rounds measured: HEAD's commit and a digest of every file that made the tree differ from it
 * (docs/reliability.md, "Nothing mixed"). A file that appears later and is not tracked (a
 * build's output) is no change of what was measured; an edit of one that was there, or of a
 * tracked file, is.
 */
import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "pathe";
import { dirtyPaths, tryResolveCommit } from "../../git/git.ts";
import { sha256 } from "../../helpers/cache.ts";

export interface TreeState {
  /** HEAD's commit when the run began. */
  head: string;
  /** Each path that differed from HEAD (changed, or untracked and not ignored), by a digest of what it held; `-`: absent. */
  files: Record<string, string>;
}

/** A digest of what `path` holds: its bytes, a link's target, or `-` when it is not there. */
function digest(path: string): string {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return "-";
  if (stat.isSymbolicLink()) return `link:${readlinkSync(path)}`;
  if (!stat.isFile()) return stat.isDirectory() ? "dir" : "other";
  return sha256(readFileSync(path)).slice(0, 16);
}

/** The working tree of `root` as it is now. */
export function treeState(root: string): TreeState {
  const head = tryResolveCommit(root, "HEAD") ?? "";
  const { changed, untracked } = dirtyPaths(root);
  const files: Record<string, string> = {};
  for (const path of [...changed, ...untracked].sort()) files[path] = digest(join(root, path));
  return { head, files };
}

/** How the working tree of `root` differs from `was`, in a few words naming what moved; undefined when it does not. */
export function treeChange(root: string, was: TreeState): string | undefined {
  const head = tryResolveCommit(root, "HEAD") ?? "";
  if (head !== was.head) return `HEAD is ${head.slice(0, 12) || "no commit"}, the run began at ${was.head.slice(0, 12)}`;
  const moved = Object.entries(was.files)
    .filter(([path, held]) => digest(join(root, path)) !== held)
    .map(([path]) => path);
  for (const path of dirtyPaths(root).changed) if (!(path in was.files)) moved.push(path);
  if (moved.length === 0) return undefined;
  const named = moved.slice(0, 3).join(", ");
  return moved.length > 3 ? `${named} and ${moved.length - 3} more changed` : `${named} changed`;
}
