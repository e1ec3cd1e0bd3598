/**
 * Row names a person reads: the bench file as the user knows it, then the benchmark's label
 * (`stats.bench.ts › pairedStats`), the file by the shortest path suffix no other file of the
 * table shares. The stable id (`stats-26db3eab: pairedStats`, compare/identity.ts) stays in the
 * JSON, where tools match rows across runs; terminal, markdown and HTML show these names.
 */
import type { CompareResult, GateRow } from "../model/result.ts";

/** Per file, the fewest trailing path segments that tell it from every other file given. */
export function shortestUniquePaths(files: readonly string[]): Map<string, string> {
  const unique = [...new Set(files)];
  const segments = new Map(unique.map((file) => [file, file.split("/")]));
  const names = new Map<string, string>();
  for (const file of unique) {
    const own = segments.get(file)!;
    for (let take = 1; take <= own.length; take++) {
      const suffix = own.slice(-take).join("/");
      const clash = unique.some((other) => other !== file && `/${other}`.endsWith(`/${suffix}`));
      if (!clash || take === own.length) {
        names.set(file, suffix);
        break;
      }
    }
  }
  return names;
}

/** `file › label`: a row's name for reading. */
export function rowName(path: string, label: string): string {
  return `${path} › ${label}`;
}

/**
 * The result with each row's id replaced by its name for reading, in the rows, the gate and
 * anything else that names a row; for the renderers a person reads (never for the JSON).
 */
export function withDisplayNames(result: CompareResult): CompareResult {
  const paths = shortestUniquePaths(result.rows.map((row) => row.file));
  const names = new Map(result.rows.map((row) => [row.id, rowName(paths.get(row.file) ?? row.file, row.label)]));
  const rename = (row: GateRow): GateRow => ({ ...row, id: names.get(row.id) ?? row.id });
  return {
    ...result,
    rows: result.rows.map((row) => ({ ...row, id: names.get(row.id)! })),
    ...(result.gate
      ? { gate: { ...result.gate, failing: result.gate.failing.map(rename), undecided: result.gate.undecided.map(rename) } }
      : {}),
  };
}
