import picomatch from "picomatch";

/**
 * Bench files, unless the project names its own: what `vitest bench` finds by default
 * (`*.bench.ts`, `*.benchmark.mjs`, … any of .ts .mts .cts .js .mjs .cjs, with or without x)
 * and `deno bench`'s `*_bench.ts` (not its bare `bench.ts`: too often an ordinary module).
 */
export const BENCH_FILE = /[._](?:bench|benchmark)\.[cm]?[jt]sx?$/;
/** BENCH_FILE in words, for errors that find no bench file. */
export const BENCH_FILE_NAMES = "*.bench.ts, *.benchmark.js, *_bench.ts, in any of .ts .mts .cts .js .mjs .cjs .tsx .jsx";

/** Ignored whatever git says: vendored and generated trees. */
const SKIPPED = /(^|\/)(node_modules|dist|\.git)\//;

/** How to point xbench at a suite, for errors that find none. */
export const NAMING_HINT = 'name them with --bench PATH|GLOB or in package.json as "xbench": { "bench": [...] }';

export function isBenchFile(path: string): boolean {
  return BENCH_FILE.test(path) && !SKIPPED.test(path);
}

/** Whether a pattern is a glob (`*`, `?`, `[...]`, `{a,b}`, `!(...)`), not a plain path or substring. */
export function isGlob(pattern: string): boolean {
  return picomatch.scan(pattern).isGlob;
}

/**
 * A glob over repo-relative paths, as picomatch reads it (bash's rules): `*` within a segment,
 * `**` across, `?` one character, `[abc]` classes, `{ts,js}` braces, extglobs; dotfiles too,
 * since a user who names a path means it.
 */
export function globToRegExp(glob: string): RegExp {
  return picomatch.makeRe(glob, { dot: true });
}

/**
 * FILTER over bench files: a glob when it has `*` or `?` (matched against the path and the
 * basename), else a substring of the path.
 */
export function filterFiles(files: string[], filter?: string): string[] {
  if (!filter) return files;
  if (isGlob(filter)) {
    const re = globToRegExp(filter);
    return files.filter((f) => re.test(f) || re.test(f.split("/").pop()!));
  }
  return files.filter((f) => f.includes(filter));
}

/** The `*.bench.*` files among `files`, sorted, narrowed by FILTER. */
export function selectBenchFiles(files: string[], filter?: string): string[] {
  return filterFiles(files.filter(isBenchFile).sort(), filter);
}

/**
 * Files a named list picks (`--bench` or package.json's `xbench.bench`): a plain path names
 * one file, whatever it is called; a glob picks every match outside node_modules, dist and
 * .git. Patterns that match nothing are returned so the caller can say which.
 */
export function selectNamedFiles(files: string[], patterns: string[]): { files: string[]; unmatched: string[] } {
  const picked = new Set<string>();
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const re = isGlob(pattern) ? globToRegExp(pattern) : undefined;
    const hits = re ? files.filter((f) => re.test(f) && !SKIPPED.test(f)) : files.filter((f) => f === pattern);
    if (hits.length === 0) unmatched.push(pattern);
    for (const hit of hits) picked.add(hit);
  }
  return { files: [...picked].sort(), unmatched };
}

/**
 * A pattern typed in `cwd` as a repo-relative one: `./bench/x.ts` from `packages/p` becomes
 * `packages/p/bench/x.ts`, so a path completed by the shell names the file the user sees.
 */
export function repoRelativePattern(pattern: string, cwdInRepo: string): string {
  const parts: string[] = cwdInRepo ? cwdInRepo.split("/") : [];
  for (const part of pattern.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}
