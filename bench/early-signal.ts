#!/usr/bin/env bun
/**
 * The early-signal race: launches `xbench-supervisor -- sleep 30` and sends SIGTERM 0 to 5 ms
 * after the spawn (the scenario of trace-robust's "first milliseconds" test), RUNS times, with
 * HOGS busy loops beside it. Counts the launches that did not end by SIGTERM (a lost signal
 * leaves the command running: it is killed after 5 s and counted).
 *
 *   bun bench/early-signal.ts [--runs 200] [--hogs 4] [--helpers DIR]
 */
import { spawn } from "node:child_process";
import { loadavg, tmpdir } from "node:os";
import { join } from "pathe";
import mri from "mri";
import { startHogs } from "./hogs.ts";

const args = mri(process.argv.slice(2), { string: ["runs", "hogs", "helpers"] });
const runs = Number(args.runs ?? 200);
const helpers = args.helpers ?? join(import.meta.dir, "..", "dist", "helpers", "linux-x64");
const supervisor = join(helpers, "xbench-supervisor");
const log = join(tmpdir(), `xbench-early-signal-${process.pid}.log`);

/** One launch: how it ended (`SIGTERM` when the signal reached the command). */
async function launch(delayMs: number): Promise<string> {
  const child = spawn(supervisor, ["--backend", "preload", "--log", log, "--", "sleep", "30"], { stdio: "ignore" });
  const ended = new Promise<string>((r) => child.once("exit", (code, sig) => r(sig ?? `exit ${code}`)));
  await new Promise((r) => setTimeout(r, delayMs));
  child.kill("SIGTERM");
  const lost = setTimeout(() => child.kill("SIGKILL"), 5000);
  const how = await ended;
  clearTimeout(lost);
  return how;
}

const hogs = startHogs(Number(args.hogs ?? 4));
const missed = new Map<string, number>();
try {
  console.log(`${supervisor}: ${runs} launches, ${hogs.length} CPU hogs, load ${loadavg()[0]!.toFixed(1)}`);
  for (let i = 0; i < runs; i++) {
    const how = await launch(i % 6);
    if (how !== "SIGTERM") missed.set(how, (missed.get(how) ?? 0) + 1);
  }
} finally {
  for (const hog of hogs) hog.kill("SIGKILL");
}
const lost = [...missed.values()].reduce((a, b) => a + b, 0);
console.log(
  `${lost} of ${runs} not ended by SIGTERM${lost ? ` (${[...missed].map(([k, n]) => `${k}: ${n}`).join(", ")})` : ""}, load ${loadavg()[0]!.toFixed(1)}`,
);
process.exitCode = lost ? 1 : 0;
