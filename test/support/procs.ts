import { hasExited } from "../../src/util/proc.ts";

/** Whether `pid` is running; a zombie (exited, not yet reaped) is not. Linux (/proc). */
export function alive(pid: number): boolean {
  return !hasExited(pid);
}
