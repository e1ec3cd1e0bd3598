/**
 * One xbench at a time per run folder: two `--resume` of one folder would each run the
 * missing rounds and append them twice. The lock file names its owner (pid, process start,
 * pid namespace); a lock whose owner is gone (SIGKILL, power loss) is taken over.
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { XbenchError } from "../../errors.ts";
import { ownerAlive, thisProcess, type RunOwner } from "./owner.ts";
import { inRunFolder } from "./run-write.ts";

/** A run folder that cannot be used: not a run this version can continue, or in use. */
export class RunFolderError extends XbenchError {
  override name = "RunFolderError";
}

const LOCK = "lock";
type LockOwner = Pick<RunOwner, "pid" | "start" | "space">;

/** Locks this process holds, released when it exits (every path: return, throw, signal). */
const held = new Set<string>();

function releaseHeld(): void {
  for (const path of held) {
    if (readLock(path)?.pid === process.pid) rmSync(path, { force: true });
  }
  held.clear();
}

function readLock(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, "utf8")) as LockOwner;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : undefined;
  } catch {
    return undefined;
  }
}

const sameOwner = (a: LockOwner | undefined, b: LockOwner | undefined) => !!a && !!b && a.pid === b.pid && a.start === b.start;

/**
 * Moves a dead owner's lock aside. Another process may have done the same and taken the lock
 * in between: a live lock moved by mistake is put back, and the folder is in use after all.
 */
function takeOver(path: string, dead: LockOwner | undefined, dir: string): void {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // already gone: try again
  }
  const moved = readLock(aside);
  if (moved && !sameOwner(moved, dead) && ownerAlive(moved)) {
    try {
      linkSync(aside, path);
    } catch {
      // someone else holds it now: refused either way
    }
    rmSync(aside, { force: true });
    throw inUse(dir, moved);
  }
  rmSync(aside, { force: true });
}

function inUse(dir: string, owner: LockOwner): RunFolderError {
  return new RunFolderError(`run folder ${dir} in use by pid ${owner.pid}`, { kind: "usage" });
}

/**
 * Takes the run folder `dir` for this process until it exits, or fails in one line naming
 * the process that holds it. The lock is written whole beside it and linked into place, so a
 * reader never sees half of one. `resumable`: the folder already holds a plan to go on from.
 */
export function lockRunFolder(dir: string, resumable = false): void {
  const path = join(dir, LOCK);
  if (held.has(path)) return;
  const me: LockOwner = thisProcess();
  const mine = join(dir, `.lock-${process.pid}`);
  inRunFolder(dir, mine, () => writeFileSync(mine, `${JSON.stringify(me)}\n`), resumable);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 5) throw error;
      }
      const holder = readLock(path);
      if (holder && ownerAlive(holder)) throw inUse(dir, holder);
      takeOver(path, holder, dir);
    }
  } finally {
    rmSync(mine, { force: true });
  }
  if (held.size === 0) process.on("exit", releaseHeld);
  held.add(path);
}
