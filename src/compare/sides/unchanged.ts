/**
 * Whether a bench file's code is the same on both sides, so that none of its benchmarks can
 * differ and measuring them would spend the budget on noise. Pure: what each side's bundle was
 * made of in, a verdict out; reading bundles and resolving packages is the caller's.
 *
 * A file is unchanged when:
 *   - its two bundles were made of the same project files (paths relative to each side's
 *     root) with the same text: a bundle holds everything the file imports from its side.
 *     Compared as inputs, not as output: the bundler orders its output by where it writes;
 *   - every package the bundles leave external resolves to the same package on both sides
 *     (by default base links head's node_modules; with --install each side has its own);
 *   - the bundle cannot read files at run time (no `fs`, `Bun.file`, `Deno.read*`, `fetch`):
 *     a fixture read from disk is not in the bundle, so such a file is always measured unless
 *     the project lists its inputs (package.json "xbench": { "inputs": [...] }) and they are
 *     the same on both sides.
 */

/** What makes a file's rows worth measuring although its code may be unchanged. */
export type MeasureReason = "code differs" | "packages differ" | "reads files at run time" | "inputs differ";

/** One side's bundle of a file: its text, the project files it was made of, the side's root. */
export interface SideBundle {
  text: string;
  /** [absolute path, sha256 of the text] of every project file in the bundle. */
  sources: Array<[string, string]>;
  root: string;
}

/** What a bundle was made of, without its text. */
export type BundleSources = Pick<SideBundle, "sources" | "root">;

/** The sources as `relative path<TAB>sha256` lines, sorted: comparable across two roots. */
function sourceKey(bundle: BundleSources): string {
  const prefix = bundle.root.endsWith("/") ? bundle.root : `${bundle.root}/`;
  return bundle.sources
    .map(([path, hash]) => `${path.startsWith(prefix) ? path.slice(prefix.length) : path}\t${hash}`)
    .sort()
    .join("\n");
}

/** Whether two bundles were made of the same project files with the same text. */
export function sameSources(base: BundleSources, head: BundleSources): boolean {
  return sourceKey(base) === sourceKey(head);
}

const RUN_TIME_READS = [
  /\b(?:from|import|require)\s*\(?\s*["'](?:node:)?fs(?:\/promises)?["']/,
  /\bBun\s*\.\s*file\s*\(/,
  /\bDeno\s*\.\s*(?:readFile|readTextFile|open|readDir)/,
  /\bfetch\s*\(/,
];

/** Whether bundled code can read files at run time (the bundle alone then does not decide). */
export function readsFilesAtRunTime(text: string): boolean {
  return RUN_TIME_READS.some((pattern) => pattern.test(text));
}

const SPECIFIERS = [
  /\bfrom\s*["']([^"'./][^"']*)["']/g,
  /\bimport\s*\(\s*["']([^"'./][^"']*)["']\s*\)/g,
  /\brequire\s*\(\s*["']([^"'./][^"']*)["']\s*\)/g,
  /\bimport\s*["']([^"'./][^"']*)["']/g,
];

/** Bare module specifiers a bundle leaves to be resolved at run time (packages, not built-ins). */
export function externalSpecifiers(text: string): string[] {
  const found = new Set<string>();
  for (const pattern of SPECIFIERS) {
    for (const [, specifier] of text.matchAll(pattern)) {
      if (!specifier!.startsWith("node:") && !specifier!.startsWith("bun:")) found.add(specifier!);
    }
  }
  return [...found].sort();
}

/**
 * Why a file must be measured, or undefined when its code cannot differ. `samePackage` says
 * whether a specifier resolves to the same package on both sides; `sameInputs` whether the
 * project's declared run-time inputs are the same (undefined: none declared), asked only
 * for a file that reads files at run time.
 */
export function measureReason(
  base: SideBundle,
  head: SideBundle,
  samePackage: (specifier: string) => boolean,
  sameInputs: () => boolean | undefined,
): MeasureReason | undefined {
  if (!sameSources(base, head)) return "code differs";
  const packages = new Set([...externalSpecifiers(base.text), ...externalSpecifiers(head.text)]);
  if (![...packages].every(samePackage)) return "packages differ";
  if (readsFilesAtRunTime(base.text) || readsFilesAtRunTime(head.text)) {
    const same = sameInputs();
    if (same === undefined) return "reads files at run time";
    if (!same) return "inputs differ";
  }
  return undefined;
}
