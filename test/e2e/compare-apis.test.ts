/**
 * Every benchmark API a project may already have runs unchanged under compare: vitest's
 * bench, tinybench (current and 2.x), Benchmark.js and Deno.bench, each in a fixture modeled
 * on a real library's suite (test/fixtures/bench-apis), with the real package installed from
 * npm (linked from this checkout's node_modules). Each fixture first runs under its own tool,
 * so it is a suite that tool accepts, not a look-alike; then head slows one benchmark down,
 * and compare finds that row slower and no other row changed as much, every row named with
 * its group on both sides; an A/A run of the same fixture leaves every row near zero.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import type { CompareResult } from "../../src/model/result.ts";
import { distinctLabels } from "../../src/runner/child/registry.ts";
import { COMPARE_ENV, compareIn, repoPerTest, rowOf } from "../support/compare.ts";
import { ROOT } from "../support/xbench.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "bench-apis");
const MODULES = join(ROOT, "node_modules");

const repoWith = repoPerTest();

function filesOf(dir: string): Record<string, string> {
  const names = readdirSync(dir, { recursive: true }) as string[];
  return Object.fromEntries(names.filter((n) => statSync(join(dir, n)).isFile()).map((n) => [n, readFileSync(join(dir, n), "utf8")]));
}

/** A fixture as a committed repository, its packages linked in as `npm install` would place them. */
function fixtureRepo(name: string, packages: Record<string, string>) {
  const repo = repoWith({ ...filesOf(join(FIXTURES, name)), ".gitignore": "node_modules\n" });
  mkdirSync(join(repo.dir, "node_modules"), { recursive: true });
  for (const [as, from] of Object.entries(packages)) symlinkSync(join(MODULES, from), join(repo.dir, "node_modules", as));
  return repo;
}

/** Runs the fixture's suite with its own tool: it must finish and print what that tool prints. */
function runOwnTool(dir: string, argv: string[]): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: dir, env: COMPARE_ENV, encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** The rows a file skips (`bench.skip`): listed as `skipped`, after the file's measured rows. */
function expectSkipped(result: CompareResult | undefined, skipped: string[]): void {
  expect(result!.rows.filter((row) => row.status === "skipped").map((row) => row.label)).toEqual(skipped);
}

/** The rows a run measured: every row but those the file skips. */
const measured = (result: CompareResult | undefined) => result!.rows.filter((row) => row.status !== "skipped");

/** The measured rows are these labels, each ok. */
function measuredOk(result: CompareResult | undefined, labels: string[]): CompareResult["rows"] {
  const rows = measured(result);
  expect(rows.map((row) => row.label).sort()).toEqual([...labels].sort());
  for (const row of rows) expect(row.status).toBe("ok");
  return rows;
}

/** The changed row is slower by more than 10%; no other row moved that much either way. */
function expectOnlySlower(result: CompareResult | undefined, slowed: string, labels: string[]): void {
  for (const row of measuredOk(result, labels)) {
    expect(row.base.every((v) => typeof v === "number" && v > 0)).toBe(true);
    expect(row.head.every((v) => typeof v === "number" && v > 0)).toBe(true);
  }
  const stats = rowOf(result, slowed).stats!;
  expect(stats.verdict).toBe("slower");
  expect(stats.delta).toBeGreaterThan(0.1);
  for (const label of labels.filter((l) => l !== slowed)) {
    const other = rowOf(result, label).stats!;
    expect(other.ci[0]).toBeLessThan(0.1);
    expect(other.ci[1]).toBeGreaterThan(-0.1);
  }
}

/** An A/A run: every row measured on both sides and none far from zero. */
function expectNoChange(result: CompareResult | undefined, labels: string[]): void {
  for (const row of measuredOk(result, labels)) {
    expect(row.stats!.ci[0]).toBeLessThan(0.1);
    expect(row.stats!.ci[1]).toBeGreaterThan(-0.1);
  }
}

// 8 rounds: one round that load turned around (at 6, the interval is the range of the rounds) does not hide a change.
const RUN = ["--base", "HEAD", "--rounds", "8"];

