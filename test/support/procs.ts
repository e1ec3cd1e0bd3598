import { hasExited } from "../../src/util/proc.ts";

/** Whether `pid` is running; a zombie (exited, not yet reaped) is not. Linux (/proc). */
export function alive(pid: number): boolean {
  return !hasExited(pid);
}

/** Polls until `ready` holds or the bound (a hang guard, not a timing claim) passes. */
export async function waitFor(ready: () => boolean, boundMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (!ready()) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(20);
  }
  return true;
}
