/** --install: the manager a side declares, how it runs here, and what a failed install's output names. */
import { describe, expect, test } from "bun:test";
import {
  installArgv,
  isManagerPackage,
  type ManagerFacts,
  missingPackage,
  parsePin,
  versionFits,
  wantedManager,
} from "../../src/compare/sides/install.ts";
import { explainInstall } from "../../src/compare/sides/sides.ts";

const facts = (over: Partial<ManagerFacts>): ManagerFacts => ({ lockfiles: [], hasPackageJson: true, ...over });

describe("the manager a side declares", () => {
  test("package.json's pin wins, with its exact version, the sha suffix dropped", () => {
    expect(parsePin("pnpm@9.15.0+sha512.76e2379760a4328ec4415815bcd6628dee727af3779aaa4c914e3944156c4299")).toEqual({
      name: "pnpm",
      version: "9.15.0",
    });
    expect(parsePin("yarn@berry")).toEqual({ name: "yarn", version: undefined });
    expect(parsePin("deno@2")).toBeUndefined();
    const w = wantedManager(facts({ packageManager: "pnpm@9.15.0", lockfiles: ["pnpm-lock.yaml"], pnpmLockfileVersion: "6.0" }));
    expect(w).toEqual({ name: "pnpm", version: "9.15.0", pinned: true, args: ["install", "--frozen-lockfile"], npmPackage: "pnpm" });
  });

  test("without a pin, the lockfile names the manager and its format the major", () => {
    expect(wantedManager(facts({ lockfiles: ["pnpm-lock.yaml"], pnpmLockfileVersion: "9.0" }))?.version).toBe("9");
    expect(wantedManager(facts({ lockfiles: ["pnpm-lock.yaml"], pnpmLockfileVersion: "6.0" }))?.version).toBe("8");
    expect(wantedManager(facts({ lockfiles: ["pnpm-lock.yaml"], pnpmLockfileVersion: "5.4" }))?.version).toBe("7");
    const classic = wantedManager(facts({ lockfiles: ["yarn.lock"], yarnLock: "classic" }));
    expect(classic).toMatchObject({ name: "yarn", version: "1", args: ["install", "--frozen-lockfile"], npmPackage: "yarn" });
    const berry = wantedManager(facts({ lockfiles: ["yarn.lock"], yarnLock: 8 }));
    expect(berry).toMatchObject({ name: "yarn", version: "4", args: ["install", "--immutable"], npmPackage: "@yarnpkg/cli-dist" });
    expect(wantedManager(facts({ lockfiles: ["package-lock.json"] }))?.args).toEqual(["ci", "--no-audit", "--no-fund"]);
    expect(wantedManager(facts({}))?.args).toEqual(["install", "--no-audit", "--no-fund"]);
    expect(wantedManager(facts({ lockfiles: ["bun.lock"] }))?.args).toEqual(["install", "--frozen-lockfile"]);
    expect(wantedManager(facts({ hasPackageJson: false }))).toBeUndefined();
  });

  test("a pinned manager without its lockfile installs unfrozen", () => {
    expect(wantedManager(facts({ packageManager: "pnpm@9.15.0", lockfiles: ["package-lock.json"] }))?.args).toEqual(["install"]);
  });
});

describe("how it runs here", () => {
  const pnpm9 = wantedManager(facts({ packageManager: "pnpm@9.15.0", lockfiles: ["pnpm-lock.yaml"] }))!;

  test("the one on PATH when it is the version asked for", () => {
    expect(versionFits("9.15.0\n", "9.15.0")).toBe(true);
    expect(versionFits("9.12.1", "9")).toBe(true);
    expect(versionFits("10.0.0", "9")).toBe(false);
    expect(installArgv(pnpm9, "9.15.0\n")).toEqual(["pnpm", "install", "--frozen-lockfile"]);
  });

  test("else that version through npx; yarn 2+ from its own package", () => {
    expect(installArgv(pnpm9, undefined)).toEqual(["npx", "--yes", "pnpm@9.15.0", "install", "--frozen-lockfile"]);
    expect(installArgv(pnpm9, "10.2.0")).toEqual(["npx", "--yes", "pnpm@9.15.0", "install", "--frozen-lockfile"]);
    const berry = wantedManager(facts({ packageManager: "yarn@4.5.0", lockfiles: ["yarn.lock"], yarnLock: 8 }))!;
    expect(installArgv(berry, "1.22.22")).toEqual(["npx", "--yes", "-p", "@yarnpkg/cli-dist@4.5.0", "yarn", "install", "--immutable"]);
  });

  test("npm always as found", () => {
    expect(installArgv(wantedManager(facts({ packageManager: "npm@8.0.0", lockfiles: ["package-lock.json"] }))!, undefined)[0]).toBe("npm");
  });
});

