import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "pathe";
import pkg from "../../package.json" with { type: "json" };
import { ROOT } from "../support/xbench.ts";

const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

describe("the CLI runs from source and from the npm build", () => {
  const cases: Array<[string, string, string[]]> = [
    ["node", "node", [join(ROOT, "dist", "npm", "cli", "index.mjs")]],
    ["bun (source)", bin("bun"), [join(ROOT, "src", "cli", "index.ts")]],
    ["bun (npm build)", bin("bun"), [join(ROOT, "dist", "npm", "cli", "index.mjs")]],
    ["deno (source)", bin("deno"), ["run", "-A", join(ROOT, "src", "cli", "index.ts")]],
    ["deno (npm build)", bin("deno"), ["run", "-A", join(ROOT, "dist", "npm", "cli", "index.mjs")]],
  ];
  test.each(cases)("%s --version", (_name, cmd, args) => {
    const r = spawnSync(cmd, [...args, "--version"], { encoding: "utf8", cwd: ROOT, timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${pkg.version}\n`);
    expect(r.status).toBe(0);
  });
});

describe("compare from npm under node", () => {
  test("says in one line that it needs Bun's bundler, before doing anything", () => {
    const r = spawnSync("node", [join(ROOT, "dist", "npm", "cli", "index.mjs"), "compare", "--base", "HEAD"], {
      encoding: "utf8",
      cwd: ROOT,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("xbench: compare bundles bench files with Bun's bundler: run the xbench binary, or run xbench under bun\n");
  });
});
