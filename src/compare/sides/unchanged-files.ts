/**
 * Which bench files' code is the same on both sides, the I/O half of the check whose rules
 * are in unchanged.ts (docs/unchanged.md): it reads each side's bundle and the project files
 * it was made of, resolves packages on both sides (package-hash.ts), and reads the inputs a
 * project declares in package.json.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "pathe";
import { SIDES, type Side } from "../../model/side.ts";
import { BUNDLE_SOURCES } from "../../runner/bundle.ts";
import type { RunContext } from "../context.ts";
import { globToRegExp } from "../discover.ts";
import { samePackageOnBothSides } from "./package-hash.ts";
import type { SideTree } from "./sides.ts";
import { type BundleSources, measureReason, type SideBundle } from "./unchanged.ts";

/** Files under `root` (outside node_modules and .git) that a package.json "xbench.inputs" glob matches, with their content. */
function declaredInputs(root: string, globs: RegExp[]): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === ".git") continue;
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(dir, entry.name), path);
      else if (entry.isFile() && globs.some((glob) => glob.test(path))) found.set(path, readFileSync(join(dir, entry.name), "utf8"));
    }
  };
  walk(root, "");
  return found;
}

function sameInputs(sides: Record<Side, SideTree>, patterns: string[] | undefined): boolean | undefined {
  if (!patterns || patterns.length === 0) return undefined;
  const globs = patterns.map(globToRegExp);
  const [base, head] = SIDES.map((side) => declaredInputs(sides[side].root, globs));
  return base!.size === head!.size && [...base!].every(([path, text]) => head!.get(path) === text);
}

/** head's package.json "xbench": { "inputs": [...] }: files bench files read at run time. */
function inputPatterns(headRoot: string): string[] | undefined {
  try {
    const inputs = JSON.parse(readFileSync(join(headRoot, "package.json"), "utf8"))?.xbench?.inputs;
    if (typeof inputs === "string") return [inputs];
    return Array.isArray(inputs) && inputs.every((i) => typeof i === "string") ? inputs : undefined;
  } catch {
    return undefined;
  }
}

/** A side's bundle of a file with the project files it was made of (runner/bundle.ts writes them). */
function readSideBundle(bundle: string, root: string): SideBundle {
  return { text: readFileSync(bundle, "utf8"), ...readBundleSources(bundle, root) };
}

/** The project files a bundle was made of (sources.json beside it), without reading the bundle. */
export function readBundleSources(bundle: string, root: string): BundleSources {
  return { sources: JSON.parse(readFileSync(join(bundle, "..", BUNDLE_SOURCES), "utf8")) as Array<[string, string]>, root };
}

/**
 * Bench files whose code is the same on both sides (compare/sides/unchanged.ts): their rows cannot
 * differ, so they are listed but not measured. None with `--all`, and none in an A/A run,
 * whose point is to measure the noise of identical code.
 */
export function unchangedFiles({ store: { plan }, sides, bundles }: RunContext): Set<string> {
  const unchanged = new Set<string>();
  // An A/A run (the same commit, dirty at most through bench files and untracked ones) measures all.
  const aa = plan.base.sha === plan.head.sha && (!plan.head.dirty || plan.head.sameCode === true);
  if (plan.all || aa) return unchanged;
  const patterns = inputPatterns(sides.head.root);
  let inputs: { same: boolean | undefined } | undefined;
  // Declared inputs are read once, and only if a file that reads files at run time asks.
  const sameDeclaredInputs = () => (inputs ??= { same: sameInputs(sides, patterns) }).same;
  for (const file of plan.files) {
    const [base, head] = SIDES.map((s) => bundles.sides[s].get(file)?.path);
    if (!base || !head) continue;
    const reason = measureReason(
      readSideBundle(base, sides.base.root),
      readSideBundle(head, sides.head.root),
      samePackageOnBothSides(base, head),
      sameDeclaredInputs,
    );
    if (reason === undefined) unchanged.add(file);
  }
  return unchanged;
}
