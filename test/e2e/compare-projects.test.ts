/**
 * `xbench compare` pointed at projects as they are: a suite that is not named *.bench.ts, a
 * wrapper the user has not committed, submodules, empty results, a failing install.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV, compareIn, repoPerTest, rowOf } from "../support/compare.ts";
import { ROOT, xbench } from "../support/xbench.ts";

const repoWith = repoPerTest();

/** A small query-string library with its mitata suite in test/bench/, as many projects keep it. */
const QS = {
  "package.json": JSON.stringify({ name: "qs-lite", version: "2.1.0", type: "module", exports: "./src/index.ts" }, null, 2),
  "src/index.ts": [
    "export function parse(query: string): Record<string, string> {",
    "  const out: Record<string, string> = {};",
    '  for (const pair of query.replace(/^\\?/, "").split("&")) {',
    "    if (!pair) continue;",
    '    const at = pair.indexOf("=");',
    "    const key = decodeURIComponent(at === -1 ? pair : pair.slice(0, at));",
    '    out[key] = at === -1 ? "" : decodeURIComponent(pair.slice(at + 1));',
    "  }",
    "  return out;",
    "}",
    "",
    "export function stringify(params: Record<string, string>): string {",
    '  return Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");',
    "}",
    "",
  ].join("\n"),
  "test/bench/index.ts": [
    'import { bench, run } from "mitata";',
    'import { parse, stringify } from "../../src/index.ts";',
    "",
    'bench("parse", () => parse("?page=2&sort=desc&q=hello%20world&tag=a&tag=b"));',
    'bench("stringify", () => stringify({ page: "2", sort: "desc", q: "hello world" }));',
    "",
    "await run();",
    "",
  ].join("\n"),
};

const labels = (r: ReturnType<typeof compareIn>) => r.result?.rows.map((row) => row.label).sort();

