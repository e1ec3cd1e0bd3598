/**
 * One list of Debian packages: `.ci/run` checks and installs the ones in .ci/packages.txt, and
 * the README's quick start installs exactly those, so a machine set up by either runs the same
 * tests.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "pathe";
import { ROOT } from "../support/xbench.ts";

/** The packages `.ci/run` reads from its list, in order. */
function ciPackages(): string[] {
  const r = spawnSync(join(ROOT, ".ci", "run"), ["--packages"], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return r.stdout.split("\n").filter(Boolean);
}

/** The packages of the README's `apt-get install` command line, in order. */
function readmePackages(): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const installs = [...readme.matchAll(/apt-get install ([^&\n]*)/g)].map((m) => m[1]!);
  expect(installs).toHaveLength(1);
  return installs[0]!.split(/\s+/).filter((word) => word && !word.startsWith("-"));
}

describe("the Debian packages", () => {
  test("the README's quick start installs the list .ci/run checks, each package once", () => {
    const ci = ciPackages();
    expect(ci.length).toBeGreaterThan(10);
    expect(new Set(ci).size).toBe(ci.length);
    expect(readmePackages()).toEqual(ci);
  });

  test(".ci/run names no package of its own beside the list", () => {
    const script = readFileSync(join(ROOT, ".ci", "run"), "utf8").replace(/#.*$/gm, "");
    const named = ciPackages().filter((pkg) => new RegExp(`(?<![\\w.-])${pkg.replace(/[.+]/g, "\\$&")}(?![\\w.-])`).test(script));
    expect(named).toEqual([]);
  });
});
