/**
 * `compare --profile` end to end (docs/profile.md): a pipeline of three functions of similar
 * cost (test/support/profile-fixture.ts) where head makes one of them slower, and one where
 * head renames a function. The
 * assertions are on rank and direction, never on exact figures: the machine is shared.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "pathe";
import type { FunctionProfile } from "../../src/model/profile.ts";
import type { CompareResult } from "../../src/model/result.ts";
import { parseCpuProfile } from "../../src/profile/cpuprofile.ts";
import { COMPARE_ENV, compareIn, repoPerTest } from "../support/compare.ts";
import { EVEN_STEPS, pipelineModule, pipelinePackage, slowerValidate } from "../support/profile-fixture.ts";
import { xbench } from "../support/xbench.ts";

const repoWith = repoPerTest();

const byName = (functions: FunctionProfile[], name: string) => functions.find((f) => f.name === name);

describe("compare --profile", () => {
  test("head makes validate slower: validate leads with an interval above 0, parse and render read unchanged, and each side's .cpuprofile is Chrome's format", () => {
    const repo = repoWith(pipelinePackage());
    repo.write(slowerValidate(1.3));
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--profile", "all"], { timeMs: 250 });
    expect(r.code).toBe(0);
    const row = r.result!.rows[0]!;
    const functions = row.profile!.functions;
    // The table the run produced, in the test's output for whoever reads a failure.
    console.log(r.stdout);
    expect(row.profile!.processes).toBe(6);
    expect(functions[0]!.name).toBe("validate");
    expect(functions[0]!.file).toBe("src/pipeline.ts");
    expect(functions[0]!.status).toBe("both");
    expect(functions[0]!.ci[0]).toBeGreaterThan(0);
    // Unchanged: an interval that holds 0 or a change within a generous band (2 shared cores, six
    // processes: a 95% interval misses now and then), and smaller than validate's either way.
    for (const name of ["parse", "render"]) {
      const fn = byName(functions, name)!;
      expect(fn.status).toBe("both");
      expect(Math.abs(fn.change)).toBeLessThan(functions[0]!.change);
      expect((fn.ci[0] <= 0 && fn.ci[1] >= 0) || Math.abs(fn.change) < 0.25 * fn.base).toBe(true);
    }
    expect(r.stdout).toContain("profile: ");
    expect(r.stderr).toMatch(/profiles: .*profile-base\.cpuprofile/);
    for (const side of ["base", "head"] as const) {
      const file = r.result!.profile!.files![side];
      expect(existsSync(file)).toBe(true);
      const profile = parseCpuProfile(readFileSync(file, "utf8"), file);
      expect(profile.samples.length).toBeGreaterThan(0);
      expect(profile.timeDeltas.length).toBe(profile.samples.length);
      for (const node of profile.nodes) expect(typeof node.callFrame.functionName).toBe("string");
      // Each side's file holds its own functions: the bench file's code, mapped to the side's bundle.
      expect(profile.nodes.some((n) => n.callFrame.functionName === "validate")).toBe(true);
    }
  }, 300_000);

  test("head renames a function: the old name is listed as removed and the new one as new, each in its side's .cpuprofile", () => {
    // With a node_modules (ignored), bundles go into it and base's is a link to head's: their maps must still resolve.
    const repo = repoWith({ ...pipelinePackage(), ".gitignore": "node_modules\n" });
    repo.write({ "node_modules/dummy/package.json": JSON.stringify({ name: "dummy", version: "1.0.0" }) });
    repo.write({ "src/pipeline.ts": pipelineModule(EVEN_STEPS, "paint") });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--profile", "all"], { timeMs: 100 });
    expect(r.code).toBe(0);
    const functions = r.result!.rows[0]!.profile!.functions;
    expect(byName(functions, "render")?.status).toBe("removed");
    expect(byName(functions, "paint")?.status).toBe("new");
    expect(byName(functions, "render")!.change).toBeLessThan(0);
    expect(byName(functions, "paint")!.change).toBeGreaterThan(0);
    expect(byName(functions, "validate")?.status).toBe("both");
    const names = (side: "base" | "head") =>
      parseCpuProfile(readFileSync(r.result!.profile!.files![side], "utf8")).nodes.map((n) => n.callFrame.functionName);
    expect(names("base")).toContain("render");
    expect(names("base")).not.toContain("paint");
    expect(names("head")).toContain("paint");
    expect(names("head")).not.toContain("render");
  }, 300_000);

  test("a runtime without a profiler, or a bad value, is one line and exit 2 before any round", () => {
    const repo = repoWith(pipelinePackage());
    for (const args of [["--runtime", "deno", "--profile"], ["--profile=some"]]) {
      const r = xbench(["compare", "--base", "HEAD", ...args], { cwd: repo.dir, env: COMPARE_ENV, timeout: 60_000 });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("--profile");
    }
  }, 120_000);

  test("--resume profiles as the run was started: plan.json records --profile, and a resume without the flag honours it", () => {
    const repo = repoWith(pipelinePackage());
    repo.write(slowerValidate(1.3));
    const first = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--profile", "all"], { timeMs: 100 });
    expect(first.code).toBe(0);
    const runDir = first.stderr.match(/run folder (\S+)/)![1]!;
    const plan = JSON.parse(readFileSync(join(runDir, "plan.json"), "utf8")) as { profile?: string };
    expect(plan.profile).toBe("all");
    // Every round is saved, so the resume measures nothing again; it profiles, as the run was to.
    const resumed = xbench(["compare", "--resume", runDir], { cwd: repo.dir, env: COMPARE_ENV, timeout: 300_000 });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("--profile all, as the run was started");
    const result = JSON.parse(readFileSync(join(runDir, "result.json"), "utf8")) as CompareResult;
    expect(result.rows[0]!.profile!.processes).toBeGreaterThan(0);
  }, 300_000);
});
