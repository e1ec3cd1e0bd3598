/** Bench and helper processes end with their whole tree: nothing they start outlives them (docs/reliability.md). */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "pathe";
import { reaperPath, runBenchProcess, runToEnd } from "../../src/runner/spawn.ts";
import { alive } from "../support/procs.ts";
import { tempDir } from "../support/xbench.ts";

let undo: Array<() => void> = [];
afterEach(() => {
  for (const step of undo.reverse()) step();
  undo = [];
  delete process.env.XBENCH_REAPER;
});

function scratch(): string {
  const { dir, cleanup } = tempDir("xbench-spawn-");
  undo.push(cleanup);
  return dir;
}

/** The pid a holder wrote, or undefined when it was killed before it could. */
function holderPid(dir: string): number | undefined {
  return existsSync(join(dir, "holder")) ? Number(readFileSync(join(dir, "holder"), "utf8")) : undefined;
}

function killLater(dir: string): void {
  undo.push(() => {
    const pid = holderPid(dir);
    if (pid !== undefined) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
}

/**
 * A "bench process" that starts a grandchild in its own session holding its stdout and
 * stderr, waits until the holder has written its pid from there, then runs `then`
 * (`exit 0`: it exits at once; `sleep 120`: it hangs).
 */
function leavesHolder(dir: string, then = "exit 0"): string[] {
  return [
    "sh",
    "-c",
    `cd '${dir}'; setsid sh -c 'echo $$ > holder.tmp; mv holder.tmp holder; exec sleep 120' & while [ ! -f holder ]; do sleep 0.01; done; ${then}`,
  ];
}

/** Runs `argv` as a bench process in `dir` with the given timeout; the holder it leaves is killed after the test. */
async function benchIn(dir: string, argv: string[], timeoutMs: number) {
  const outcome = await runBenchProcess({ argv, cwd: dir, env: { PATH: process.env.PATH! }, resultFile: join(dir, "r.json"), timeoutMs });
  killLater(dir);
  return outcome;
}

describe("with the reaper", () => {
  test("the reaper was built (bun build.ts) and is used on Linux", () => {
    expect(reaperPath()).toMatch(/xbench-reaper$/);
  });

  test("a round ends when the bench process exits; a grandchild in its own session holding stdout dies with it", async () => {
    const dir = scratch();
    const outcome = await benchIn(dir, leavesHolder(dir), 60_000);
    expect(outcome).toMatchObject({ error: "exited without finishing its report" });
    expect(alive(holderPid(dir)!)).toBe(false);
  });

  test("a timeout kills the whole tree, own sessions included", async () => {
    const dir = scratch();
    const outcome = await benchIn(dir, leavesHolder(dir, "sleep 120"), 2000);
    expect(outcome).toMatchObject({ error: "timed out after 2 s" });
    expect(alive(holderPid(dir)!)).toBe(false);
  });

  test("a command that cannot start is named, as without the reaper", async () => {
    const done = await runToEnd(["no-such-command-xyz"], { env: process.env });
    expect(done.error).toBe("cannot start no-such-command-xyz: command not found");
  });
});

describe("with process groups only (XBENCH_REAPER=off)", () => {
  // The bench process exits at once (well within the 1 s timeout); its escaped grandchild holds
  // the pipes, so the round ends only after the 2 s grace, and the timeout fires in between, on
  // a group that no longer exists (ESRCH): that must not throw, nor count as a timeout.
  test("a timeout racing with the exit does not crash and is not reported as a timeout", async () => {
    process.env.XBENCH_REAPER = "off";
    expect(reaperPath()).toBeUndefined();
    const dir = scratch();
    const outcome = await benchIn(dir, leavesHolder(dir), 1000);
    expect(outcome).toMatchObject({ error: "exited without finishing its report" });
  });
});
