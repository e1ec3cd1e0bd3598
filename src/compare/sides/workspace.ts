/**
 * Workspace packages a bench file reaches whose entry is build output nobody has built on a
 * side: a package of the repository (a package.json git tracks below the root) whose `exports`,
 * `module` or `main` points into a path git ignores (`dist/`). A worktree has no ignored file,
 * and head's copy may be older than head's source, so neither side would measure its own source:
 * the run stops before any work and names the `--build` that builds it (docs/compare.md,
 * "Workspace packages"). Read from the sources, not run: the bench files and the project files
 * they import by relative path, for bare imports of those packages.
 */
import { dirname, join, normalize } from "pathe";
import { git } from "../../git/git.ts";
import { packageEntry, splitSpecifier } from "../../runner/package-entry.ts";
import { importedModules } from "./diagnose.ts";
import type { PackageManager } from "./install.ts";

/** A workspace package whose entry is build output git ignores. */
export interface UnbuiltPackage {
  name: string;
  /** Its folder, repo-relative. */
  dir: string;
  /** The entry a bench file's import lands on, relative to the package's folder. */
  entry: string;
  /** Its package.json's build script, if it has one. */
  build?: string;
  /** The bench file that reaches it. */
  benchFile: string;
}

interface WorkspacePackage {
  name: string;
  dir: string;
  build?: string;
}

/** Every package.json below the root as a workspace package, by name. */
function workspacePackages(files: readonly string[], read: (file: string) => string | undefined): Map<string, WorkspacePackage> {
  const packages = new Map<string, WorkspacePackage>();
  for (const file of files) {
    if (!file.endsWith("/package.json") || file.includes("node_modules/")) continue;
    try {
      const manifest = JSON.parse(read(file) ?? "") as { name?: unknown; scripts?: { build?: unknown } };
      if (typeof manifest.name !== "string") continue;
      const build = typeof manifest.scripts?.build === "string" ? manifest.scripts.build : undefined;
      packages.set(manifest.name, { name: manifest.name, dir: dirname(file), ...(build ? { build } : {}) });
    } catch {
      // not a package.json a package manager would read either
    }
  }
  return packages;
}

const SOURCE_EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.js", "/index.mjs"];

/** The project file a relative import names: as written, with an extension, a folder's index, or `.js` written for `.ts`. */
function relativeTarget(from: string, specifier: string, tree: ReadonlySet<string>): string | undefined {
  const base = normalize(join(dirname(from), specifier));
  const candidates = [...SOURCE_EXTENSIONS.map((ext) => base + ext), base.replace(/\.([mc]?)js$/, ".$1ts")];
  return candidates.find((path) => tree.has(path));
}

/** The bare imports of a bench file and of the project files it reaches by relative imports. */
function bareImports(file: string, tree: ReadonlySet<string>, read: (file: string) => string | undefined): string[] {
  const bare = new Set<string>();
  const seen = new Set([file]);
  const queue = [file];
  while (queue.length > 0 && seen.size < 500) {
    const at = queue.shift()!;
    const source = read(at);
    if (source === undefined) continue;
    for (const specifier of importedModules(source)) bare.add(specifier);
    for (const [, specifier] of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
      const target = relativeTarget(at, specifier!, tree);
      if (target && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return [...bare];
}

/**
 * The workspace packages `benchFiles` import whose entry git ignores. `files`: the tree's files
 * (head's); `read`: a file's text on head; `ignored`: which of some repo-relative paths git ignores.
 */
export function unbuiltPackages(
  repo: string,
  benchFiles: readonly string[],
  files: readonly string[],
  read: (file: string) => string | undefined,
  ignored: (paths: string[]) => Set<string>,
): UnbuiltPackage[] {
  const packages = workspacePackages(files, read);
  if (packages.size === 0) return [];
  const tree = new Set(files);
  const reached: UnbuiltPackage[] = [];
  for (const benchFile of benchFiles) {
    for (const specifier of bareImports(benchFile, tree, read)) {
      const { name, subpath } = splitSpecifier(specifier);
      const pkg = packages.get(name);
      if (!pkg || reached.some((r) => r.name === name)) continue;
      const entry = packageEntry(join(repo, pkg.dir), subpath, ["node", "import", "module"]);
      if (entry === undefined) continue;
      const rel = entry.slice(repo.length + 1);
      if (ignored([rel]).has(rel)) reached.push({ ...pkg, entry: rel.slice(pkg.dir.length + 1), benchFile });
    }
  }
  return reached;
}

/** Which of `paths` (repo-relative) git ignores in `repo`. */
export function gitIgnored(repo: string): (paths: string[]) => Set<string> {
  return (paths) =>
    new Set(
      git(repo, ["check-ignore", "--stdin"], { allowFail: true, input: `${paths.join("\n")}\n` })
        .split("\n")
        .filter(Boolean),
    );
}

/** The command that runs these packages' build scripts, with the project's package manager. */
export function buildCommand(manager: PackageManager, packages: readonly UnbuiltPackage[]): string {
  switch (manager) {
    case "pnpm":
      return `pnpm ${packages.map((p) => `--filter ${p.name}`).join(" ")} run build`;
    case "yarn":
      return packages.map((p) => `yarn workspace ${p.name} run build`).join(" && ");
    case "bun":
      return `bun run ${packages.map((p) => `--filter ${p.name}`).join(" ")} build`;
    default:
      return `npm run build ${packages.map((p) => `--workspace ${p.dir}`).join(" ")}`;
  }
}

/** The one line that stops a run which would measure no side's own build of these packages. */
export function unbuiltMessage(manager: PackageManager, packages: readonly UnbuiltPackage[]): string {
  const [first] = packages;
  const what = packages.map((p) => `${p.name} (${p.dir}), whose package.json points it at ${p.entry}`).join(", and ");
  const scripts = packages.filter((p) => p.build);
  const pass =
    scripts.length === packages.length
      ? `pass --build ${JSON.stringify(buildCommand(manager, packages))} (${scripts.map((p) => `${p.name}'s build script: ${p.build}`).join("; ")})`
      : "pass --build with the command that builds it";
  return `${first!.benchFile} imports ${what}: build output git ignores, which a side's worktree does not have and head's may predate its source; ${pass}, so that each side builds it from its own source`;
}
