/**
 * What a compare leaves behind when it cannot clean up (SIGKILL, power loss): its temp folder
 * with the side worktrees, and bundle folders in node_modules/.cache/xbench. Each run writes
 * its owner (pid and process start time) into its temp folder and lists the folders it made
 * outside it; a later compare or --resume removes everything whose owner is gone.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "pathe";
import { XbenchError } from "../../errors.ts";
import { git } from "../../git/git.ts";
import { diskFull, ioReason } from "../../util/atomic-write.ts";
import type { Cleanup } from "../../util/scope.ts";
import { ignoreEvents, type OnCompareEvent } from "../events.ts";
import { ownerAlive, thisProcess, type RunOwner } from "./owner.ts";

/** Temp folders of runs that hold worktrees; only these are ever reclaimed. */
export const RUN_TEMP_PREFIXES = ["xbench-compare-", "xbench-tracer-compare-"] as const;
const OWNER = "owner.json";
const OWNED = "owned.ndjson";

/** One folder a run made outside its temp folder, with the parents it created for it. */
interface OwnedPath {
  path: string;
  created: string[];
}

function readOwner(dir: string): RunOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(join(dir, OWNER), "utf8")) as RunOwner;
    return Number.isInteger(owner.pid) && owner.pid > 0 && typeof owner.repo === "string" ? owner : undefined;
  } catch {
    return undefined; // not written yet, or not ours: never touched
  }
}

function readOwned(dir: string): OwnedPath[] {
  try {
    return readFileSync(join(dir, OWNED), "utf8")
      .split("\n")
      .filter(Boolean)
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as OwnedPath];
        } catch {
          return []; // torn last line: that folder was not created yet
        }
      });
  } catch {
    return [];
  }
}

/** A write into a run's temp folder; a failure (a full TMPDIR) names the file and where room is needed. */
function inTemp(path: string, write: () => void): void {
  try {
    write();
  } catch (error) {
    const why = ioReason(error);
    if (!why) throw error;
    const room = diskFull(error) ? `; free some space in TMPDIR (${tmpdir()}), or set TMPDIR to a folder with room` : "";
    throw new XbenchError(`cannot write ${path}: ${why}${room}`);
  }
}

/** Removes `path`, then those of `created` (innermost first) that are empty now. */
function removeOwned({ path, created }: OwnedPath): void {
  rmSync(path, { recursive: true, force: true });
  for (const dir of created) {
    try {
      rmdirSync(dir);
    } catch {
      // not empty (another run's bundles, or something of the user's): keep it
    }
  }
}

/**
 * Records `path` (a folder about to be created outside the run's temp folder) so that it is
 * removed on every exit path, with the parents this run creates for it when they are empty
 * then, and by a later run if this one is killed.
 */
export function ownPath(tmp: string, path: string, cleanup: Cleanup, stopAt = dirname(dirname(dirname(path)))): void {
  const created: string[] = [];
  for (let dir = dirname(path); dir.startsWith(`${stopAt}/`) && !existsSync(dir); dir = dirname(dir)) created.push(dir);
  const owned = { path, created };
  const list = join(tmp, OWNED);
  inTemp(list, () => appendFileSync(list, `${JSON.stringify(owned)}\n`));
  cleanup.add(() => removeOwned(owned));
}

/** Removes one dead run's worktrees (through its repository, so git forgets them too) and folders. */
function reclaimRun(dir: string, owner: RunOwner): number {
  // Every worktree in it: a compare's base and head, a bisect's commit-<sha> folders (one killed
  // while git was still creating it has no .git file yet), and any other folder holding one.
  // Listed before the owned folders go: removing those can take a worktree's folder with them.
  const trees = readdirSync(dir)
    .filter((name) => name === "base" || name === "head" || name.startsWith("commit-") || existsSync(join(dir, name, ".git")))
    .map((name) => join(dir, name));
  // Owned folders first: base reaches head's node_modules through a link inside its worktree.
  for (const owned of readOwned(dir).reverse()) removeOwned(owned);
  for (const tree of trees)
    if (existsSync(owner.repo)) git(owner.repo, ["worktree", "remove", "--force", "--force", tree], { allowFail: true });
  rmSync(dir, { recursive: true, force: true });
  if (existsSync(owner.repo)) git(owner.repo, ["worktree", "prune"], { allowFail: true });
  return trees.length;
}

/** Reclaims every run whose owner is gone, and reports what it removed. */
export function reclaimDeadRuns(root = tmpdir(), onEvent: OnCompareEvent = ignoreEvents): { runs: number; worktrees: number } {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return { runs: 0, worktrees: 0 };
  }
  const pids: number[] = [];
  let worktrees = 0;
  for (const name of entries) {
    if (!RUN_TEMP_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const dir = join(root, name);
    const owner = readOwner(dir);
    if (!owner || ownerAlive(owner)) continue;
    worktrees += reclaimRun(dir, owner);
    pids.push(owner.pid);
  }
  if (pids.length > 0) onEvent({ type: "reclaimed", pids, worktrees });
  return { runs: pids.length, worktrees };
}

/**
 * The temp folder of a new run (outside the repository), owned by this process and removed on
 * every exit path; first reclaims what dead runs left behind.
 */
export function makeRunTemp(prefix: (typeof RUN_TEMP_PREFIXES)[number], repo: string, cleanup: Cleanup, onEvent: OnCompareEvent): string {
  reclaimDeadRuns(tmpdir(), onEvent);
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  cleanup.add(() => rmSync(tmp, { recursive: true, force: true }));
  const owner: RunOwner = { ...thisProcess(), repo };
  const file = join(tmp, OWNER);
  inTemp(file, () => writeFileSync(file, `${JSON.stringify(owner)}\n`));
  return tmp;
}
