/**
 * A package that benchmarks itself imports itself by name, resolved to its source through
 * tsconfig.json's `paths` (vitest and bun read them); the compiled xbench must too
 * (runner/bundle.ts nearestTsconfig).
 */
import { expect, test } from "bun:test";
import { compareIn, repoPerTest, rowOf } from "../support/compare.ts";

const repoWith = repoPerTest();

test("a bench file importing its own package by name finds the source through tsconfig paths", () => {
  const repo = repoWith({
    // The published entry does not exist in a checkout: only `paths` can resolve the name.
    "package.json": JSON.stringify({ name: "mylib", type: "module", exports: { ".": "./dist/index.js" } }),
    "tsconfig.json": JSON.stringify({ compilerOptions: { paths: { mylib: ["./src/index.ts"] } } }),
    "src/index.ts": "export function words(text: string): string[] {\n  return text.split(/\\s+/).filter(Boolean);\n}\n",
    "bench/words.bench.ts":
      'import { bench } from "mitata";\nimport { words } from "mylib";\nbench("words", () => words("a few words to split"));\n',
  });
  const r = compareIn(repo, ["--base", "HEAD", "--rounds", "6"]);
  expect(r.stderr).not.toContain("Cannot find package");
  expect(r.code).toBe(0);
  expect(rowOf(r.result, "words").status).toBe("ok");
}, 300_000);
