/**
 * Workspace packages: where an import of one lands (src/runner/package-entry.ts), which of them
 * a bench file reaches unbuilt (src/compare/sides/workspace.ts), and what a build that found no
 * program says (src/compare/sides/sides.ts); docs/compare.md, "Workspace packages".
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "pathe";
import { explainBuild, programNotFound } from "../../src/compare/sides/sides.ts";
import { buildCommand, unbuiltPackages } from "../../src/compare/sides/workspace.ts";
import { exportsTarget, packageEntry, splitSpecifier } from "../../src/runner/package-entry.ts";

const dir = mkdtempSync(join(tmpdir(), "xbench-workspace-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

describe("where an import of a package lands", () => {
  const node = ["node", "import", "module"];

  test("exports: a string, conditions in their order, subpaths, patterns", () => {
    expect(splitSpecifier("@acme/core/parse")).toEqual({ name: "@acme/core", subpath: "./parse" });
    expect(splitSpecifier("lodash")).toEqual({ name: "lodash", subpath: "." });
    expect(exportsTarget("./dist/index.js", ".", node)).toBe("./dist/index.js");
    expect(exportsTarget("./dist/index.js", "./x", node)).toBeUndefined();
    expect(exportsTarget({ types: "./d.ts", import: "./esm.js", require: "./cjs.js" }, ".", node)).toBe("./esm.js");
    expect(exportsTarget({ ".": { bun: "./bun.js", default: "./index.js" }, "./utils/*": "./dist/utils/*.js" }, "./utils/a", node)).toBe(
      "./dist/utils/a.js",
    );
    expect(exportsTarget({ ".": { bun: "./bun.js", default: "./index.js" } }, ".", node)).toBe("./index.js");
    expect(exportsTarget({ ".": { bun: "./bun.js", default: "./index.js" } }, ".", ["bun", ...node])).toBe("./bun.js");
  });

  test("without exports: module, main, index.js, completed as node completes them", () => {
    write({ "p/a/package.json": '{ "main": "lib/main" }', "p/a/lib/main.js": "", "p/b/package.json": "{}" });
    expect(packageEntry(join(dir, "p/a"), ".", node)).toBe(join(dir, "p/a/lib/main.js"));
    expect(packageEntry(join(dir, "p/b"), ".", node)).toBe(join(dir, "p/b/index.js"));
  });
});

describe("workspace packages a bench file reaches unbuilt", () => {
  test("through the bench file or a module it imports; only where git ignores the entry", () => {
    write({
      "ws/packages/core/package.json": JSON.stringify({ name: "@acme/core", exports: "./dist/index.js", scripts: { build: "tsc" } }),
      "ws/packages/util/package.json": JSON.stringify({ name: "@acme/util", main: "src/index.js" }),
      "ws/packages/util/src/index.js": "",
      "ws/bench/a.bench.ts": 'import { x } from "./helpers.ts";\nimport { u } from "@acme/util";\n',
      "ws/bench/helpers.ts": 'export { slugify as x } from "@acme/core";\n',
    });
    const files = [
      "packages/core/package.json",
      "packages/util/package.json",
      "packages/util/src/index.js",
      "bench/a.bench.ts",
      "bench/helpers.ts",
    ];
    const root = join(dir, "ws");
    const read = (file: string) => readFileSync(join(root, file), "utf8");
    const ignored = (paths: string[]) => new Set(paths.filter((p) => p.includes("/dist/")));
    const unbuilt = unbuiltPackages(root, ["bench/a.bench.ts"], files, read, ignored);
    expect(unbuilt).toEqual([
      { name: "@acme/core", dir: "packages/core", entry: "dist/index.js", build: "tsc", benchFile: "bench/a.bench.ts" },
    ]);
    expect(unbuiltPackages(root, ["bench/a.bench.ts"], files, read, () => new Set())).toEqual([]);
    expect(buildCommand("pnpm", unbuilt)).toBe("pnpm --filter @acme/core run build");
    expect(buildCommand("npm", unbuilt)).toBe("npm run build --workspace packages/core");
    expect(buildCommand("yarn", unbuilt)).toBe("yarn workspace @acme/core run build");
  });
});

describe("a build that found no program", () => {
  test("the shell's line, and what to do on each side", () => {
    expect(programNotFound("> build\n> shx mkdir dist\n\nsh: 1: shx: not found\n")).toBe("sh: 1: shx: not found");
    expect(programNotFound("bash: line 1: tsc: command not found")).toBe("bash: line 1: tsc: command not found");
    expect(programNotFound("error TS2304: Cannot find name 'x'")).toBeUndefined();
    const line = "sh: 1: shx: not found";
    expect(explainBuild("base", { install: false, workingTree: false, headHasModules: true }, line)).toBe(
      `${line}: base runs with head's node_modules, linked, which lack it; add --install so that each side installs its own dependencies before the build`,
    );
    expect(explainBuild("head", { install: true, workingTree: true, headHasModules: false }, line)).toBe(
      `${line}: the working tree has no node_modules: install its dependencies first`,
    );
    expect(explainBuild("base", { install: true, workingTree: false, headHasModules: true }, line)).toBe(
      `${line}: the program is neither in base's installed dependencies nor on PATH`,
    );
    expect(explainBuild("base", { install: false, workingTree: false, headHasModules: true }, "exit 2")).toBeUndefined();
  });
});
