import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { processStart } from "../../util/proc.ts";
import { tempName } from "./temp.ts";

/**
 * Edits are serialized twice: in-process by a FIFO queue (so two edits of one store never
 * interleave their read-transform-save), and across processes by a lock file created with
 * its owner inside, created atomically beside the config file (see tryCreate).
 */

/** A FIFO of async tasks: each starts when the previous one settled, in call order. */
export function createQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const result = tail.then(task, task);
    tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  };
}

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A takeover guard (see removeIfStale) older than this is left over from a crash and removed. */
  staleMs?: number;
}

export class LockTimeoutError extends Error {
  override name = "LockTimeoutError";
}

/** What a lock file says about its owner: "unreadable" when it cannot say (see tryCreate). */
type Owner = "alive" | "dead" | "unreadable" | "released";

let ownText: string | undefined;

/** `<pid> <start time>`: the start time (Linux) tells a reused pid from the owner. */
function ownerText(): string {
  const start = ownText === undefined ? processStart(process.pid) : undefined;
  return (ownText ??= start ? `${process.pid} ${start}` : String(process.pid));
}

function owner(lockPath: string): Owner {
  let text: string;
  try {
    text = readFileSync(lockPath, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "released" : "unreadable";
  }
  const match = /^(\d+)(?: (\d+))?$/.exec(text.trim());
  const pid = match ? Number(match[1]) : 0;
  if (!match || !Number.isSafeInteger(pid) || pid <= 0) return "unreadable";
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return "dead";
  }
  const start = match[2] === undefined ? undefined : processStart(pid);
  return start !== undefined && start !== match[2] ? "dead" : "alive";
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** File systems without hard links (some FAT and network mounts). */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);

/**
 * Creates the lock file with its owner already inside: the owner is written to a private
 * temp file, which is then hard-linked to the lock path (atomic, fails if it exists). So a
 * lock file is never empty or half-written, even when the disk is full (the write fails
 * before any lock exists), and a lock without a readable owner is garbage, taken over at once.
 * Where links are not supported: O_EXCL, and a failed write removes the lock it created.
 */
function tryCreate(lockPath: string): boolean {
  const temp = tempName(lockPath);
  try {
    writeFileSync(temp, ownerText(), { flag: "wx" });
    linkSync(temp, lockPath);
    return true;
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return false;
    if (!NO_LINKS.has(errnoCode(error) ?? "")) throw error;
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // never created (the write failed)
    }
  }
  return tryCreateExclusive(lockPath);
}

function tryCreateExclusive(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, "wx");
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, ownerText());
  } catch (error) {
    closeSync(fd);
    unlinkSync(lockPath);
    throw error;
  }
  closeSync(fd);
  return true;
}

/**
 * Removes `lockPath` if its owner is dead or cannot be read. Waiters serialize this through a
 * second lock file, and re-read the owner while holding it: otherwise two waiters could judge
 * the same dead lock, and the slower one would remove the lock the faster one had just created.
 */
function removeIfStale(lockPath: string, staleMs: number): void {
  const guard = `${lockPath}.takeover`;
  if (!tryCreate(guard)) {
    // A waiter that crashed while holding the guard (a double failure) must not block forever.
    try {
      if (Date.now() - statSync(guard).mtimeMs > staleMs) unlinkSync(guard);
    } catch {
      // gone already
    }
    return;
  }
  try {
    const state = owner(lockPath);
    if (state === "dead" || state === "unreadable") unlinkSync(lockPath);
  } catch {
    // released meanwhile: nothing to take over
  } finally {
    unlinkSync(guard);
  }
}

/** Takes the cross-process lock; resolves to its release function. */
export async function acquireFileLock(lockPath: string, options: LockOptions = {}): Promise<() => void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  while (!tryCreate(lockPath)) {
    removeIfStale(lockPath, staleMs);
    if (Date.now() > deadline) throw new LockTimeoutError(`could not lock ${lockPath} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 50);
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      unlinkSync(lockPath);
    } catch {
      // removed as stale by someone else; nothing to release
    }
  };
}
