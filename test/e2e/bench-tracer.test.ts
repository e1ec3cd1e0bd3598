/**
 * `xbench bench tracer` against the compiled binary and its real helpers: both backends'
 * rows with an A/A base, and the validation error when a tracer records nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import type { TracerResult } from "../../src/suites/tracer/model.ts";
import { tempDir, xbench } from "../support/xbench.ts";

describe("xbench bench tracer", () => {
  const tmp = tempDir("xbench-bench-tracer-");
  let helpers = "";

  beforeAll(() => {
    const r = xbench(["helpers"]);
    expect(r.code).toBe(0);
    helpers = r.stdout.trim();
  });
  afterAll(() => tmp.cleanup());

  test("A/A run: launch and access rows for preload and seccomp, JSON and markdown written", () => {
    const json = join(tmp.dir, "result.json");
    const markdown = join(tmp.dir, "report.md");
    const r = xbench(["bench", "tracer", "--iterations", "1", "--base-helper", helpers, "--json", json, "--markdown", markdown], {
      timeout: 110_000,
    });
    expect(r.stderr).not.toContain("Error");
    expect(r.code).toBe(0);
    const result = JSON.parse(readFileSync(json, "utf8")) as TracerResult;
    expect(result.iterations.planned).toBe(6);
    // Static (seccomp) and dynamic (preload) targets, both rows each, every arm every iteration.
    expect(result.rows.map((row) => `${row.backend} ${row.row}`).join(", ")).toBe(
      "preload launch, preload access, seccomp launch, seccomp access",
    );
    for (const row of result.rows) {
      for (const arm of [row.samples.head, row.samples.base!, row.samples.untracked]) expect(arm.length).toBe(6);
      expect(row.change).toBeDefined();
      expect(row.overhead.head.median).toBeGreaterThan(-1);
    }
    // The terminal table goes to stdout, one line per row.
    expect(r.stdout.split("\n").filter((l) => /^(preload|seccomp)\s+(launch|access)\s/.test(l)).length).toBe(4);
    const md = readFileSync(markdown, "utf8");
    expect(md).toContain("### linux");
    expect(md).toContain("| seccomp | access |");
  }, 120_000);

  test("--json - puts only JSON on stdout; without a base there is no change column", () => {
    const r = xbench(["bench", "tracer", "--iterations", "1", "--backends", "preload", "--json", "-"], { timeout: 60_000 });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as TracerResult;
    expect(result.arms).toEqual(["head", "untracked"]);
    expect(result.rows.length).toBe(2);
    expect(result.rows[0]!.change).toBeUndefined();
    expect(r.stderr).toContain("preload  launch");
  }, 70_000);

  test("a base tracer that records nothing stops the suite before timing, with one clear line", () => {
    // The real supervisor beside a preload library that interposes nothing.
    const silent = join(tmp.dir, "silent");
    mkdirSync(silent, { recursive: true });
    copyFileSync(join(helpers, "xbench-supervisor"), join(silent, "xbench-supervisor"));
    spawnSync("chmod", ["+x", join(silent, "xbench-supervisor")]);
    writeFileSync(join(silent, "empty.c"), "int xbench_nothing;\n");
    const cc = spawnSync("gcc", ["-shared", "-fPIC", "-o", join(silent, "libxbench-preload.so"), join(silent, "empty.c")]);
    expect(cc.status).toBe(0);
    const r = xbench(["bench", "tracer", "--iterations", "1", "--backends", "preload", "--base-helper", silent]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines[lines.length - 1]).toMatch(
      /^xbench: validation of the base helper \(.*silent\) with the preload backend failed: its log does not report the target's missing path \S+missing-0/,
    );
    expect(r.stdout).toBe("");
    expect(r.stderr).not.toContain("measuring");
  });

  test("a --base-helper folder without a supervisor is a clear error", () => {
    const r = xbench(["bench", "tracer", "--iterations", "1", "--base-helper", tmp.dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/base helper \(.*\) has no xbench-supervisor/);
  });

  test("bad flags are usage errors", () => {
    expect(xbench(["bench", "tracer", "--iterations", "0"]).code).toBe(2);
    const r = xbench(["bench", "tracer", "--backends", "ptrace"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown backend ptrace");
  });
});