describe("naming the bench files", () => {
  test("--bench takes a path to a suite of any name, repeatable, globs too; only the named files run", () => {
    const repo = repoWith({
      ...QS,
      "bench/encode.ts": 'import { bench } from "mitata";\nbench("encodeURIComponent", () => encodeURIComponent("a b&c"));\n',
      "bench/legacy.bench.ts": 'import { bench } from "mitata";\nbench("legacy", () => 1 + 1);\n',
    });
    const one = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--bench", "test/bench/index.ts"]);
    expect(one.stderr).not.toContain("failed");
    expect(one.code).toBe(0);
    expect(labels(one)).toEqual(["parse", "stringify"]);
    expect(rowOf(one.result, "parse").id).toMatch(/^index-[0-9a-f]{8}: parse$/);
    for (const label of ["parse", "stringify"]) expect(rowOf(one.result, label).status).toBe("ok");

    const two = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--bench", "test/bench/index.ts", "--bench=bench/e*.ts"]);
    expect(two.code).toBe(0);
    expect(labels(two)).toEqual(["encodeURIComponent", "parse", "stringify"]);
  });

  test('package.json "xbench": { "bench": [...] } names the suite; without any, the error says how', () => {
    const bare = repoWith(QS);
    const none = xbench(["compare", "--base", "HEAD"], { cwd: bare.dir, env: COMPARE_ENV });
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toBe(
      'xbench: no bench files (*.bench.ts, *.benchmark.js, *_bench.ts, in any of .ts .mts .cts .js .mjs .cjs .tsx .jsx, or a file package.json\'s "bench" script runs) in the working tree; name them with --bench PATH|GLOB or in package.json as "xbench": { "bench": [...] }',
    );

    const pkg = { ...JSON.parse(QS["package.json"]), xbench: { bench: ["test/bench/index.ts"] } };
    const named = repoWith({ ...QS, "package.json": JSON.stringify(pkg, null, 2) });
    const r = compareIn(named, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(0);
    expect(labels(r)).toEqual(["parse", "stringify"]);
  });

  test("a root benchmark.js that package.json's bench script runs (Benchmark.js) is found through the script, and named", () => {
    const repo = repoWith({
      ".gitignore": "node_modules\n",
      "package.json": JSON.stringify(
        { name: "html-esc", version: "1.4.0", main: "index.js", scripts: { test: "node test.js", bench: "node benchmark.js" } },
        null,
        2,
      ),
      "index.js": [
        "const MAP = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\"': '&quot;' };",
        'exports.escape = (s) => s.replace(/[&<>"]/g, (c) => MAP[c]);',
        "",
      ].join("\n"),
      "test.js": 'require("assert").strictEqual(require("./index.js").escape("<a>"), "&lt;a&gt;");\n',
      "benchmark.js": [
        'const Benchmark = require("benchmark");',
        'const { escape } = require("./index.js");',
        "",
        'new Benchmark.Suite("escape")',
        '  .add("plain", () => escape("nothing to escape in this sentence"))',
        '  .add("markup", () => escape("<p class=\\"x\\">a & b</p>"))',
        '  .on("cycle", (e) => console.log(String(e.target)))',
        "  .run();",
        "",
      ].join("\n"),
    });
    mkdirSync(join(repo.dir, "node_modules"));
    symlinkSync(join(ROOT, "node_modules", "benchmark"), join(repo.dir, "node_modules", "benchmark"));
    const own = spawnSync("node", ["-e", "require('benchmark').options.maxTime = 0.05; require('./benchmark.js')"], {
      cwd: repo.dir,
      encoding: "utf8",
    });
    expect(own.stdout).toMatch(/^plain x [\d,.]+ ops\/sec/m);
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `bench files from package.json's scripts (no file has a default bench name): benchmark.js ("bench": "node benchmark.js")`,
    );
    expect(labels(r)).toEqual(["escape › markup", "escape › plain"]);
  });

  test("a named file that matches nothing is one line, exit 2", () => {
    const repo = repoWith(QS);
    const r = xbench(["compare", "--base", "HEAD", "--bench", "test/bench/missing.ts"], { cwd: repo.dir, env: COMPARE_ENV });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('xbench: --bench "test/bench/missing.ts" matches no file in the working tree');
    const inSubfolder = xbench(["compare", "--base", "HEAD", "--bench", "./missing.ts"], { cwd: join(repo.dir, "test"), env: COMPARE_ENV });
    expect(inSubfolder.stderr.trim()).toBe('xbench: --bench "./missing.ts" matches no file in the working tree');
    const found = xbench(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--bench", "./bench/index.ts"], {
      cwd: join(repo.dir, "test"),
      env: COMPARE_ENV,
      timeout: 300_000,
    });
    expect(found.code).toBe(0); // a path relative to where xbench runs
    expect(found.stdout).toMatch(/^index\.ts › parse /m);
    const pkg = { ...JSON.parse(QS["package.json"]), xbench: { bench: ["bench/**/*.ts"] } };
    const badPkg = repoWith({ ...QS, "package.json": JSON.stringify(pkg) });
    const p = xbench(["compare", "--base", "HEAD"], { cwd: badPkg.dir, env: COMPARE_ENV });
    expect(p.code).toBe(2);
    expect(p.stderr.trim()).toBe('xbench: package.json "xbench.bench" entry "bench/**/*.ts" matches no file in the working tree');
  });

  test("an untracked wrapper named with --bench runs on both sides, also with --head REF", () => {
    const repo = repoWith(QS);
    const v1 = repo.git("rev-parse", "HEAD");
    repo.write({ "src/index.ts": `${QS["src/index.ts"]}export const VERSION = "2.2.0";\n` });
    repo.commit("2.2.0");
    // Not committed, not ignored: a wrapper written just to measure the two releases.
    repo.write({
      "bench-wrap.ts":
        'import { bench } from "mitata";\nimport { parse } from "./src/index.ts";\nbench("parse (wrapper)", () => parse("a=1&b=2"));\n',
    });
    const r = compareIn(repo, ["--base", v1, "--head", "HEAD", "--rounds", "6", "--bench", "bench-wrap.ts"]);
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    const row = rowOf(r.result, "parse (wrapper)");
    expect(row.status).toBe("ok");
    expect(row.base.every((v) => typeof v === "number")).toBe(true);
    expect(row.head.every((v) => typeof v === "number")).toBe(true);
    expect(repo.worktrees()).toHaveLength(1);
  });

  test("a dirty tree is stated once, with what made it dirty, untracked files alone included", () => {
    const repo = repoWith({ ...QS, ".gitignore": "node_modules/\n" });
    repo.write({ "NOTES.md": "try a faster decode\n" });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--bench", "test/bench/index.ts"]);
    expect(r.code).toBe(0);
    expect(r.result!.head.dirty).toBe(true);
    expect(`${r.stdout}${r.stderr}`.match(/dirty/g)).toHaveLength(1);
    expect(r.stderr).toContain("(working tree, dirty: 1 untracked (NOTES.md))");
  });
});

