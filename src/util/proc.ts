import { readFileSync, readlinkSync } from "node:fs";

/** The fields of /proc/<pid>/stat after the command name (state first), or undefined (gone, or no /proc). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** A process's start time (clock ticks since boot; Linux), so a reused pid is not taken for the owner. */
export function processStart(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** True once `pid` has exited; a zombie counts, it runs nothing. Linux only. */
export function hasExited(pid: number): boolean {
  const fields = statFields(pid);
  return !fields || fields[0] === "Z";
}

/**
 * This process's pid namespace and host (`pid:[4026531836]@host`), where /proc shows it: pids
 * recorded by a process elsewhere (a container sharing /tmp) say nothing about liveness here.
 */
export function pidSpace(hostname: string): string | undefined {
  try {
    return `${readlinkSync("/proc/self/ns/pid")}@${hostname}`;
  } catch {
    return undefined;
  }
}