describe("what a failed install could not find", () => {
  // Each manager's own words, as this machine's npm 10, pnpm 9, yarn 1 printed them.
  test.each([
    [
      "npm error 404  The requested resource 'xbench-no-such-package-4af1@^1.0.0' could not be found or you do not have permission to access it.",
      "xbench-no-such-package-4af1@^1.0.0",
    ],
    ["npm ERR! 404  'left-pad@9.9.9' is not in this registry.", "left-pad@9.9.9"],
    ["npm error notarget No matching version found for is-odd@^99.0.0.", "is-odd@^99.0.0"],
    [" ERR_PNPM_NO_MATCHING_VERSION  No matching version found for is-odd@^99.0.0\n", "is-odd@^99.0.0"],
    [" ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/xbench-no-such-package-4af1: Not Found - 404", "xbench-no-such-package-4af1"],
    [" ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/@scope%2Fnope: Not Found - 404", "@scope/nope"],
    ['error Couldn\'t find package "xbench-no-such-package-4af1" on the "npm" registry.', "xbench-no-such-package-4af1"],
    ['error Couldn\'t find any versions for "is-odd" that matches "^99.0.0"', "is-odd@^99.0.0"],
    ["➤ YN0035: │ xbench-nope@npm:^1.0.0: Package not found", "xbench-nope@npm:^1.0.0"],
    ['error: package "xbench-nope" not found registry.npmjs.org/xbench-nope 404', "xbench-nope"],
    ['error: No version matching "^99.0.0" found for specifier "is-odd" (but package exists)', "is-odd@^99.0.0"],
    ["npm error 404 Not Found - GET https://registry.npmjs.org/xbench-nope - Not found", "xbench-nope"],
  ])("%s", (output, pkg) => {
    expect(missingPackage(output)).toBe(pkg);
  });

  test("other failures are not read as a missing package", () => {
    expect(missingPackage("npm error Missing: left-pad@1.3.0 from lock file")).toBeUndefined();
    expect(missingPackage("ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with frozen-lockfile")).toBeUndefined();
  });

  test("one line: the package, the side, the way out", () => {
    const pnpm = wantedManager(facts({ packageManager: "pnpm@99.0.0" }))!;
    const npx = ["npx", "--yes", "pnpm@99.0.0", "install"];
    expect(isManagerPackage("pnpm@99.0.0", pnpm)).toBe(true);
    expect(explainInstall("base", npx, pnpm, "npm error notarget No matching version found for pnpm@99.0.0.")).toBe(
      "pnpm@99.0.0, the package manager base's package.json pins, is not in the registry: put pnpm 99.0.0 on PATH, or leave out --install to run base with head's node_modules",
    );
    const npm = wantedManager(facts({}))!;
    expect(explainInstall("base", ["npm", "install"], npm, "npm error notarget No matching version found for is-odd@^99.0.0.")).toBe(
      "is-odd@^99.0.0, which base depends on, is not in the registry: pick a --base whose dependencies still resolve, or leave out --install to run base with head's node_modules",
    );
    expect(explainInstall("base", npx, pnpm, undefined)).toBe(
      "npx is not on PATH to fetch pnpm@99.0.0: install pnpm@99.0.0 (or Node.js's npm), or leave out --install to run base with head's node_modules",
    );
    expect(explainInstall("base", ["npm", "ci"], npm, "npm error Missing: left-pad@1.3.0 from lock file")).toBeUndefined();
  });
});
