import { readFileSync } from "node:fs";

/** Whether `pid` is running; a zombie (exited, not yet reaped) is not. Linux (/proc). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}
