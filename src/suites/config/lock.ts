import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";

/**
 * Edits are serialized twice: in-process by a FIFO queue (so two edits of one store never
 * interleave their read-transform-save), and across processes by a lock file created with
 * O_EXCL beside the config file.
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
  /** A lock file older than this whose owner cannot be confirmed alive is taken over. */
  staleMs?: number;
}

export class LockTimeoutError extends Error {
  override name = "LockTimeoutError";
}

type Owner = "alive" | "dead" | "unknown";

function owner(lockPath: string): Owner {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
  } catch {
    return "unknown";
  }
  if (!Number.isInteger(pid) || pid <= 0) return "unknown"; // created, pid not written yet
  try {
    process.kill(pid, 0);
    return "alive";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? "alive" : "dead";
  }
}

function tryCreate(lockPath: string): boolean {
  try {
    const fd = openSync(lockPath, "wx");
    try {
      writeSync(fd, String(process.pid));
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Removes `lockPath` if its owner is gone. Waiters serialize this through a second lock
 * file, and re-read the owner while holding it: otherwise two waiters could judge the same
 * dead lock, and the slower one would remove the lock the faster one had just created.
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
    const age = Date.now() - statSync(lockPath).mtimeMs;
    const state = owner(lockPath);
    // Take over only when the owner is gone, or when no owner was ever recorded and the file is old.
    if (state === "dead" || (state === "unknown" && age > staleMs)) unlinkSync(lockPath);
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
