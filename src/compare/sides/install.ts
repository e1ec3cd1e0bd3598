/**
 * `--install`: which package manager a side declares, how to run it with what this machine has,
 * and what a failed install's output says. Pure: the caller reads the files and probes PATH.
 */

export type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

/** What a side's root says about its package manager. */
export interface ManagerFacts {
  /** Lockfile names present at the root (`pnpm-lock.yaml`, `yarn.lock`, ...). */
  lockfiles: string[];
  /** package.json's `packageManager` field (`pnpm@9.15.0+sha512...`). */
  packageManager?: string;
  /** pnpm-lock.yaml's `lockfileVersion`. */
  pnpmLockfileVersion?: string;
  /** yarn.lock's format: `classic` (v1) or berry's `__metadata` version. */
  yarnLock?: "classic" | number;
  /** Whether there is a package.json at all. */
  hasPackageJson: boolean;
}

/** The manager a side asks for: its name, the version (exact, or a major), and its install arguments. */
export interface WantedManager {
  name: PackageManager;
  /** `9.15.0` from a pin, `9` inferred from a lockfile's format; undefined: any. */
  version?: string;
  /** Whether the version came from package.json's pin (`packageManager`). */
  pinned: boolean;
  args: string[];
  /** The npm package that provides it, for npx (yarn 2+ is `@yarnpkg/cli-dist`). */
  npmPackage: string;
}

const LOCKFILES: [string, PackageManager][] = [
  ["bun.lock", "bun"],
  ["bun.lockb", "bun"],
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["package-lock.json", "npm"],
];

/** The lockfile names `wantedManager` looks for. */
export const LOCKFILE_NAMES = LOCKFILES.map(([file]) => file);

/** `pnpm@9.15.0+sha512.ab` → pnpm, 9.15.0; undefined for a manager xbench does not run. */
export function parsePin(field: string | undefined): { name: PackageManager; version?: string } | undefined {
  const match = /^(npm|pnpm|yarn|bun)@([^+]+)/.exec(field?.trim() ?? "");
  if (!match) return undefined;
  const version = /^\d+(\.\d+){0,2}(-[\w.]+)?$/.test(match[2]!) ? match[2] : undefined;
  return { name: match[1] as PackageManager, version };
}

/** The pnpm major that writes a lockfileVersion (`9.0` is pnpm 9 and 10; 9 reads it). */
function pnpmMajor(lockfileVersion: string | undefined): string | undefined {
  const v = Number.parseFloat(lockfileVersion ?? "");
  if (v >= 9) return "9";
  if (v >= 6) return "8";
  if (v >= 5.4) return "7";
  if (v >= 5.3) return "6";
  return undefined;
}

/** The yarn major that writes a yarn.lock: v1's format, or berry's `__metadata.version`. */
function yarnMajor(lock: ManagerFacts["yarnLock"]): string | undefined {
  if (lock === undefined) return undefined;
  if (lock === "classic") return "1";
  return lock >= 8 ? "4" : lock >= 6 ? "3" : "2";
}

/**
 * The manager a side declares: package.json's pin first (pnpm and yarn refuse to run as
 * another version), else its lockfile's; undefined without a package.json. A lockfile makes the
 * install frozen: the side gets what it recorded, or a failure, never a fresh resolution.
 */
export function wantedManager(facts: ManagerFacts): WantedManager | undefined {
  if (!facts.hasPackageJson) return undefined;
  const pin = parsePin(facts.packageManager);
  const fromLock = LOCKFILES.find(([file]) => facts.lockfiles.includes(file))?.[1];
  const name = pin?.name ?? fromLock ?? "npm";
  const locked = facts.lockfiles.some((file) => LOCKFILES.some(([f, pm]) => f === file && pm === name));
  const inferred = name === "pnpm" ? pnpmMajor(facts.pnpmLockfileVersion) : name === "yarn" ? yarnMajor(facts.yarnLock) : undefined;
  const version = pin?.version ?? inferred;
  const berry = name === "yarn" && version !== undefined && Number.parseInt(version, 10) >= 2;
  const args =
    name === "npm"
      ? locked
        ? ["ci", "--no-audit", "--no-fund"]
        : ["install", "--no-audit", "--no-fund"]
      : ["install", ...(locked ? [berry ? "--immutable" : "--frozen-lockfile"] : [])];
  return { name, version, pinned: pin?.version !== undefined, args, npmPackage: berry ? "@yarnpkg/cli-dist" : name };
}

