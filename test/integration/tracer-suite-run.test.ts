/**
 * The tracer suite end to end with a stand-in tracer: a shell-script supervisor that runs
 * the real target programs and writes the missing path to its "log", read back by a fake
 * reader. Checks the orchestration (validation, arms, rows, result) without the real tracer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { renderMarkdown, renderTerminal, runTracerSuite, type TracerResult } from "../../src/suites/tracer/index.ts";
import { logMentions, type LoggedTrace } from "../../src/suites/tracer/validate.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

/** Runs CMD after `--`; with RECORD=1 in its folder's name writes "<PATH>-0" to --log. */
const FAKE_SUPERVISOR = `#!/bin/sh
log=
while [ "$1" != "--" ]; do
  case "$1" in --log) log="$2"; shift 2 ;; *) shift ;; esac
done
shift
"$@" || exit $?
case "$0" in
  */recording/*) printf '%s\\n' "$4-0" > "$log" ;;
  *) : > "$log" ;;
esac
`;

function readFakeLog(file: string): LoggedTrace {
  const accesses = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((path) => ({ path, modes: ["missing"] }));
  return { accesses, incompleteReasons: [] };
}

function compile(out: string, compiler: string, extra: string[]): void {
  const r = spawnSync(compiler, ["-O2", "-std=gnu11", "-o", out, join(ROOT, "src", "suites", "tracer", "target.c"), ...extra], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`${compiler} failed: ${r.stderr}`);
}

describe("runTracerSuite with a stand-in tracer", () => {
  const tmp = tempDir("xbench-tracer-suite-");
  const head = join(tmp.dir, "recording", "head");
  const silent = join(tmp.dir, "silent");

  beforeAll(() => {
    for (const dir of [head, silent]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "xbench-supervisor"), FAKE_SUPERVISOR);
      chmodSync(join(dir, "xbench-supervisor"), 0o755);
    }
    compile(join(head, "xbench-target"), "gcc", ["-lpthread"]);
    compile(join(head, "xbench-target-static"), existsSync("/usr/bin/musl-gcc") ? "musl-gcc" : "gcc", ["-static", "-lpthread"]);
  });
  afterAll(() => tmp.cleanup());

  test("A/A: rows for both backends, every arm measured every iteration", async () => {
    const result: TracerResult = await runTracerSuite({
      headHelperDir: head,
      baseHelperDir: head,
      iterations: 6,
      warmup: 1,
      passes: { launch: 2, access: 1 },
      backends: ["preload", "seccomp"],
      readLog: readFakeLog,
    });
    expect(result.iterations).toMatchObject({ requested: 6, planned: 6, cycle: 6, warmup: 1 });
    expect(result.arms).toEqual(["head", "base", "untracked"]);
    expect(result.passes).toEqual({ launch: 2, access: 1 });
    expect(result.rows.map((r) => `${r.backend} ${r.row}`)).toEqual([
      "preload launch",
      "preload access",
      "seccomp launch",
      "seccomp access",
    ]);
    for (const row of result.rows) {
      expect(row.samples.head.length).toBe(6);
      expect(row.samples.base!.length).toBe(6);
      expect(row.samples.untracked.length).toBe(6);
      expect(row.change).toBeDefined();
      for (const v of [...row.samples.head, ...row.samples.base!, ...row.samples.untracked]) expect(v).toBeGreaterThan(0);
    }
    const access = result.rows.find((r) => r.row === "access")!;
    expect(access.workload).toEqual({ threads: 2, opens: 2048 });
    // A batch of 8 failing opens takes well under the launch of a process.
    const launch = result.rows.find((r) => r.row === "launch")!;
    expect(access.medians.head).toBeLessThan(launch.medians.head);
    expect(renderTerminal(result)).toContain("seccomp  access");
    expect(renderMarkdown([result])).toContain("### linux");
  });

  test("a tracer that records nothing stops the suite with a one-line error naming it", async () => {
    await expect(
      runTracerSuite({ headHelperDir: head, baseHelperDir: silent, iterations: 1, backends: ["seccomp"], readLog: readFakeLog }),
    ).rejects.toThrow(
      /^validation of the base helper \(.*silent\) with the seccomp backend failed: its log does not report the target's missing path .*missing-0/,
    );
  });

  test("a log this build cannot parse passes when its raw bytes hold the missing path, and says so", async () => {
    const refuse = (): LoggedTrace => {
      throw new Error("log format v1, this reader takes v2");
    };
    const steps: string[] = [];
    const result = await runTracerSuite({
      headHelperDir: head,
      iterations: 1,
      warmup: 0,
      passes: { launch: 1, access: 1 },
      backends: ["preload"],
      readLog: refuse,
      onStep: (s) => steps.push(s),
    });
    expect(result.rows.length).toBe(2);
    expect(steps).toContain(
      `validation of the head helper (${head}) with the preload backend: this build cannot parse its log (log format v1, this reader takes v2); its raw bytes hold the missing path`,
    );
    await expect(
      runTracerSuite({ headHelperDir: head, baseHelperDir: silent, iterations: 1, backends: ["preload"], readLog: refuse }),
    ).rejects.toThrow(
      /base helper .* could not be read \(log format v1, this reader takes v2\) and does not mention the target's missing path/,
    );
  });

  test("logMentions finds a path across chunk boundaries and within the limit only", () => {
    const file = join(tmp.dir, "raw.log");
    const path = "/tmp/some/missing-0";
    writeFileSync(file, Buffer.concat([Buffer.alloc((1 << 20) - 5), Buffer.from(path), Buffer.alloc(100)]));
    expect(logMentions(file, path)).toBe(true);
    expect(logMentions(file, "/tmp/some/missing-1")).toBe(false);
    expect(logMentions(file, path, 1 << 20)).toBe(false);
  });

  test("a base folder without a supervisor is named", async () => {
    await expect(
      runTracerSuite({ headHelperDir: head, baseHelperDir: tmp.dir, iterations: 1, backends: ["preload"], readLog: readFakeLog }),
    ).rejects.toThrow(/base helper .* has no xbench-supervisor/);
  });
});
