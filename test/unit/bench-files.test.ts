/**
 * Which files are bench files by default, and what compare says about a file that registers
 * nothing: a helper module a pattern matched is skipped; a file that times itself, uses a
 * library xbench does not read, or uses a supported API and declared nothing is an error.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import {
  emptyFileVerdict,
  missingVitestGlobal,
  runtimeSignals,
  scanBenchSource,
  SUPPORTED_APIS,
  wrongRuntime,
} from "../../src/compare/sides/diagnose.ts";
import { readByVitest, VITEST_GLOBALS, vitestSetup } from "../../src/runner/vitest-config.ts";
import { BENCH_FILE_NAMES, isBenchFile } from "../../src/compare/discover.ts";

describe("default bench files", () => {
  test("vitest's default pattern and deno's *_bench, nothing else", () => {
    for (const path of [
      "a.bench.ts",
      "src/x.bench.mts",
      "b.benchmark.js",
      "c.bench.cjs",
      "d.bench.tsx",
      "e.benchmark.jsx",
      "mod_bench.ts",
    ]) {
      expect(isBenchFile(path)).toBe(true);
    }
    // What the "no bench files" error says is looked for is what is looked for.
    const [examples, extensions] = BENCH_FILE_NAMES.split(", in any of ");
    for (const name of examples!.split(", ")) expect(isBenchFile(name.replace("*", "x"))).toBe(true);
    for (const ext of extensions!.split(" ")) expect(isBenchFile(`x.bench${ext}`)).toBe(true);
    for (const path of [
      "bench.ts",
      "src/commands/bench.ts",
      "benchmark/index.js",
      "a.bench.json",
      "node_modules/x/a.bench.ts",
      "dist/a.bench.js",
    ]) {
      expect(isBenchFile(path)).toBe(false);
    }
  });
});

describe("a bench file that registers nothing", () => {
  test("the APIs a source uses, by import, require or the Deno global", () => {
    expect(scanBenchSource('import { bench } from "vitest";').apis).toEqual(["vitest"]);
    expect(scanBenchSource('const B = require("benchmark");').apis).toEqual(["Benchmark.js"]);
    expect(scanBenchSource('import { Bench } from "npm:tinybench@2";').apis).toEqual(["tinybench"]);
    expect(scanBenchSource("Deno.bench('x', () => {});").apis).toEqual(["Deno.bench"]);
    expect(scanBenchSource('import b from "benny";').otherLibraries).toEqual(["benny"]);
    expect(scanBenchSource("const t = performance.now();").timesItself).toBe("performance.now()");
  });

  test("a helper module matched by a pattern is skipped; named, it is an error", () => {
    const helper = scanBenchSource('export const input = "x".repeat(100);');
    expect(emptyFileVerdict("bench/input.ts", helper, [], false).kind).toBe("skip");
    const named = emptyFileVerdict("bench/input.ts", helper, [], true);
    expect(named).toEqual({
      kind: "error",
      message: `bench/input.ts registers no benchmark and uses no benchmark API; xbench reads benchmarks written with ${SUPPORTED_APIS}`,
    });
  });

  test("a file that times itself, or uses another library, is an error even when a pattern matched it", () => {
    const timed = emptyFileVerdict("bench/loop.ts", scanBenchSource("const t0 = performance.now(); work();"), [], false);
    expect(timed.kind).toBe("error");
    expect((timed as { message: string }).message).toStartWith(
      "bench/loop.ts times itself with performance.now() and registers no benchmark;",
    );
    const benny = emptyFileVerdict("bench/b.ts", scanBenchSource('import b from "benny";'), [], false);
    expect((benny as { message: string }).message).toStartWith("bench/b.ts imports benny, which xbench does not read;");
  });

  test("a file that uses a supported API and registers nothing is an error, also when only a helper it imports uses it", () => {
    const verdict = emptyFileVerdict("bench/a.ts", scanBenchSource('import "./setup";'), ["vitest"], false);
    expect(verdict.kind).toBe("error");
    expect((verdict as { message: string }).message).toStartWith("bench/a.ts uses vitest but registered no benchmark");
  });
});

describe("a bench file written for another runtime", () => {
  test("what makes a file Deno's or Bun's: specifiers, Deno.* beyond bench, web globals, deno.json's import map, bun imports", () => {
    const whys = (source: string, config?: string) =>
      runtimeSignals(source, config === undefined ? undefined : { name: "deno.json", text: config }).map((s) => `${s.runtime}: ${s.why}`);
    expect(whys('import { assertEquals } from "jsr:@std/assert@1";')).toEqual(["deno: imports jsr:@std/assert@1"]);
    expect(whys('import chalk from "npm:chalk@5";')).toEqual(["deno: imports npm:chalk@5"]);
    expect(whys('Deno.bench("x", () => {});')).toEqual([]);
    expect(whys('const t = await Deno.readTextFile("a");\nDeno.bench("x", () => {});')).toEqual(["deno: uses Deno.readTextFile"]);
    expect(whys('const p = new URLPattern({ pathname: "/u/:id" });')).toEqual(["deno: uses URLPattern"]);
    expect(whys('import { route } from "@app/router";', '{ "imports": { "@app/router": "./router.ts" } }')).toEqual([
      "deno: resolves its imports through deno.json",
    ]);
    expect(whys('import { route } from "@app/router";', '{ "tasks": {} }')).toEqual([]);
    expect(whys('import { Database } from "bun:sqlite";\nBun.hash("x");')).toEqual(["bun: imports bun:sqlite", "bun: uses Bun.hash"]);
    expect(whys('import { bench } from "mitata";\nbench("x", () => 1);')).toEqual([]);
  });

  test("one line naming the runtime and the flag; nothing for a file of this runtime, or a deno.json beside code that is simply broken", () => {
    const url = runtimeSignals("new URLPattern({})");
    expect(wrongRuntime("bench/url_bench.ts", "node", url, "URLPattern is not defined\n    at side.js:1")).toBe(
      "bench/url_bench.ts is written for Deno (it uses URLPattern) and cannot load under node (URLPattern is not defined); run with --runtime deno",
    );
    expect(wrongRuntime("bench/url_bench.ts", "deno", url, "boom")).toBeUndefined();
    const bun = runtimeSignals('import { Database } from "bun:sqlite";');
    expect(wrongRuntime("db.bench.ts", "deno", bun, "Could not resolve bun:sqlite")).toMatch(/; run with --runtime bun$/);
    const config = runtimeSignals('import { x } from "@app/x";', { name: "deno.json", text: '{ "imports": {} }' });
    expect(wrongRuntime("a.bench.ts", "node", config, "SyntaxError: Unexpected token")).toBeUndefined();
    expect(wrongRuntime("a.bench.ts", "node", config, 'Cannot find package "@app/x"')).toMatch(
      /^a\.bench\.ts is written for Deno \(it resolves its imports through deno\.json\) and cannot load under node/,
    );
  });

  test("a global that is not defined is no import map's to explain: a deno.json alone does not make the file Deno's", () => {
    const config = runtimeSignals("describe('x', () => {});", {
      name: "deno.json",
      text: '{ "imports": { "@std/assert": "jsr:@std/assert@1" } }',
    });
    expect(wrongRuntime("a.bench.ts", "node", config, "describe is not defined")).toBeUndefined();
    // Beside a strong sign of Deno, the config is one more reason.
    const both = runtimeSignals("new URLPattern({})", { name: "deno.json", text: '{ "imports": {} }' });
    expect(wrongRuntime("u_bench.ts", "node", both, "URLPattern is not defined")).toContain(
      "(it uses URLPattern, resolves its imports through deno.json)",
    );
  });
});

describe("a project's vitest config", () => {
  const names = [...VITEST_GLOBALS, "bench"];

  test("a vitest name that is not defined is the config's to explain, with what it set up; any other error is not", () => {
    expect(missingVitestGlobal("b/x.bench.ts", "describe is not defined", names)).toBe(
      "b/x.bench.ts calls describe without importing it, and no vitest.config.* or vite.config.* from its folder up to the repository's root sets up vitest's globals (globals: true, setupFiles): import { describe } from \"vitest\" in the file, or add that config",
    );
    expect(
      missingVitestGlobal("b/x.bench.ts", "ReferenceError: bench is not defined", names, {
        config: "vitest.config.ts",
        globals: true,
        setupFiles: [],
      }),
    ).toBe(
      'b/x.bench.ts calls bench without importing it, and vitest.config.ts defines it nowhere before the file loads (globals: true (vitest\'s globals do not include bench), no setupFiles): import { bench } from "vitest" in the file, or put it on globalThis in a setup file',
    );
    expect(missingVitestGlobal("b/x.bench.ts", "URLPattern is not defined", names)).toBeUndefined();
    expect(missingVitestGlobal("b/x.bench.ts", "Cannot find package 'x'", names)).toBeUndefined();
  });

  test("globals and setup files read from the nearest config, as vitest resolves them; vitest's files only", () => {
    const dir = join(tmpdir(), `xbench-vitest-config-${process.pid}`);
    mkdirSync(join(dir, "pkg", "bench"), { recursive: true });
    mkdirSync(join(dir, "pkg", "test"), { recursive: true });
    mkdirSync(join(dir, ".git"), { recursive: true });
    writeFileSync(join(dir, "pkg", "test", "setup.ts"), "");
    writeFileSync(join(dir, "pkg", "test", "more.ts"), "");
    writeFileSync(
      join(dir, "pkg", "vitest.config.mts"),
      [
        'import { resolve } from "node:path";',
        "export default defineConfig({",
        "  test: {",
        "    // globals: false would be the default",
        "    globals: true,",
        '    setupFiles: ["./test/setup.ts", resolve(__dirname, "test/more.ts"), "@testing-library/jest-dom/vitest"],',
        "  },",
        "});",
      ].join("\n"),
    );
    try {
      expect(vitestSetup(join(dir, "pkg", "bench", "a.bench.ts"))).toEqual({
        config: join(dir, "pkg", "vitest.config.mts"),
        globals: true,
        setupFiles: [join(dir, "pkg", "test", "setup.ts"), join(dir, "pkg", "test", "more.ts")],
      });
      // Above the checkout's root nothing is looked for.
      expect(vitestSetup(join(dir, "a.bench.ts"))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(readByVitest('describe("x", () => { bench("y", () => {}); });')).toBe(true);
    expect(readByVitest('import { bench } from "vitest";')).toBe(true);
    expect(readByVitest('import { bench } from "mitata";\nbench("y", () => {});')).toBe(false);
    expect(readByVitest('Deno.bench("y", () => {});')).toBe(false);
    expect(readByVitest("export const WORDS = ['a'];")).toBe(false);
  });
});
