/**
 * Edges of the tracer's own code paths: an environment longer than any fixed buffer, a working
 * folder too long to name, an exec the kernel refuses after the program was found.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { readAccessLog } from "../../src/tracer/index.ts";
import { tempDir } from "../support/xbench.ts";
import { PYTHON, SUPERVISOR, traceRun } from "../support/trace.ts";

const TRUE = realpathSync(existsSync("/usr/bin/true") ? "/usr/bin/true" : "/bin/true");
const tmp = tempDir("xbench-trace-safety-");
const dir = realpathSync(tmp.dir);
afterAll(tmp.cleanup);

describe("an LD_PRELOAD a program sets, longer than 8 KiB", () => {
  // Empty entries: ld.so skips them, so the value is long and loads nothing.
  const LONG = ":".repeat(9000);
  for (const backend of ["preload", "auto"] as const) {
    test(`the program it runs stays traced (${backend})`, () => {
      const file = join(dir, `long-${backend}.txt`);
      writeFileSync(file, "x\n");
      const r = traceRun(["sh", "-c", `LD_PRELOAD="$LONG" cat ${file}`], ["--backend", backend], {
        env: { ...process.env, LONG },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("x\n");
      expect(r.modes.get(file)).toEqual(["read"]);
      expect(r.trace.complete).toBe(true);
    });
  }
});

describe("the command itself", () => {
  test("run by a relative name from a folder too long to name: the trace says it is incomplete", () => {
    // Bun cannot start in such a folder, so python moves there and runs the supervisor.
    const log = join(dir, "deep.log");
    const script = [
      "import os, shutil, sys",
      `os.chdir(${JSON.stringify(dir)})`,
      "for _ in range(25):",
      "    os.makedirs('d' * 200, exist_ok=True); os.chdir('d' * 200)",
      // A dynamic program that names nothing relative itself: only the launch names ./prog.
      `shutil.copy(${JSON.stringify(TRUE)}, 'prog')`,
      `sys.exit(os.spawnv(os.P_WAIT, ${JSON.stringify(SUPERVISOR)}, ['xbench-supervisor', '--backend', 'preload', '--log', ${JSON.stringify(log)}, '--', './prog']))`,
    ].join("\n");
    const r = spawnSync(PYTHON, ["-c", script], { encoding: "utf8" });
    expect(r.status).toBe(0);
    const trace = readAccessLog(log);
    expect(trace.complete).toBe(false);
    expect(trace.incompleteReasons.join("\n")).toContain("longer than the kernel names");
    expect(trace.accesses.some((a) => a.path.endsWith("/prog") || a.path === "prog")).toBe(false);
  });

  test("an exec the kernel refuses after the program was found: one line, exit 126", () => {
    const prog = join(dir, "noformat");
    writeFileSync(prog, "\x01\x02 not a program\n");
    chmodSync(prog, 0o755);
    const r = spawnSync(SUPERVISOR, ["--log", join(dir, "noformat.log"), "--", prog], { encoding: "utf8" });
    expect(r.status).toBe(126);
    expect(r.stderr).toBe(`xbench-supervisor: ${prog}: Exec format error\n`);
  });
});