describe("what bench files import", () => {
  test('a package\'s JSON imported with { type: "json" } loads on node, as the side has it', () => {
    const repo = repoWith({
      ".gitignore": "node_modules/\n",
      "words.bench.ts": [
        'import { bench } from "mitata";',
        'import words from "word-list-lite/words.json" with { type: "json" };',
        'bench("longest word", () => words.reduce((a: string, b: string) => (b.length > a.length ? b : a), ""));',
        "",
      ].join("\n"),
    });
    repo.write({
      "node_modules/word-list-lite/package.json": JSON.stringify({ name: "word-list-lite", version: "1.0.0", type: "module" }),
      "node_modules/word-list-lite/words.json": JSON.stringify(["alpha", "beta", "gamma", "epsilon", "iota"]),
    });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(0);
    expect(rowOf(r.result, "longest word").status).toBe("ok");
  }, 300_000);
});

describe("empty results fail loudly", () => {
  /** A library whose benchmarks are generated from the cases it exports: none yet on base. */
  function casesRepo(baseCases: string[], headCases: string[]) {
    const lib = (cases: string[]) =>
      `export const CASES: string[] = ${JSON.stringify(cases)};\nexport function parse(s: string) { return s.split("&").map((p) => p.split("=")); }\n`;
    const repo = repoWith({
      "src/cases.ts": lib(baseCases),
      "bench/cases.bench.ts":
        'import { bench } from "mitata";\nimport { CASES, parse } from "../src/cases.ts";\nfor (const c of CASES) bench(c, () => parse(c));\n',
    });
    repo.write({ "src/cases.ts": lib(headCases) });
    return repo;
  }

  test("a bench file that registers no benchmark on base fails: exit 3, one line naming file and side", () => {
    const repo = casesRepo([], ["a=1&b=2"]);
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^xbench: bench\/cases\.bench\.ts on base: registers no benchmark \(.*\)$/m);
    expect(r.stderr).not.toContain("    at ");
  });

  test("a compare with no benchmark measured on both sides exits 3 and says why", () => {
    const repo = casesRepo(["x=1"], ["y=2"]);
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.code).toBe(3);
    expect(r.result!.rows.map((row) => row.status).sort()).toEqual(["new", "removed"]);
    expect(r.stderr).toMatch(/^xbench: no benchmark was measured on both sides \(1 new, 1 removed\)$/m);
  });
});

describe("submodules", () => {
  test("a bench file importing from a submodule runs on base, filled from the local clone (no network)", () => {
    const lib = repoWith({ "index.ts": 'export function slugify(s: string) { return s.toLowerCase().replace(/[^a-z0-9]+/g, "-"); }\n' });
    const repo = repoWith({ "README.md": "# site\n\nSlugs come from vendor/slug, a submodule.\n" });
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.dir, "vendor/slug");
    // A URL that cannot be fetched: the worktree must be filled from what is already here.
    repo.git("config", "-f", ".gitmodules", "submodule.vendor/slug.url", "https://git.invalid/slug.git");
    repo.write({
      "bench/slug.bench.ts":
        'import { bench } from "mitata";\nimport { slugify } from "../vendor/slug/index.ts";\nbench("slugify", () => slugify("Hello World, again"));\n',
    });
    repo.commit("bench slugify");
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"]);
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    expect(rowOf(r.result, "slugify").status).toBe("ok");
    expect(repo.worktrees()).toHaveLength(1);
  });
});

describe("--install failures", () => {
  test("an install that fails shows its last lines", () => {
    const repo = repoWith({
      ...QS,
      "package.json": JSON.stringify({ name: "qs-lite", type: "module", dependencies: { "left-pad": "1.3.0" } }),
      "package-lock.json": JSON.stringify({ name: "qs-lite", lockfileVersion: 3, requires: true, packages: { "": { name: "qs-lite" } } }),
    });
    const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6", "--install", "--bench", "test/bench/index.ts"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^xbench: install \(npm ci --no-audit --no-fund\) failed on base \([0-9a-f]{12}, exit \d+\):$/m);
    // npm states why first, then prints its usage: the reason is kept ahead of the tail.
    expect(r.stderr).toContain("npm error Missing: left-pad@1.3.0 from lock file");
    expect(r.stderr).toContain('npm error Run "npm help ci" for more info');
    expect(r.stderr).not.toContain("hint:");
  });
});