/** Whether `found` (a `--version` output) is the version asked for: the same, or the same major. */
export function versionFits(found: string, wanted: string | undefined): boolean {
  if (wanted === undefined) return true;
  const have = found.trim().replace(/^v/, "");
  return wanted.includes(".") ? have === wanted : have.split(".")[0] === wanted;
}

/** `pnpm@9.15.0`, `@yarnpkg/cli-dist@4`, `pnpm` (any version). */
export function managerSpec(wanted: WantedManager): string {
  return wanted.version ? `${wanted.npmPackage}@${wanted.version}` : wanted.npmPackage;
}

/**
 * The install's argv: the manager on PATH when it is the version asked for (`onPath` is its
 * `--version`, undefined when it is not there), else the asked-for version fetched by npx,
 * which follows npm's own registry settings. npm itself always runs as found: `npm ci` reads
 * every lockfile version npm has written.
 */
export function installArgv(wanted: WantedManager, onPath: string | undefined): string[] {
  if (wanted.name === "npm" || (onPath !== undefined && versionFits(onPath, wanted.version))) return [wanted.name, ...wanted.args];
  const spec = managerSpec(wanted);
  const bin = wanted.npmPackage === wanted.name ? [spec] : ["-p", spec, wanted.name];
  return ["npx", "--yes", ...bin, ...wanted.args];
}

/** `SPEC` out of `name@spec` phrases, kept whole (`is-odd@^99.0.0`, `@scope/x@1`). */
const MISSING: RegExp[] = [
  /404 {1,2}The requested resource '([^']+)' could not be found/, // npm 10
  /404 {1,2}'([^']+)' is not in (?:this|the npm) registry/, // npm 6-9
  /No matching version found for (\S+?)\.?(?:\s|$)/m, // npm ETARGET, pnpm
  /ERR_PNPM_FETCH_404 +GET \S+?\/([^/\s:]+(?:%2[fF][^/\s:]+)?): Not Found/,
  /Couldn't find package "([^"]+)"/, // yarn 1
  /Couldn't find any versions for "([^"]+)" that matches "([^"]+)"/, // yarn 1
  /YN00(?:35|82): \S* ?(\S+?): (?:Package not found|No candidates found)/, // yarn 2+
  /error: package "([^"]+)" not found/, // bun
  /No version matching "([^"]+)" found for specifier "([^"]+)"/, // bun: version, then name
  /404 Not Found - GET \S+?\/((?:@[^/\s%]+(?:%2[fF]|\/))?[^/\s]+?)(?: -|$)/m, // npm, without the spec
];

/** The package a failed install could not find in the registry (`name` or `name@spec`), if that is why it failed. */
export function missingPackage(output: string): string | undefined {
  for (const pattern of MISSING) {
    const m = pattern.exec(output);
    if (!m) continue;
    if (pattern.source.startsWith("No version matching")) return `${m[2]}@${m[1]}`;
    const name = decodeURIComponent(m[1]!);
    return m[2] ? `${name}@${m[2]}` : name;
  }
  return undefined;
}

/** `pnpm@99.0.0` from `pnpm@99.0.0` or `@yarnpkg/cli-dist@4` as npx named it: is it the manager itself? */
export function isManagerPackage(missing: string, wanted: WantedManager): boolean {
  const name = missing.startsWith("@") ? `@${missing.slice(1).split("@")[0]}` : missing.split("@")[0];
  return name === wanted.npmPackage;
}
