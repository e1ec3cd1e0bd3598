/** Bench files are `*.bench.ts` / `*.bench.js` (and the .mts/.mjs spellings). */
export const BENCH_FILE = /\.bench\.(ts|mts|js|mjs)$/;

/** Ignored whatever git says: vendored and generated trees. */
const SKIPPED = /(^|\/)(node_modules|dist|\.git)\//;

export function isBenchFile(path: string): boolean {
  return BENCH_FILE.test(path) && !SKIPPED.test(path);
}

/** A glob over repo-relative paths: `*` within a segment, `**` across, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      source += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/**
 * Bench files matching FILTER: a glob when it has `*` or `?` (matched against the path and
 * the basename), else a substring of the path.
 */
export function selectBenchFiles(files: string[], filter?: string): string[] {
  const bench = files.filter(isBenchFile).sort();
  if (!filter) return bench;
  if (/[*?]/.test(filter)) {
    const re = globToRegExp(filter);
    return bench.filter((f) => re.test(f) || re.test(f.split("/").pop()!));
  }
  return bench.filter((f) => f.includes(filter));
}
