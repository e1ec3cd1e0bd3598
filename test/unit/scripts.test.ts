/**
 * What package.json's bench scripts say: the files they run and the runtime of each
 * (src/compare/sides/scripts.ts), and the runtime a compare without --runtime takes from the
 * project's own tools (src/compare/sides/runtime-choice.ts); docs/compare.md, "Runtimes".
 */
import { describe, expect, test } from "bun:test";
import { chooseRuntime } from "../../src/compare/sides/runtime-choice.ts";
import { benchScriptRuns, commandRun } from "../../src/compare/sides/scripts.ts";

describe("package.json's bench scripts", () => {
  test("the program and its first file, past options, launchers and environment", () => {
    expect(commandRun("node benchmark.js")).toEqual({ runtime: "node", module: "benchmark.js" });
    expect(commandRun("node --expose-gc --require ./setup.js bench/index.mjs")).toEqual({ runtime: "node", module: "bench/index.mjs" });
    expect(commandRun("NODE_ENV=production npx tsx bench/run.ts")).toEqual({ runtime: "node", module: "bench/run.ts" });
    expect(commandRun("bun run bench/index.ts")).toEqual({ runtime: "bun", module: "bench/index.ts" });
    expect(commandRun("deno run -A ./bench/main.ts")).toEqual({ runtime: "deno", module: "./bench/main.ts" });
    expect(commandRun("vitest bench")).toBeUndefined();
    expect(commandRun("tsc -p .")).toBeUndefined();
  });

  test("bench, benchmark and their variants; each step of a script; only files of the tree", () => {
    const pkg = JSON.stringify({
      scripts: {
        test: "node test.js",
        bench: "npm run build && node benchmark.js",
        "bench:bun": "bun ./bench",
        benchmarks: "node missing.js",
      },
    });
    expect(benchScriptRuns(pkg, ["benchmark.js", "bench/index.ts", "test.js"])).toEqual([
      { script: "bench", command: "npm run build && node benchmark.js", file: "benchmark.js", runtime: "node" },
      { script: "bench:bun", command: "bun ./bench", file: "bench/index.ts", runtime: "bun" },
    ]);
    expect(benchScriptRuns("not json", ["a.js"])).toEqual([]);
    expect(benchScriptRuns(undefined, ["a.js"])).toEqual([]);
  });
});

describe("the runtime of a compare without --runtime", () => {
  const sources: Record<string, string> = {
    "a_bench.ts": 'Deno.bench("a", () => {});',
    "b_bench.ts": 'Deno.bench("b", () => {});',
    "m.bench.ts": 'import { bench } from "mitata";\nbench("m", () => 1);',
    "bench.js": 'const B = require("benchmark");',
  };
  const source = (file: string) => sources[file];

  test("the one every file's own tool runs it with", () => {
    expect(chooseRuntime(["a_bench.ts", "b_bench.ts"], source, [])).toEqual({
      runtime: "deno",
      because: "every bench file calls Deno.bench, which deno bench runs; --runtime node measures under node",
    });
    const run = { script: "bench", command: "bun bench.js", file: "bench.js", runtime: "bun" as const };
    expect(chooseRuntime(["bench.js"], source, [run])).toEqual({
      runtime: "bun",
      because: 'bench.js is run with bun by package.json\'s "bench" script (bun bench.js); --runtime node measures under node',
    });
  });

  test("node where the tools disagree or use node, with the files another runtime's tool would run named", () => {
    expect(chooseRuntime(["m.bench.ts"], source, [])).toEqual({ runtime: "node" });
    expect(chooseRuntime(["a_bench.ts", "m.bench.ts", "b_bench.ts"], source, [])).toEqual({
      runtime: "node",
      because:
        "the default; the project's own tool would run 2 of the 3 bench files under deno (a_bench.ts calls Deno.bench, which deno bench runs): --runtime deno measures them there",
    });
    // Scripts that run one file under two runtimes say nothing about which is its own.
    const runs = (["node", "deno"] as const).map((runtime) => ({ script: `bench:${runtime}`, command: "", file: "bench.js", runtime }));
    expect(chooseRuntime(["bench.js"], source, runs)).toEqual({ runtime: "node" });
  });
});
