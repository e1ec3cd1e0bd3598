/**
 * What a project's vitest config does to a bench file before it loads: `test.globals` puts
 * vitest's API on globalThis, and `test.setupFiles` run first, in order (docs/bench-files.md,
 * "vitest"). The config is read, not run: its literal `globals: true` and the string
 * literals of `setupFiles` (a path relative to the config's folder, also inside
 * `resolve(__dirname, …)` or `new URL(…, import.meta.url)`).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "pathe";
import { isFile } from "../util/is-file.ts";

/** vitest's own search, in its order: `vitest.config.*`, then `vite.config.*`. */
const CONFIG_NAMES = ["vitest.config", "vite.config"].flatMap((name) =>
  [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"].map((ext) => name + ext),
);

/** What vitest's `globals: true` puts on globalThis (its `globalApis`; `bench` is not one of them). */
export const VITEST_GLOBALS = [
  "suite",
  "test",
  "describe",
  "it",
  "chai",
  "expect",
  "assert",
  "expectTypeOf",
  "assertType",
  "vitest",
  "vi",
  "beforeAll",
  "afterAll",
  "beforeEach",
  "afterEach",
  "onTestFinished",
  "onTestFailed",
  "aroundEach",
  "aroundAll",
];

export interface VitestSetup {
  /** The config file, absolute. */
  config: string;
  globals: boolean;
  /** Each setup file, absolute. */
  setupFiles: string[];
}

/** The source without comments, strings kept whole (a `//` inside a URL stays). */
export function stripComments(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '"' || c === "'" || c === "`") {
      const end = stringEnd(source, i);
      out += source.slice(i, end);
      i = end - 1;
    } else if (c === "/" && source[i + 1] === "/") {
      while (i < source.length && source[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end === -1 ? source.length : end + 1;
      out += " ";
    } else out += c;
  }
  return out;
}

/** Index just past the string literal that opens at `start`. */
function stringEnd(source: string, start: number): number {
  const quote = source[start];
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === quote) return i + 1;
  }
  return source.length;
}

/** The value after `setupFiles:`: one string literal, or the bracketed list up to its closing bracket. */
function setupValue(source: string): string | undefined {
  const match = /\bsetupFiles\s*:\s*/.exec(source);
  if (!match) return undefined;
  const start = match.index + match[0].length;
  if (source[start] !== "[") return source.slice(start, stringEnd(source, start));
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const c = source[i]!;
    if (c === '"' || c === "'" || c === "`") i = stringEnd(source, i) - 1;
    else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) return source.slice(start, i + 1);
  }
  return undefined;
}

/**
 * The project files a `setupFiles` value names, resolved from the config's folder as vitest
 * resolves them: a literal that is a file there, or an explicit path (`./setup.ts`, kept when
 * missing so that the bundler's error names it). A package named there (`@testing-library/
 * jest-dom/vitest`) extends vitest's test-mode `expect` through the real vitest, which a bench
 * process does not load: it is not run.
 */
function setupFilesOf(value: string, dir: string): string[] {
  const literals = [...value.matchAll(/(["'`])((?:\\.|(?!\1).)*)\1/g)].map((m) => m[2]!).filter((s) => s && !s.includes("${"));
  const files: string[] = [];
  for (const literal of literals) {
    const path = isAbsolute(literal) ? literal : join(dir, literal);
    if (isFile(path) || /^\.{1,2}\//.test(literal) || isAbsolute(literal)) files.push(path);
  }
  return files;
}

/** The config a bench file's vitest run reads: the nearest from its folder up to its checkout's root. */
export function findVitestConfig(benchFile: string): string | undefined {
  for (let dir = dirname(benchFile); ; dir = dirname(dir)) {
    const found = CONFIG_NAMES.map((name) => join(dir, name)).find((file) => existsSync(file));
    if (found) return found;
    if (existsSync(join(dir, ".git")) || dirname(dir) === dir) return undefined;
  }
}

/** What the project's vitest config does before `benchFile` loads; undefined without a config. */
export function vitestSetup(benchFile: string): VitestSetup | undefined {
  const config = findVitestConfig(benchFile);
  if (!config) return undefined;
  const source = stripComments(readFileSync(config, "utf8"));
  const value = setupValue(source);
  return {
    config,
    globals: /\bglobals\s*:\s*true\b/.test(source),
    setupFiles: value === undefined ? [] : setupFilesOf(value, dirname(config)),
  };
}

/** Another benchmark API's imports, or Deno.bench: a file vitest would not run as a bench file. */
const OTHER_API =
  /\bfrom\s*["'](?:mitata|tinybench|benchmark)["']|\brequire\s*\(\s*["'](?:mitata|tinybench|benchmark)["']\s*\)|\bDeno\s*\.\s*bench\b/;

/** vitest's bench API, imported or called as a global (`bench(`, `describe.skip(`). */
const VITEST_API = /\bfrom\s*["']vitest["']|(?:^|[^.\w$])(?:bench|describe|suite)\s*[.(]/m;

/**
 * Whether a bench file is vitest's: it uses vitest's bench API (imported, or as a global a
 * setup file or `globals: true` provides) and no other benchmark API. A helper module a glob
 * matched gets no setup files, so it still reads as a helper.
 */
export function readByVitest(source: string): boolean {
  return VITEST_API.test(source) && !OTHER_API.test(source);
}
