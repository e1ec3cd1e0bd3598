/**
 * A bench process killed by a signal xbench did not send (the OOM killer, a `kill -9` from
 * outside) says nothing about the benchmark: run once more, its round is measured like the
 * others instead of failing the row for the whole run (docs/reliability.md).
 */
import { type BenchOutcome, stoppingChildren } from "./spawn.ts";

const KILLED = /^killed by SIG(KILL|TERM|HUP|INT)\b/;

/** Whether `outcome` is a process ended by a signal from outside: no timeout of xbench's, no stop of the run. */
export function killedFromOutside(outcome: BenchOutcome): boolean {
  return !outcome.timedOut && KILLED.test(outcome.error ?? "") && !stoppingChildren();
}

/** Runs `start`, and once more when the process was killed from outside; the wall time is both processes'. */
export async function retriedOnce(start: () => Promise<BenchOutcome>): Promise<BenchOutcome> {
  const first = await start();
  if (!killedFromOutside(first)) return first;
  const second = await start();
  return { ...second, wallMs: first.wallMs + second.wallMs };
}
