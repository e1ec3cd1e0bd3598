/**
 * Who owns a run folder or a run's temp folder: the process that made it, told apart from a
 * later process that reuses its pid. The lock (lock.ts) and the reclaim of dead runs
 * (reclaim.ts) both ask whether that process still runs.
 */
import { hostname } from "node:os";
import { pidSpace, processStart } from "../../util/proc.ts";

export interface RunOwner {
  pid: number;
  /** Start time of the process (Linux clock ticks since boot): a reused pid is not the owner. */
  start?: string;
  /** Pid namespace and host (Linux): a run from another container or machine is never judged. */
  space?: string;
  repo: string;
}

/** Whether the process that wrote `owner` still runs (a pid reused since is not it). */
export function ownerAlive(owner: Pick<RunOwner, "pid" | "start" | "space">): boolean {
  if (owner.space !== pidSpace(hostname())) return true; // cannot tell: leave it alone
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const start = processStart(owner.pid);
  return owner.start === undefined || start === undefined || start === owner.start;
}

/** This process as an owner: what `ownerAlive` asks about it later. */
export function thisProcess(): Pick<RunOwner, "pid" | "start" | "space"> {
  return { pid: process.pid, start: processStart(process.pid), space: pidSpace(hostname()) };
}