interface ApiCase {
  title: string;
  fixture: string;
  /** node_modules entries: name in the fixture → folder in this checkout's node_modules. */
  packages: Record<string, string>;
  /** The fixture's own tool, and a word its output must contain. */
  ownTool?: { argv: string[]; prints: string };
  labels: string[];
  /** The change head makes: in `file`, `from` becomes `to`. */
  change: { file: string; from: string; to: string };
  slowed: string;
  args?: string[];
  /** Also an A/A run of the fixture before the change. */
  aa: boolean;
  /** Rows the fixture skips, which read `skipped`. */
  skipped?: string[];
}

const CASES: ApiCase[] = [
  {
    title: "vitest bench: describe groups, beforeAll, options, bench.skip, async",
    fixture: "vitest-case",
    packages: { vitest: "vitest" },
    ownTool: { argv: [join(MODULES, ".bin", "vitest"), "bench", "--run"], prints: "camelCase" },
    labels: ["camelCase › phrases", "camelCase › single word", "kebabCase › phrases", "snakeCase › async batch"],
    // Capitalizing through a regular expression per word: only multi-word phrases pay.
    change: {
      file: "src/index.ts",
      from: "for (let i = 1; i < words.length; i++) out += words[i]![0]!.toUpperCase() + words[i]!.slice(1);",
      to: 'for (let i = 1; i < words.length; i++) out += words[i]!.replace(/^./, (c) => c.toUpperCase()).normalize("NFC").split("").join("");',
    },
    slowed: "camelCase › phrases",
    aa: true,
    skipped: ["kebabCase › unicode"],
  },
  {
    title: "tinybench (current): named Bench, beforeAll hook, async task, table() after run()",
    fixture: "tinybench-qs",
    packages: { tinybench: "tinybench" },
    ownTool: { argv: ["node", "bench/qs.bench.js"], prints: "parse long" },
    labels: ["qs › parse short", "qs › parse long", "qs › stringify", "qs › parse async"],
    // Decoded values are normalized too: only queries with escapes (the long one) pay.
    change: {
      file: "src/index.js",
      from: 'return text.includes("%") || text.includes("+") ? decodeURIComponent(text.replace(/\\+/g, " ")) : text;',
      to: 'return text.includes("%") || text.includes("+") ? decodeURIComponent(text.replace(/\\+/g, " ")).normalize("NFKC").split("").join("") : text;',
    },
    slowed: "qs › parse long",
    aa: true,
  },
  {
    title: "tinybench 2.x: warmup(), beforeEach around every iteration, results after run()",
    fixture: "tinybench2-slug",
    packages: { tinybench: "tinybench-2" },
    ownTool: { argv: ["node", "bench/slug.bench.mjs"], prints: "unique with collisions" },
    labels: ["slugify ascii title", "slugify accented", "unique with collisions"],
    change: {
      file: "src/index.js",
      from: "while (taken.has(`${slug}-${n}`)) n++;",
      // Far above the noise of a row timed one iteration at a time around its hook (±50% per round here).
      to: "const list = Array.from({ length: 50 }, () => [...taken].map(String)).flat();\n  while (list.includes(`${slug}-${n}`)) n++;",
    },
    slowed: "unique with collisions",
    aa: true,
  },
  {
    title: "Benchmark.js: a Suite named in package.json, setup through this, deferred",
    fixture: "benchmarkjs-escape",
    packages: { benchmark: "benchmark" },
    ownTool: { argv: ["node", "-e", "require('benchmark').options.maxTime = 0.05; require('./benchmark/index.js')"], prints: "Fastest is" },
    labels: ["no special characters", "markup", "long document", "deferred escape"],
    change: { file: "index.js", from: "if (!match) return str;", to: "if (!match) return str.split('').join('');" },
    slowed: "no special characters",
    aa: true,
  },
  ...(["deno", "node"] as const).map(
    (runtime): ApiCase => ({
      title: `Deno.bench under ${runtime}: groups, b.start()/b.end(), ignore`,
      fixture: "deno-bytes",
      packages: {},
      ...(runtime === "deno" ? { ownTool: { argv: [join(MODULES, ".bin", "deno"), "bench", "--no-check"], prints: "indexOfNeedle" } } : {}),
      labels: ["search › indexOfNeedle", "compare › equals (4 KiB)", "concat 16 chunks"],
      change: {
        file: "mod.ts",
        from: "for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;\n  return true;",
        to: "return Array.from(a).every((v, i) => v === b[i]);",
      },
      slowed: "compare › equals (4 KiB)",
      args: ["--runtime", runtime],
      aa: false,
      skipped: ["legacy search"],
    }),
  ),
];

