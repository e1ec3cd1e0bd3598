/**
 * A bench process that runs far longer than a round should is said while it runs, so a hung
 * benchmark is never only a progress line that stopped moving (docs/reliability.md).
 */
import type { OnCompareEvent } from "../events.ts";

/**
 * After this share of its timeout, a process still running is named (at least 3 s, at most 60 s);
 * a counted one runs tens of times slower than a timed one, so a quarter of its timeout, uncapped.
 */
export function stuckAfterMs(timeoutMs: number, counted = false): number {
  return Math.min(counted ? Number.POSITIVE_INFINITY : 60_000, Math.max(3_000, timeoutMs / 4));
}

/** Runs `work` and, once it has run `stuckAfterMs(timeoutMs, counted)`, reports the files it measures as running long. */
export async function watched<T>(
  work: Promise<T>,
  files: string[],
  timeoutMs: number,
  onEvent: OnCompareEvent,
  counted = false,
): Promise<T> {
  const after = stuckAfterMs(timeoutMs, counted);
  const timer = setTimeout(
    () => onEvent({ type: "running-long", files, seconds: Math.round(after / 1000), timeoutS: Math.round(timeoutMs / 1000) }),
    after,
  );
  timer.unref?.();
  try {
    return await work;
  } finally {
    clearTimeout(timer);
  }
}
