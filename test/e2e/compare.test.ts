import { describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "pathe";
import type { CompareResult } from "../../src/model/result.ts";
import { COMPARE_ENV, compareIn, fragileHead, headChanged, processesWithEnv, repoPerTest, rowOf } from "../support/compare.ts";
import { workFiles, type TestRepo } from "../support/repo.ts";
import { requireBinary, tempDir, xbench } from "../support/xbench.ts";

const ENV = COMPARE_ENV;

const repoWith = repoPerTest();
const compare = (repo: TestRepo, args: string[]) => compareIn(repo, args);
const row = rowOf;

describe("xbench compare on a real git repository", () => {
  // An untouched row's verdict is ~ in only 95% of runs, so no single run can require it: the
  // rate itself is checked by simulation in stats.test.ts. Here the row must stay near zero.
  // The change is 3x, far above what a disturbed round on a loaded machine moves a ratio
  // (a +25% change once read ~ there); the statistics of small changes are tested by simulation.
  test("head doing 3x the work is slower with a CI that excludes 0; an untouched row stays near 0", () => {
    const untouched = { label: "same", work: 20000 };
    const repo = headChanged(
      repoWith,
      "bench/work.bench.ts",
      [{ label: "changed", work: 20000 }, untouched],
      [{ label: "changed", work: 60000 }, untouched],
    );
    const r = compare(repo, ["--base", "main", "--rounds", "10"]);
    expect(r.code).toBe(0);
    const changed = row(r.result, "changed");
    expect(changed.stats?.verdict).toBe("slower");
    expect(changed.stats!.ci[0]).toBeGreaterThan(0);
    expect(changed.stats!.delta).toBeGreaterThan(0.5);
    const same = row(r.result, "same").stats!;
    expect(same.ci[0]).toBeLessThan(0.1);
    expect(same.ci[1]).toBeGreaterThan(-0.1);
    expect(changed.stats!.delta - same.delta).toBeGreaterThan(0.1);
    expect(r.result!.head.dirty).toBe(true);
    expect(r.stdout).toContain("slower");
    expect(repo.worktrees()).toEqual([repo.git("rev-parse", "--show-toplevel")]);
  });

  // HEAD does 2x the work, the working tree 20x: bounds far apart (+30% to +500%), so a
  // disturbed run (a +50% change once read +116%) still tells the commit from the working tree.
  test("--head REF compares two commits and ignores the working tree", () => {
    const repo = repoWith(workFiles("h.bench.ts", [{ label: "h", work: 20000 }]));
    repo.write(workFiles("h.bench.ts", [{ label: "h", work: 40000 }]));
    repo.commit("more work");
    repo.write(workFiles("h.bench.ts", [{ label: "h", work: 400000 }])); // uncommitted: must not count
    const r = compare(repo, ["--base", "HEAD~1", "--head", "HEAD", "--rounds", "10"]);
    expect(r.code).toBe(0);
    const h = row(r.result, "h").stats!;
    expect(h.verdict).toBe("slower");
    expect(h.delta).toBeGreaterThan(0.3);
    expect(h.delta).toBeLessThan(5);
    expect(r.result!.head.ref).toBe("HEAD");
    expect(r.result!.head.dirty).toBe(false);
    expect(repo.worktrees()).toHaveLength(1);
  });

  // At 95%, each unchanged row gets a verdict in 1 run of 20: 4 or more of 10 has odds of 1 in
  // 1000 (binomial), while an interval that is too narrow gives many.
  test("--base HEAD on a clean tree with 10 benchmarks: at most three verdicts (slower or faster)", () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({ label: `aa ${i}`, work: 4000 + 1000 * i }));
    const repo = repoWith(workFiles("aa.bench.ts", rows));
    const r = compare(repo, ["--base", "HEAD", "--rounds", "10"]);
    expect(r.code).toBe(0);
    expect(r.result!.rows).toHaveLength(10);
    const verdicts = r.result!.rows.map((x) => x.stats?.verdict);
    expect(verdicts.every((v) => v !== undefined)).toBe(true);
    // `same` (the interval within ±--min-effect) is an answer, not a chance verdict.
    expect(verdicts.filter((v) => v === "slower" || v === "faster").length).toBeLessThanOrEqual(3);
    expect(r.result!.base.sha).toBe(r.result!.head.sha);
    expect(r.result!.head.dirty).toBe(false);
  });

  test("a bench file added on head runs on base too", () => {
    const repo = repoWith({ "src/lib.ts": "export const n = 3000;\n" });
    repo.git("checkout", "-q", "-b", "feature");
    repo.write({
      "new.bench.ts":
        'import { bench } from "mitata";\nimport { n } from "./src/lib.ts";\nbench("added", () => { let s = 0; for (let i = 0; i < n; i++) s += i; return s; });\n',
    });
    repo.commit("add a bench");
    // --all: the library did not change, so without it the new rows would read "unchanged code".
    const r = compare(repo, ["--rounds", "6", "--all"]); // default base: merge-base with main
    expect(r.code).toBe(0);
    const added = row(r.result, "added");
    expect(added.status).toBe("ok");
    expect(added.base.every((v) => typeof v === "number")).toBe(true);
    expect(added.id).toMatch(/^new-[0-9a-f]{8}: added$/);
  });

  test("a build that fails on base: one clear error naming base, exit non-zero, no worktree left", () => {
    const repo = repoWith(workFiles("x.bench.ts", [{ label: "x", work: 100 }]));
    repo.write({ ready: "yes\n" });
    repo.commit("head can build");
    const r = compare(repo, [
      "--base",
      "HEAD~1",
      "--rounds",
      "6",
      "--build",
      "test -f ready || { echo 'cannot build: ready missing' >&2; exit 3; }",
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^xbench: build \(.*\) failed on base \([0-9a-f]{12}, exit 3\):$/m);
    expect(r.stderr).toContain("cannot build: ready missing");
    expect(r.stderr).not.toContain("    at ");
    expect(repo.worktrees()).toHaveLength(1);
  });

  test("a benchmark that throws only on head: that row failed, the others reported, exit 3", () => {
    const repo = fragileHead(repoWith);
    const r = compare(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(3);
    const fragile = row(r.result, "fragile");
    expect(fragile.status).toBe("failed");
    expect(fragile.error).toEqual({ side: "head", message: "broken on purpose" });
    expect(row(r.result, "fine").status).toBe("ok");
    expect(r.stdout).toContain("broken on purpose");
  });

  test("bad input: one-line errors with exit 2", () => {
    const repo = repoWith(workFiles("y.bench.ts", [{ label: "y", work: 10 }]));
    const cases: Array<[string[], RegExp]> = [
      [["--base", "no-such-ref"], /^xbench: --base ref not found: no-such-ref$/],
      [["--base", "HEAD", "--rounds", "1"], /^xbench: --rounds must be a whole number from 6 to 1000 \(got 1\)$/],
      [
        ["--base", "HEAD", "--rounds", "1.5"],
        /^xbench: --rounds must be a whole number from 6 to 1000, or at least 1 with --suite \(got 1.5\)$/,
      ],
      // Planning is lazy and bounded: no minutes of silence building ten million rounds.
      [
        ["--base", "HEAD", "--rounds", "10000000"],
        /^xbench: --rounds must be at most 1000 \(got 10000000\); narrow the benchmarks instead$/,
      ],
      [["--base", "HEAD", "--target", "0"], /^xbench: --target must be a positive number \(got 0\)$/],
      [["--base", "HEAD", "--min-effect", "-1"], /^xbench: --min-effect must be a percentage of at least 0 \(got -1\)$/],
      [["--base", "HEAD", "nomatch"], /^xbench: no bench file matches "nomatch"; bench files in the working tree: y\.bench\.ts$/],
    ];
    for (const [args, message] of cases) {
      const r = xbench(["compare", ...args], { cwd: repo.dir, env: ENV });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")[0]).toMatch(message);
    }
    const empty = repoWith({ "README.md": "nothing to bench\n" });
    const r = xbench(["compare", "--base", "HEAD"], { cwd: empty.dir, env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toStartWith(
      'xbench: no bench files (*.bench.ts, *.benchmark.js, *_bench.ts, in any of .ts .mts .cts .js .mjs .cjs .tsx .jsx, or a file package.json\'s "bench" script runs) in the working tree; name them with --bench',
    );
  });

  test.each(["bun", "deno"])("--runtime %s works", (runtime) => {
    const repo = repoWith(workFiles("r.bench.ts", [{ label: "r", work: 3000 }]));
    const r = compare(repo, ["--base", "HEAD", "--rounds", "6", "--runtime", runtime]);
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    expect(r.result!.runtime).toBe(runtime);
    expect(row(r.result, "r").status).toBe("ok");
  });
});

describe("command rows", () => {
  test("wall time and peak RSS of real launches: the command's own memory, an interval per row, a clear error", () => {
    const repo = repoWith({
      "cmd.bench.ts": [
        'import { command } from "xbench";',
        'command("true", ["true"], { runs: 3 });',
        'command("python 64 MB", ["python3", "-c", "x = bytearray(64 * 1024 * 1024); x[::4096] = b\\"1\\" * len(x[::4096])"], { runs: 1 });',
        'command("missing", ["no-such-command-xyz"], { runs: 1 });',
        "",
      ].join("\n"),
    });
    const r = compare(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(3); // the missing command's rows did not run
    const rss = (label: string) => row(r.result, `${label} (peak RSS)`);
    // Launched from a static helper of a few pages: `true` is about 1 MB, not the ~35 MB of the
    // Bun or node process a vfork-style spawn would start it from.
    expect(rss("true").stats!.baseMedian).toBeLessThan(8 * 1024 * 1024);
    expect(rss("python 64 MB").stats!.headMedian).toBeGreaterThan(64 * 1024 * 1024);
    expect(rss("true").exact).toBeUndefined(); // varies between launches: an interval, not same/more/fewer
    expect(rss("true").unit).toBe("bytes");
    expect(row(r.result, "true").stats!.baseMedian).toBeGreaterThan(0);
    expect(row(r.result, "missing").error?.message).toBe("no-such-command-xyz: command not found");
    expect(rss("missing").status).toBe("failed");
  });
});

describe("interrupting a compare", () => {
  test("SIGINT in round 3 leaves no worktree or child, keeps rounds 1-2, and --resume finishes", async () => {
    const repo = repoWith(workFiles("s.bench.ts", [{ label: "s", work: 5000 }]));
    const tag = `sigint-${process.pid}-${Date.now()}`;
    const child = spawn(requireBinary(), ["compare", "--time", "150", "--base", "HEAD", "--rounds", "6"], {
      cwd: repo.dir,
      env: { ...ENV, XBENCH_TEST_TAG: tag },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    let runDir: string | undefined;
    const records = () =>
      runDir && existsSync(join(runDir, "rounds.ndjson"))
        ? readFileSync(join(runDir, "rounds.ndjson"), "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
    const deadline = Date.now() + 120_000;
    // One record per round (a duet process holds both sides): the second means round 3 is under way.
    while (Date.now() < deadline) {
      runDir ??= /run folder (\S+)/.exec(stderr)?.[1];
      if (records().length >= 2) break;
      await Bun.sleep(20);
    }
    expect(records().length).toBeGreaterThanOrEqual(2);
    await Bun.sleep(150);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain(`xbench compare --resume ${runDir}`);
    expect(repo.worktrees()).toHaveLength(1);
    expect(processesWithEnv("XBENCH_TEST_TAG", tag)).toEqual([]);
    const kept = records();
    for (const round of [0, 1]) expect(kept.some((r) => r.round === round && r.job === "duet" && r.rows.length === 2)).toBe(true);
    expect(kept.length).toBeLessThan(6);
    expect(readdirSync(join(repo.dir)).includes("node_modules")).toBe(false);

    const { dir: out, cleanup } = tempDir();
    try {
      const resumed = xbench(["compare", "--resume", runDir!, "--json", join(out, "r.json")], {
        cwd: repo.dir,
        env: ENV,
        timeout: 300_000,
      });
      expect(resumed.code).toBe(0);
      const result = JSON.parse(readFileSync(join(out, "r.json"), "utf8")) as CompareResult;
      expect(row(result, "s").base.every((v) => typeof v === "number")).toBe(true);
      expect(row(result, "s").base).toHaveLength(6);
      expect(records()).toHaveLength(6);
      expect(repo.worktrees()).toHaveLength(1);
    } finally {
      cleanup();
    }
  }, 300_000);
});

describe("dependencies per side", () => {
  /** A package vendored as a file: dependency; base and head vendor different amounts of work. */
  function vendored(work: number): Record<string, string> {
    return {
      "vendor/lefty/package.json": JSON.stringify({ name: "lefty", version: "1.0.0", type: "module", main: "index.js" }),
      "vendor/lefty/index.js": `export const WORK = ${work};\nexport function spin() { let s = 0; for (let i = 0; i < WORK; i++) s += Math.sqrt(i + (s % 7)); return s; }\n`,
    };
  }

  test("a package vendored in the repository (file:) is each side's own code, with --install and without", () => {
    // Each row is named after the lefty its side imports, so the test reads which copy ran, not
    // timings a loaded machine could blur.
    const repo = repoWith({
      ...vendored(10000),
      "package.json": JSON.stringify({ name: "app", private: true, type: "module", dependencies: { lefty: "file:./vendor/lefty" } }),
      "dep.bench.ts": 'import { bench } from "mitata";\nimport { WORK, spin } from "lefty";\nbench(`lefty ${WORK}`, () => spin());\n',
      ".gitignore": "node_modules/\n",
    });
    const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--offline"], { cwd: repo.dir, encoding: "utf8" });
    expect(install.status).toBe(0);
    repo.commit("lockfile");
    repo.write(vendored(14000));

    const installed = compare(repo, ["--base", "HEAD", "--rounds", "6", "--install"]);
    expect(installed.result?.rows.map((r) => [r.label, r.status]).sort()).toEqual([
      ["lefty 10000", "removed"],
      ["lefty 14000", "new"],
    ]);

    // Linking head's node_modules, base still runs its own lefty: its link leads into the
    // repository, whose files each side has its own copy of (never `unchanged code` for a change there).
    const linked = compare(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(linked.code).toBe(3);
    expect(linked.result?.rows.map((r) => [r.label, r.status]).sort()).toEqual([
      ["lefty 10000", "removed"],
      ["lefty 14000", "new"],
    ]);
    expect(repo.worktrees()).toHaveLength(1);
  });
});

describe("workspace packages", () => {
  test("a bench file in a package imports from that package's own node_modules on both sides", () => {
    const repo = repoWith({
      ".gitignore": "node_modules/\n",
      "packages/p/p.bench.ts": 'import { bench } from "mitata";\nimport { spin } from "dep";\nbench("uses dep", () => spin());\n',
    });
    repo.write({
      "packages/p/node_modules/dep/package.json": JSON.stringify({ name: "dep", type: "module", main: "index.js" }),
      "packages/p/node_modules/dep/index.js": "export function spin() { let s = 0; for (let i = 0; i < 3000; i++) s += i; return s; }\n",
    });
    const r = compare(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    expect(row(r.result, "uses dep").status).toBe("ok");
    // The bundles went there, and nothing of them is left, not even the folders made for them.
    expect(readdirSync(join(repo.dir, "packages", "p", "node_modules"))).toEqual(["dep"]);
  });
});
