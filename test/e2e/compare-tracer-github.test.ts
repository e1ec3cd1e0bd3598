import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "pathe";
import { fakePullRequest, pullRequestEnv } from "../support/github.ts";
import { createRepo, workFiles } from "../support/repo.ts";
import { ROOT, tempDir, xbenchAsync } from "../support/xbench.ts";

const TOKEN = "ghs_tracerSECRET0987654321";
const TRACER_MARKER = "<!-- xbench-bench-tracer -->";
const COMPARE_MARKER = "<!-- xbench-compare -->";

/** A clone of this repository (its build.ts and native/ on both sides), and a small bench-file project. */
const { dir: work, cleanup } = tempDir("xbench-tracer-gh-");
const clone = join(work, "xbench");
spawnSync("git", ["clone", "-q", ROOT, clone]);
symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
const project = createRepo();
project.write(workFiles("p.bench.ts", [{ label: "p", work: 500 }]));
project.commit("bench");
afterAll(() => {
  project.cleanup();
  cleanup();
});

function actionsEnv(api: string, summary: string): Record<string, string> {
  return pullRequestEnv({ api, repository: "acme/widgets", number: 7, token: TOKEN, dir: work, summary });
}

const TRACER = ["compare", "--base", "HEAD", "--suite", "tracer", "--rounds", "1", "--comment"];

describe("compare --suite tracer --comment", () => {
  test("its own sticky comment: created, then updated in place; a bench-file compare's comment on the same PR is kept", async () => {
    const gh = fakePullRequest({ token: TOKEN, repository: "acme/widgets", number: 7 });
    try {
      const summary = join(work, "summary.md");
      const env = actionsEnv(gh.url, summary);
      const first = await xbenchAsync(TRACER, { cwd: clone, env });
      expect(first.stderr).toContain("PR comment created");
      expect(first.code).toBe(0);

      const bench = await xbenchAsync(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--comment"], {
        cwd: project.dir,
        env,
      });
      expect(bench.code).toBe(0);
      expect(bench.stderr).toContain("PR comment created");
      const benchComment = gh.comments.find((c) => c.body.includes(COMPARE_MARKER))!.body;

      const second = await xbenchAsync(TRACER, { cwd: clone, env });
      expect(second.code).toBe(0);
      expect(second.stderr).toContain("PR comment updated");

      const tracer = gh.comments.filter((c) => c.body.includes(TRACER_MARKER));
      expect(tracer).toHaveLength(1);
      expect(gh.comments.filter((c) => c.body.includes(COMPARE_MARKER))).toHaveLength(1);
      expect(gh.comments.find((c) => c.body.includes(COMPARE_MARKER))!.body).toBe(benchComment);
      expect(gh.comments.find((c) => c.id === 1)!.body).toBe("an unrelated review comment");
      expect(gh.calls.filter((c) => c.startsWith("POST"))).toHaveLength(2);
      expect(gh.calls.filter((c) => c.startsWith("PATCH"))).toHaveLength(1);

      // Per backend a launch and an access row, change with [Q1 .. Q3],
      // overhead against untracked, load and kernel, and that it is report-only.
      const body = tracer[0]!.body;
      const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: clone, encoding: "utf8" }).stdout.slice(0, 12);
      expect(body).toContain(`base \`${head}\` · head \`${head}\``);
      expect(body).toContain("| backend | row | change | [Q1 .. Q3] | head | base | untracked | head vs untracked | base vs untracked |");
      for (const row of ["preload | launch", "preload | access", "seccomp | launch", "seccomp | access"]) {
        expect(body).toMatch(new RegExp(`\\| ${row} \\| [+-]\\d+\\.\\d% \\| \\[[+-]\\d+\\.\\d% \\.\\. [+-]\\d+\\.\\d%\\] \\|`));
      }
      expect(body).toMatch(/· kernel [^ ]+ · .* · loadavg [\d.]+ [\d.]+ [\d.]+ → [\d.]+ [\d.]+ [\d.]+<\/sub>/);
      expect(body).toContain("Report only: this report never fails the job.");
      expect(readFileSync(summary, "utf8")).toContain(TRACER_MARKER);
      for (const r of [first, bench, second]) expect(`${r.stdout}${r.stderr}`).not.toContain(TOKEN);
    } finally {
      gh.server.stop(true);
    }
  }, 300_000);

  test("an API failure is one line without the token; outside a PR job it fails before building anything", async () => {
    const gh = fakePullRequest({ token: TOKEN, repository: "acme/widgets", number: 7, failWith: 403 });
    try {
      const r = await xbenchAsync(TRACER, { cwd: clone, env: actionsEnv(gh.url, join(work, "summary2.md")) });
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split("\n").pop()).toMatch(/^xbench: could not post the PR comment \(HTTP 403\)/);
      expect(`${r.stdout}${r.stderr}`).not.toContain(TOKEN);
    } finally {
      gh.server.stop(true);
    }
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.GITHUB_TOKEN;
    delete env.GH_TOKEN;
    delete env.GITHUB_REPOSITORY;
    const outside = await xbenchAsync(TRACER, { cwd: clone, env });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/^xbench: --comment needs GITHUB_TOKEN, GITHUB_REPOSITORY/m);
    expect(outside.stderr).not.toContain("building base's helpers");
  }, 300_000);
});