describe("compare runs the suite a project already has", () => {
  for (const c of CASES) {
    test(`${c.title}; one row slower`, () => {
      const repo = fixtureRepo(c.fixture, c.packages);
      if (c.ownTool) expect(runOwnTool(repo.dir, c.ownTool.argv)).toContain(c.ownTool.prints);
      const args = [...RUN, ...(c.args ?? [])];
      if (c.aa) {
        const aa = compareIn(repo, args);
        expect(aa.stderr).not.toContain("failed");
        expect(aa.code).toBe(0);
        expectNoChange(aa.result, c.labels);
      }
      const source = readFileSync(join(repo.dir, c.change.file), "utf8");
      expect(source).toContain(c.change.from);
      repo.write({ [c.change.file]: source.replace(c.change.from, c.change.to) });
      const r = compareIn(repo, args);
      expect(r.stderr).not.toContain("failed");
      expect(r.code).toBe(0);
      expectOnlySlower(r.result, c.slowed, c.labels);
      expectSkipped(r.result, c.skipped ?? []);
      expect(r.stdout).toMatch(new RegExp(` › ${c.slowed.replace(/[()]/g, "\\$&")} .* slower$`, "m"));
    }, 300_000);
  }
});

/** Rows only, no verdicts: 6 rounds, the fewest that give every row an interval. */
const ROWS_RUN = ["--base", "HEAD", "--rounds", "6"];

/** A run that stopped with exit 2 and this one line, before any round and without a result. */
function expectStoppedWith(r: ReturnType<typeof compareIn>, line: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(line);
  expect(r.stderr).not.toMatch(/round \d/);
  expect(r.result).toBeUndefined();
}

/** Every row measured on both sides, in this order; none failed. */
function expectRows(result: CompareResult | CompareResult["rows"] | undefined, labels: string[]): void {
  const rows = Array.isArray(result) ? result : result!.rows;
  expect(rows.map((row) => [row.label, row.status])).toEqual(labels.map((label) => [label, "ok"]));
}

