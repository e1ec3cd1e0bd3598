/**
 * The projects the real-suite lab runs (bench/real-suites.ts): each pinned at a commit, with the
 * bench files it measures, the packages those files need (at the versions the project declares),
 * what a user's checkout needs for the files to import the project's source, and one calibrated
 * slowdown. The source is never copied here: the lab reads it from a git directory given with
 * `--source NAME=PATH` (docs/real-suites.md says how to clone it).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";

/** A one-place edit of a project file: `find` must occur exactly once. */
export interface Edit {
  file: string;
  find: string;
  replace: string;
}

export interface Project {
  name: string;
  /** GitHub owner/name: `git clone --bare https://github.com/OWNER/NAME` gives the source. */
  repo: string;
  commit: string;
  /** The benchmark API the bench files use. */
  api: string;
  /** The bench files measured, repo-relative; passed to compare as `--bench`. */
  bench: string[];
  /** Packages the bench files load at run time, as the project declares them (npm aliases allowed). */
  deps: Record<string, string>;
  /** What a user's checkout needs before compare can bundle the files against the source; part of the "pinned" commit. */
  prepare?: (dir: string) => void;
  /** The calibrated slowdown: the second commit. */
  change: Edit;
  /**
   * A slowdown a count can see and time cannot, on a branch of its own (`lab-small`, from the
   * pinned commit): a few instructions more in one function's loop, about +0.5% of the calls'.
   */
  smallChange?: Edit;
  /** Whether a row's code calls the slowed function (repo-relative bench file, row label). */
  changed: (file: string, label: string) => boolean;
}

/**
 * es-toolkit's benchmarks import the package by name (`es-toolkit`, `es-toolkit/compat`), which
 * yarn links to the repository root, whose exports point at `src/*.ts`. Left as a package, the
 * import is external to xbench's bundle: base would load head's copy through the shared
 * node_modules, and node 20 cannot load `.ts`. A tsconfig `paths` entry makes Bun's bundler
 * take the source of each side instead, as vitest's resolver does.
 */
function esToolkitPaths(dir: string): void {
  const file = join(dir, "tsconfig.json");
  const tsconfig = JSON.parse(readFileSync(file, "utf8")) as { compilerOptions: Record<string, unknown> };
  tsconfig.compilerOptions.paths = { "es-toolkit": ["./src/index.ts"], "es-toolkit/*": ["./src/*/index.ts"] };
  writeFileSync(file, `${JSON.stringify(tsconfig, null, 2)}\n`);
}

const ES_TOOLKIT_FILES = ["chunk", "camelCase", "kebabCase", "snakeCase", "difference", "intersection", "sum", "zip", "isEqual"];

/**
 * Extra work proportional to the input, kept observable so the JIT cannot drop it: one step per
 * `step` elements. Sized for a few percent on the rows that call the function.
 */
function spin(length: string, step: number, read: string): string {
  return [
    "  // lab: calibrated slowdown, proportional to the input",
    "  let labSpin = 0;",
    `  for (let i = 0; i < ${length}; i += ${step}) labSpin = (labSpin * 31 + ${read}) | 0;`,
    "  labSink = labSpin;",
  ].join("\n");
}

