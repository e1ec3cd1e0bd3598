import { randomBytes } from "node:crypto";
import { readdirSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Temp files beside the config file (the save's `config.json.tmp-*`, the lock's
 * `config.json.lock.tmp-*`, a backup's `config.json.corrupt-*.tmp-*`) are named
 * `<target>.tmp-<pid>-<random>`: unique without relying on the pid (reused after a crash,
 * fixed in containers), and still telling whose they are, so a crashed owner's can be removed.
 */
export function tempName(target: string): string {
  return `${target}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
}

const TEMP = /\.tmp-(\d+)-[0-9a-z]+$/;

/** When this process started, in ms since the epoch. */
const STARTED_MS = Date.now() - process.uptime() * 1000;

function ownerGone(pid: number, file: string): boolean {
  if (pid === process.pid) {
    // Our pid: a file from before we started is a previous holder's of the same pid.
    try {
      return statSync(file).mtimeMs < STARTED_MS;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Removes the temp files of `path` (any of the kinds above, and the older `tmp-<pid>-<n>`)
 * whose writer is dead; a live writer's are left alone. Returns the names removed.
 */
export function removeDeadTemps(path: string): string[] {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = name.startsWith(prefix) ? TEMP.exec(name) : null;
    if (!match) continue;
    const file = join(dirname(path), name);
    if (!ownerGone(Number(match[1]), file)) continue;
    try {
      unlinkSync(file);
      removed.push(name);
    } catch {
      // removed by another process meanwhile
    }
  }
  return removed;
}