describe("every row a suite declares, named as its own tool names it", () => {
  test("vitest: describe.each (array and template), describe in a loop, repeated names, skipIf, test() and expect() beside benches", () => {
    const repo = fixtureRepo("vitest-semver", { vitest: "vitest" });
    runOwnTool(repo.dir, [join(MODULES, ".bin", "vitest"), "bench", "--run", "--outputJson", "../vitest-names.json"]);
    const report = JSON.parse(readFileSync(join(repo.dir, "..", "vitest-names.json"), "utf8")) as {
      files: Array<{ groups: Array<{ fullName: string; benchmarks: Array<{ name: string }> }> }>;
    };
    // vitest names a group `file > describe > describe`; xbench joins the describes with ›.
    const named = report.files.flatMap((f) =>
      f.groups.flatMap((g) => g.benchmarks.map((b) => [...g.fullName.split(" > ").slice(1), b.name].join(" › "))),
    );
    const labels = distinctLabels(named);
    expect(labels).toEqual([
      "parse release › parse",
      "parse release › parse #2",
      "parse prerelease › parse",
      "parse prerelease › parse #2",
      "satisfies '^1.2.0' › match",
      "satisfies '>=2.0.0 <3.0' › match",
      "sort 10 › compare",
      "sort 10 › compare, parsed once",
      "sort 200 › compare",
    ]);
    // vitest lists the benchmarks skipIf and skip leave out (`↓ compare huge [skipped]`); a skipped describe's it does not.
    const printed = runOwnTool(repo.dir, [join(MODULES, ".bin", "vitest"), "bench", "--run"]).replace(/\u001b\[[0-9;]*m/g, "");
    const skipped = [...printed.matchAll(/↓ (.+) \[skipped\]/g)].map((m) => m[1]);
    expect(skipped).toEqual(["compare, parsed once", "compare huge"]);
    const r = compareIn(repo, ROWS_RUN);
    expect(r.stderr).not.toContain("failed");
    expectRows(measured(r.result), labels);
    expectSkipped(r.result, ["sort 200 › compare, parsed once", "compare huge"]);
    expect(r.stdout).toMatch(/^semver\.bench\.ts › compare huge +— +— +skipped$/m);
    expect(r.stdout).toMatch(/, 2 skipped \(11 rows\)$/m);
  }, 300_000);

  test("Benchmark.js: one name added three times, a deferred benchmark: every row Benchmark.js prints, repeats numbered", () => {
    const repo = fixtureRepo("benchmarkjs-equal", { benchmark: "benchmark" });
    const printed = runOwnTool(repo.dir, ["node", "-e", "require('benchmark').options.maxTime = 0.05; require('./benchmark/index.js')"]);
    // Benchmark.js prints `name x 1,234 ops/sec ±0.5% (90 runs sampled)` per benchmark.
    const named = [...printed.matchAll(/^(.+) x [\d,.]+ ops\/sec/gm)].map((m) => m[1]!);
    const labels = distinctLabels(named);
    expect(labels).toEqual(["equal objects", "different arrays", "equal objects #2", "equal objects #3", "deferred compare"]);
    const r = compareIn(repo, [...ROWS_RUN, "--bench", "benchmark/index.js"]);
    expect(r.stdout).not.toContain("group()");
    expectRows(r.result, labels);
  }, 300_000);

  test("tinybench, current major and 2.x: every API a script calls runs, rows as tinybench names them", () => {
    const script = (version: string) =>
      [
        `import { Bench, hrtimeNow${version === "6" ? ", nToMs" : ""} } from "tinybench";`,
        "",
        // Only the current major names a Bench (the row's group); 2.x has no such option.
        `const bench = new Bench({ ${version === "6" ? 'name: "tb6", ' : ""}time: 50, now: hrtimeNow });`,
        "let list = [];",
        "bench",
        '  .add("sort", () => [...list].sort((a, b) => a - b), {',
        "    beforeAll() {",
        "      list = Array.from({ length: 256 }, (_, i) => (i * 7919) % 256);",
        "    },",
        "  })",
        '  .add("reduce", async () => list.reduce((a, b) => a + b, 0));',
        ...(version === "2" ? ['bench.todo("binary search");', "await bench.warmup();"] : []),
        "await bench.run();",
        version === "6"
          ? "for (const task of bench.tasks) console.log(`${bench.name}: ${task.name} ${nToMs(task.result.latency?.mean ?? 0)}`);"
          : "for (const task of bench.tasks) console.log(`tb2: ${task.name} ${task.result?.mean}`);",
        "",
      ].join("\n");
    for (const [version, from] of [
      ["6", "tinybench"],
      ["2", "tinybench-2"],
    ] as const) {
      const repo = repoWith({
        "package.json": '{ "type": "module" }\n',
        "bench/sort.bench.js": script(version),
        ".gitignore": "node_modules\n",
      });
      mkdirSync(join(repo.dir, "node_modules"), { recursive: true });
      symlinkSync(join(MODULES, from), join(repo.dir, "node_modules", "tinybench"));
      const printed = runOwnTool(repo.dir, ["node", "bench/sort.bench.js"]);
      expect(printed).toContain(`tb${version}: sort`);
      const r = compareIn(repo, ROWS_RUN);
      const group = version === "6" ? "tb6 › " : "";
      expectRows(r.result, [`${group}sort`, `${group}reduce`]);
    }
  }, 300_000);
});

describe("a project's vitest config applies as vitest applies it", () => {
  const LABELS = ["padStart › short", "padStart › wide", "truncate › long line", "wrap › paragraph at 40"];

  test("globals: true and a setup file that puts bench and describe on globalThis, beside a deno.json (JSR): every row on node, bun and deno; a change is measured", () => {
    const repo = fixtureRepo("vitest-globals", { vitest: "vitest" });
    expect(runOwnTool(repo.dir, [join(MODULES, ".bin", "vitest"), "bench", "--run"])).toContain("paragraph at 40");
    for (const runtime of ["node", "bun", "deno"]) {
      const r = compareIn(repo, [...ROWS_RUN, "--runtime", runtime]);
      expect(r.stderr).not.toContain("xbench:");
      expect(r.code).toBe(0);
      expectRows(r.result, LABELS);
    }
    // Every word is normalized and rebuilt: only wrapping pays.
    const from = 'for (const word of text.split(" ")) {';
    const source = readFileSync(join(repo.dir, "src/index.ts"), "utf8");
    expect(source).toContain(from);
    repo.write({
      "src/index.ts": source.replace(from, 'for (const word of text.split(" ").map((w) => w.normalize("NFKD").split("").join(""))) {'),
    });
    const r = compareIn(repo, [...RUN, "--runtime", "node"]);
    expect(r.code).toBe(0);
    expectOnlySlower(r.result, "wrap › paragraph at 40", LABELS);
  }, 300_000);

  test("a file that calls describe without importing it, with a config that sets up no globals: one line naming the config, not another runtime", () => {
    const repo = fixtureRepo("vitest-globals", { vitest: "vitest" });
    repo.write({ "vitest.config.ts": 'import { defineConfig } from "vitest/config";\n\nexport default defineConfig({ test: {} });\n' });
    repo.commit("no globals");
    expectStoppedWith(
      compareIn(repo, ROWS_RUN),
      /^xbench: bench\/pad\.bench\.ts calls describe without importing it, and vitest\.config\.ts defines it nowhere before the file loads \(no globals: true, no setupFiles\): import \{ describe \} from "vitest" in the file, or put it on globalThis in a setup file$/m,
    );
  }, 300_000);
});

describe("a file written for another runtime", () => {
  test("a Deno workspace (deno.json, a member imported by name, URLPattern): one line naming --runtime deno before any round; with it, every row", () => {
    const repo = fixtureRepo("deno-router", {});
    expect(runOwnTool(repo.dir, [join(MODULES, ".bin", "deno"), "bench", "--no-check"])).toContain("nested params");
    expectStoppedWith(
      compareIn(repo, [...ROWS_RUN, "--runtime", "node"]),
      /^xbench: bench\/router_bench\.ts is written for Deno \(it resolves its imports through deno\.json\) and cannot load under node \(Cannot find package '@tiny\/router'\); run with --runtime deno$/m,
    );
    const deno = compareIn(repo, [...ROWS_RUN, "--runtime", "deno"]);
    expect(deno.code).toBe(0);
    expectRows(deno.result, ["match › static route", "match › nested params", "compile 4 routes"]);
  }, 300_000);

  test("a bench file inside a workspace member (its deno.json names the member; the root's lists the workspace): one line naming --runtime deno under node and bun; with it, every row", () => {
    const repo = fixtureRepo("deno-workspace-member", {});
    expect(runOwnTool(repo.dir, [join(MODULES, ".bin", "deno"), "bench", "--no-check"])).toContain("splitReverseJoin");
    for (const runtime of ["node", "bun"]) {
      expectStoppedWith(
        compareIn(repo, [...ROWS_RUN, "--runtime", runtime]),
        new RegExp(
          `^xbench: text/reverse_bench\\.ts is written for Deno \\(it resolves its imports through deno\\.json\\) and cannot load under ${runtime} \\(Cannot find (package|module) '@tiny/testing(/random)?'\\); run with --runtime deno$`,
          "m",
        ),
      );
    }
    const deno = compareIn(repo, [...ROWS_RUN, "--runtime", "deno"]);
    expect(deno.code).toBe(0);
    expectRows(deno.result, ["reverse › splitReverseJoin", "reverse › reverse"]);
  }, 300_000);

  test("a Deno-first repository (Deno.bench files, a deno.jsonc, no package.json): measured under deno, as deno bench runs it, and the header says why", () => {
    const files = filesOf(join(FIXTURES, "deno-bytes"));
    const { "deno.json": config, ...rest } = files;
    const repo = repoWith({ ...rest, "deno.jsonc": `// published to JSR\n${config}` });
    const r = compareIn(repo, ROWS_RUN);
    expect(r.code).toBe(0);
    expect(r.result!.runtime).toBe("deno");
    // consola marks an info line ℹ, or [info] where it sees CI.
    expect(r.stderr).toMatch(/^(ℹ|\[info\]) .* · runtime deno · /m);
    expect(r.stderr).toContain("runtime deno: bytes_bench.ts calls Deno.bench, which deno bench runs; --runtime node measures under node");
    expectRows(measured(r.result), ["search › indexOfNeedle", "compare › equals (4 KiB)", "concat 16 chunks"]);
    expectSkipped(r.result, ["legacy search"]);
  }, 300_000);

  test("Deno.bench files beside node ones: node, and the header names the files deno bench would run", () => {
    const files = filesOf(join(FIXTURES, "deno-bytes"));
    const repo = repoWith({
      ...files,
      "sum.bench.ts": 'import { bench } from "mitata";\nbench("sum", () => [1, 2, 3].reduce((a, b) => a + b, 0));\n',
    });
    const r = compareIn(repo, ROWS_RUN);
    expect(r.code).toBe(0);
    expect(r.result!.runtime).toBe("node");
    expect(r.stderr).toContain(
      "runtime node: the default; the project's own tool would run bytes_bench.ts under deno (it calls Deno.bench, which deno bench runs): --runtime deno measures it there",
    );
  }, 300_000);

  test("a file that imports bun:sqlite: one line naming --runtime bun; with it, every row", () => {
    const repo = repoWith({
      "bench/store.bench.ts": [
        'import { Database } from "bun:sqlite";',
        'import { bench, run } from "mitata";',
        "",
        'const db = new Database(":memory:");',
        'db.run("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)");',
        'const put = db.prepare("INSERT OR REPLACE INTO kv VALUES (?, ?)");',
        'const get = db.prepare("SELECT v FROM kv WHERE k = ?");',
        "for (let i = 0; i < 100; i++) put.run(`k${i}`, `v${i}`);",
        "",
        'bench("get", () => get.get("k42"));',
        'bench("put", () => put.run("k7", "seven"));',
        "",
        "await run();",
        "",
      ].join("\n"),
    });
    expectStoppedWith(
      compareIn(repo, [...ROWS_RUN, "--runtime", "node"]),
      /^xbench: bench\/store\.bench\.ts is written for Bun \(it imports bun:sqlite\) and cannot load under node \(.+\); run with --runtime bun$/m,
    );
    // Without --runtime, the file's own runtime, said in the header.
    const bun = compareIn(repo, ROWS_RUN);
    expect(bun.code).toBe(0);
    expect(bun.result!.runtime).toBe("bun");
    expect(bun.stderr).toContain("runtime bun: bench/store.bench.ts imports bun:sqlite; --runtime node measures under node");
    expectRows(bun.result, ["get", "put"]);
  }, 300_000);
});

describe("one failing benchmark fails its own row", () => {
  test("a tinybench task that starts throwing and a Benchmark.js deferred whose timer throws: those rows fail on head, every other row is measured", () => {
    // Head's cache gives up after a few thousand lookups, and its timer callback throws.
    const cache = (broken: boolean) =>
      [
        "let lookups = 0;",
        "export function lookup(key) {",
        `  if (++lookups > 5000 && ${broken}) throw new Error("cache evicted");`,
        "  return key % 7;",
        "}",
        "export function settle(done) {",
        `  if (${broken}) throw new Error("timer callback failed");`,
        "  done();",
        "}",
        "",
      ].join("\n");
    const queue = [
      'import { Bench } from "tinybench";',
      'import { lookup } from "../src/cache.js";',
      "",
      "const bench = new Bench({ time: 100 });",
      "bench",
      '  .add("push/shift", () => {',
      "    const q = [];",
      "    for (let i = 0; i < 64; i++) q.push(i);",
      "    while (q.length) q.shift();",
      "  })",
      '  .add("cached lookup", () => lookup(42))',
      '  .add("splice", () => {',
      "    const a = Array.from({ length: 64 }, (_, i) => i);",
      "    while (a.length) a.splice(0, 1);",
      "  });",
      "",
      "await bench.run();",
      "console.table(bench.table());",
      "",
    ].join("\n");
    const timers = [
      'import Benchmark from "benchmark";',
      'import { settle } from "../src/cache.js";',
      "",
      'new Benchmark.Suite("timers")',
      '  .add("sync", function () {',
      "    JSON.parse('{\"a\":[1,2,3]}');",
      "  })",
      '  .add("deferred", {',
      "    defer: true,",
      "    fn: function (deferred) {",
      "      setTimeout(function () {",
      "        settle(function () { deferred.resolve(); });",
      "      }, 0);",
      "    },",
      "  })",
      '  .add("after", function () {',
      "    [3, 1, 2].sort();",
      "  })",
      '  .on("cycle", (e) => console.log(String(e.target)))',
      "  .run();",
      "",
    ].join("\n");
    const repo = repoWith({
      "package.json": '{ "type": "module" }\n',
      "src/cache.js": cache(false),
      "bench/queue.bench.js": queue,
      "bench/timers.bench.js": timers,
    });
    repo.write({ "src/cache.js": cache(true) });
    const r = compareIn(repo, ROWS_RUN);
    const rows = r.result!.rows.map((row) => [row.label, row.status, row.error?.side, row.error?.message]);
    expect(rows).toEqual([
      ["push/shift", "ok", undefined, undefined],
      ["cached lookup", "failed", "head", "cache evicted"],
      ["splice", "ok", undefined, undefined],
      ["timers › sync", "ok", undefined, undefined],
      ["timers › deferred", "failed", "head", "timer callback failed"],
      ["timers › after", "ok", undefined, undefined],
    ]);
  }, 300_000);
});

describe("a bench file compare cannot read", () => {
  test("one that times itself: one line naming it and the supported APIs, exit 2, no round", () => {
    const repo = repoWith({
      "src/sum.js": "export const sum = (xs) => xs.reduce((a, b) => a + b, 0);\n",
      "bench/sum.bench.js": [
        'import { sum } from "../src/sum.js";',
        "const xs = Array.from({ length: 1000 }, (_, i) => i);",
        "const t0 = performance.now();",
        "for (let i = 0; i < 1e4; i++) sum(xs);",
        "console.log(`sum: ${(performance.now() - t0) / 1e4} ms`);",
        "",
      ].join("\n"),
    });
    const r = compareIn(repo, RUN);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "xbench: bench/sum.bench.js times itself with performance.now() and registers no benchmark; xbench measures benchmarks registered with mitata, vitest (bench), tinybench, Benchmark.js and Deno.bench",
    );
    expect(r.stderr).not.toMatch(/round \d/);
    expect(r.result).toBeUndefined();
  }, 120_000);

  test("one written with a library xbench does not read: one line naming the library, exit 2", () => {
    const repo = repoWith({
      "bench/sum.bench.js": 'import b from "benny";\nb.suite("sum", b.add("reduce", () => [1, 2].reduce((a, c) => a + c)), b.cycle());\n',
      "node_modules/benny/package.json": '{ "name": "benny", "main": "index.js" }\n',
      "node_modules/benny/index.js": "module.exports = { suite() {}, add() {}, cycle() {} };\n",
    });
    const r = compareIn(repo, RUN);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("xbench: bench/sum.bench.js imports benny, which xbench does not read;");
    expect(r.stderr).not.toMatch(/round \d/);
  }, 120_000);

  test("a glob over a bench folder skips its helper modules with a note and measures the rest", () => {
    const repo = repoWith({
      "test/bench/input.ts": 'export const WORDS = "a quick brown fox jumps over the lazy dog".split(" ");\n',
      "test/bench/index.ts": [
        'import { bench } from "vitest";',
        'import { WORDS } from "./input.ts";',
        'bench("join", () => { WORDS.join("-"); });',
        "",
      ].join("\n"),
    });
    const r = compareIn(repo, [...RUN, "--bench", "test/bench/*.ts"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("test/bench/input.ts: skipped, it registers no benchmark and uses no benchmark API");
    expect(r.result!.rows.map((row) => row.label)).toEqual(["join"]);
    // Named as a plain path, the same helper is an error.
    const named = compareIn(repo, [...RUN, "--bench", "test/bench/input.ts"]);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain("xbench: test/bench/input.ts registers no benchmark and uses no benchmark API;");
  }, 120_000);

  test("a file that is slow to load says so, with elapsed time, before its first round", () => {
    // Slow in the first process only (the inventory), so the test does not wait in every round.
    const marker = join(tmpdir(), `xbench-slow-load-${process.pid}-${Date.now()}`);
    const repo = repoWith({
      "bench/slow.bench.mjs": [
        'import { Bench } from "tinybench";',
        'import { existsSync, writeFileSync } from "node:fs";',
        `if (!existsSync(${JSON.stringify(marker)})) {`,
        `  writeFileSync(${JSON.stringify(marker)}, "");`,
        "  await new Promise((resolve) => setTimeout(resolve, 6000)); // builds a large fixture",
        "}",
        "const bench = new Bench();",
        'bench.add("noop", () => {});',
        "await bench.run();",
        "",
      ].join("\n"),
    });
    const r = compareIn(repo, RUN);
    rmSync(marker, { force: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^loading bench\/slow\.bench\.mjs · 0:0[5-9] elapsed$/m);
  }, 180_000);
});