export const PROJECTS: Project[] = [
  {
    name: "es-toolkit",
    repo: "toss/es-toolkit",
    commit: "a1918b04e0e46e70000e0b6b048f1aabaafc1afb",
    api: "vitest bench",
    bench: ES_TOOLKIT_FILES.map((f) => `benchmarks/performance/${f}.bench.ts`),
    // benchmarks/package.json; vitest itself is not loaded (a bench process provides `bench`).
    deps: { lodash: "4.18.1" },
    prepare: esToolkitPaths,
    change: {
      file: "src/array/chunk.ts",
      find: "  const result: T[][] = Array(chunkLength);\n",
      replace: `  const result: T[][] = Array(chunkLength);\n${spin("arr.length", 16, "i")}\n`,
    },
    // Two instructions or so in each pass of chunk's loop: about +0.5% of chunk/largeArray's
    // 61 k instructions a call (100 passes), +1% of the six-element rows' 720.
    smallChange: {
      file: "src/array/chunk.ts",
      find: "    const end = start + size;\n",
      replace: "    const end = start + size;\n    labSink = (labSink + start) | 0;\n",
    },
    // chunk.ts is also what es-toolkit/compat's chunk calls.
    changed: (file, label) => file.endsWith("/chunk.bench.ts") && /es-toolkit\/(compat\/)?chunk$/.test(label),
  },
  {
    name: "rou3",
    repo: "h3js/rou3",
    commit: "39b0e9b79585cea3871629a2aa23d4e693b276fb",
    api: "mitata",
    bench: ["test/bench/index.ts"],
    // package.json declares mitata ^1.0.34 and rou3-latest as npm:rou3; the versions are pnpm-lock.yaml's.
    deps: { mitata: "1.0.34", "rou3-latest": "npm:rou3@0.9.0" },
    change: {
      file: "src/operations/find.ts",
      find: "  // Static\n",
      replace: `${spin("path.length", 16, "path.charCodeAt(i)")}\n  // Static\n`,
    },
    // The rows of the source's findRoute; the compiled router and rou3-latest do not call it.
    changed: (_file, label) => /(^| › )findRoute$/.test(label),
  },
  {
    name: "sift",
    repo: "parcelLab/sift",
    // The last commit whose test/eq.bench.ts builds its groups with describe.each (two levels).
    commit: "8ffa65e7e32609e96fab4af06b85ffb8480978c3",
    api: "vitest bench (describe.each)",
    bench: ["test/eq.bench.ts"],
    // package.json declares sift ^17.1.3; package-lock.json resolves it to 17.1.3.
    deps: { sift: "17.1.3" },
    change: {
      file: "src/compiler.ts",
      find: "\tlet str = '\"use strict\"; ';\n",
      replace: `\tlet str = '"use strict"; ';\n${spin("1024", 1, "i")}\n`,
    },
    // Every "compiled" row compiles its query on each call; the "sift" rows never load the compiler.
    changed: (_file, label) => / › compiled$/.test(label),
  },
  {
    name: "node-semver",
    repo: "npm/node-semver",
    commit: "6e05b7637396ac66522cff8731f07cfe0ef49a29",
    api: "Benchmark.js",
    // bench-subset.js adds `subset(^1.2.3-pre.0, *)` twice (its cases differ only in an options
    // field it does not pass); bench-parse.js adds `invalid parse(hello, world)` twice (the fixture
    // lists that input twice).
    bench: ["benchmarks/bench-subset.js", "benchmarks/bench-parse.js"],
    // The benchmark package itself is not needed: compare provides a stand-in.
    deps: {},
    change: {
      file: "ranges/subset.js",
      find: "const subset = (sub, dom, options = {}) => {\n",
      replace: `const subset = (sub, dom, options = {}) => {\n${spin("sub.length * 48", 1, "i")}\n`,
    },
    changed: (file) => file.endsWith("/bench-subset.js"),
  },
  {
    name: "fast-uri",
    repo: "fastify/fast-uri",
    commit: "c6a74bfd9d8c6b0df5362b3c7ae88d8021cb1e39",
    api: "tinybench",
    bench: ["benchmark/benchmark.mjs"],
    // benchmark/package.json declares uri-js ^4.4.1 (its latest is 4.4.1).
    deps: { "uri-js": "4.4.1" },
    change: {
      file: "index.js",
      find: "function parse (uri, opts) {\n",
      replace: `function parse (uri, opts) {\n${spin("uri.length * 3", 1, "i")}\n`,
    },
    // The rows that call fast-uri's exported parse; resolve and equal go through parseWithStatus.
    changed: (_file, label) => /^fast-uri benchmark › fast-uri: (parse |serialize\+parse )/.test(label),
  },
  {
    name: "std",
    repo: "denoland/std",
    commit: "ca58f9427152c946ce1c1bc287d290efde1fbab7",
    api: "Deno.bench",
    // text's bench imports the workspace member @std/testing (through deno.json's workspace);
    // http's builds URLPattern routes. Neither needs the network.
    bench: ["text/unstable_reverse_bench.ts", "http/unstable_route_bench.ts"],
    deps: {},
    change: {
      file: "text/unstable_reverse.ts",
      find: "  if (options?.handleUnicode !== false) {\n",
      replace: `${spin("input.length", 1, "input.charCodeAt(i)")}\n  if (options?.handleUnicode !== false) {\n`,
    },
    changed: (_file, label) => /(^| › )esrever( \(no unicode\))?$/.test(label),
  },
];

/** Put at the top of the changed file: the module-level variable the spin writes, so its work stays observable. */
export const SINK = "let labSink = 0;\n";
