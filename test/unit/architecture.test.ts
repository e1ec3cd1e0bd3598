/**
 * The layering of src/ (ARCHITECTURE.md): no import cycle between folders nor between files,
 * and nothing outside src/cli imports from it. A folder is a directory under src/ (nested ones
 * count apart, as runner/child); a file directly in src/ (errors.ts, version.ts, index.ts) is a
 * node of its own. The subfolders of src/compare are one layer with it: the types every stage
 * shares (events.ts, context.ts) sit at its top and are imported from the subfolders, so the
 * subfolders are checked among themselves instead (below).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "pathe";
import { findCycle } from "../support/cycles.ts";

const SRC = resolve(import.meta.dir, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(m?ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** Relative specifiers of static imports and re-exports (type-only ones too) and dynamic imports. */
function relativeImports(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.[^"']*)["']/gm,
    /^\s*import\s*["'](\.[^"']*)["']/gm,
    /\bimport\(\s*["'](\.[^"']*)["']\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!));
}

/** Every import between two files of src/, as paths relative to src/. */
function importEdges(): Array<{ from: string; to: string }> {
  return sourceFiles(SRC).flatMap((file) =>
    relativeImports(readFileSync(file, "utf8"))
      .map((specifier) => relative(SRC, resolve(dirname(file), specifier)))
      .filter((to) => !to.startsWith(".."))
      .map((to) => ({ from: relative(SRC, file), to })),
  );
}

const folderOf = (path: string) => {
  const folder = dirname(path);
  if (folder === ".") return path;
  return folder.startsWith("compare/") ? "compare" : folder;
};

describe("layering of src/", () => {
  const edges = importEdges();

  test("the scan sees the imports (a guard against a pattern that matches nothing)", () => {
    expect(edges).toContainEqual({ from: "cli/index.ts", to: "commands/root.ts" });
    expect(edges).toContainEqual({ from: "commands/root.ts", to: "commands/compare.ts" }); // dynamic import
  });

  test("no module outside src/cli imports from it", () => {
    const intoCli = edges.filter((e) => !e.from.startsWith("cli/") && e.to.startsWith("cli/"));
    expect(intoCli.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  test("no import cycle between folders", () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of edges) {
      const [a, b] = [folderOf(edge.from), folderOf(edge.to)];
      if (a === b) continue;
      if (!graph.has(a)) graph.set(a, new Set());
      graph.get(a)!.add(b);
    }
    const cycle = findCycle(graph);
    const why = cycle?.slice(1).map((to, i) => {
      const from = cycle[i]!;
      const files = edges.filter((e) => folderOf(e.from) === from && folderOf(e.to) === to).map((e) => `${e.from} -> ${e.to}`);
      return `${from} -> ${to} (${files.join(", ")})`;
    });
    expect(why).toBeUndefined();
  });

  // Type-only imports count: a loop through a type still means neither file can be read
  // without the other, and the type has a home below both (a small types module). Only the
  // runtime would not see it, and the rule is about reading the code, not loading it.
  test("no import cycle between files", () => {
    const files = new Set(sourceFiles(SRC).map((file) => relative(SRC, file)));
    // An import the scan resolves to no file would drop its edge and let a loop through.
    expect(edges.filter((e) => !files.has(e.to)).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
    const graph = new Map<string, Set<string>>();
    for (const edge of edges) {
      if (!graph.has(edge.from)) graph.set(edge.from, new Set());
      graph.get(edge.from)!.add(edge.to);
    }
    expect(findCycle(graph)?.join(" -> ")).toBeUndefined();
  });
});

/** The subfolders of src/compare and the file each is imported by from the rest of src/ (ARCHITECTURE.md, "Floor plan of compare"). */
const COMPARE_ENTRIES: Record<string, string> = {
  "compare/run": "compare/run/store.ts",
  "compare/sides": "compare/sides/prepare.ts",
  "compare/rounds": "compare/rounds/rounds.ts",
  "compare/bisect": "compare/bisect/bisect.ts",
};
/** Compare's shared types: every subfolder imports them and they name types of several, so a path through them is no loop of subsystems. */
const COMPARE_GROUND = new Set(["compare/events.ts", "compare/context.ts"]);

/** A compare subfolder, or a file at compare's top, for the file at `path`; undefined outside src/compare. */
function compareNode(path: string): string | undefined {
  if (!path.startsWith("compare/")) return undefined;
  const folder = dirname(path);
  return folder === "compare" ? path : folder.split("/").slice(0, 2).join("/");
}

describe("subsystems of src/compare", () => {
  const edges = importEdges();
  const subfolders = [...new Set(sourceFiles(join(SRC, "compare")).map((f) => compareNode(relative(SRC, f))!))].filter(
    (n) => !n.endsWith(".ts"),
  );

  test("every subfolder has its entry file, and the table names every subfolder", () => {
    expect(subfolders.sort()).toEqual(Object.keys(COMPARE_ENTRIES).sort());
    const files = new Set(sourceFiles(SRC).map((file) => relative(SRC, file)));
    for (const entry of Object.values(COMPARE_ENTRIES)) expect(files.has(entry)).toBe(true);
  });

  test("at most ten files at compare's top", () => {
    expect(readdirSync(join(SRC, "compare")).filter((name) => name.endsWith(".ts")).length).toBeLessThanOrEqual(10);
  });

  test("no import cycle between compare's subfolders and its top files (the shared types aside)", () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of edges) {
      const [a, b] = [compareNode(edge.from), compareNode(edge.to)];
      if (!a || !b || a === b || COMPARE_GROUND.has(a) || COMPARE_GROUND.has(b)) continue;
      if (!graph.has(a)) graph.set(a, new Set());
      graph.get(a)!.add(b);
    }
    expect(graph.get("compare/engine.ts")).toContain("compare/rounds"); // a guard against a graph with no edges
    expect(findCycle(graph)?.join(" -> ")).toBeUndefined();
  });

  test("from outside src/compare, a subfolder is imported only through its entry file", () => {
    const around = edges.filter((e) => {
      const node = compareNode(e.to);
      return !e.from.startsWith("compare/") && node !== undefined && node in COMPARE_ENTRIES && COMPARE_ENTRIES[node] !== e.to;
    });
    expect(edges.some((e) => e.from.startsWith("commands/") && e.to === "compare/run/store.ts")).toBe(true);
    expect(around.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });
});

/** Static imports and re-exports that carry values (not `import type`/`export type`), and dynamic imports. */
function valueImports(source: string): string[] {
  const patterns = [
    /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s*["'](\.[^"']*)["']/gm,
    /^\s*import\s*["'](\.[^"']*)["']/gm,
    /\bimport\(\s*["'](\.[^"']*)["']\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!));
}

/** The files of src/report/ that read a result into figures (docs/report.md): they may use src/stats. */
const ANALYSIS_MODULES = new Set(["report/row-stats.ts", "report/analysis.ts"]);

describe("renderers take data", () => {
  const graph = new Map(
    sourceFiles(SRC).map((file) => [
      relative(SRC, file),
      valueImports(readFileSync(file, "utf8")).map((specifier) => relative(SRC, resolve(dirname(file), specifier))),
    ]),
  );
  /** The first chain of value imports from `from` into src/stats/, or undefined. */
  const pathToStats = (from: string): string[] | undefined => {
    const seen = new Set([from]);
    const queue = [[from]];
    while (queue.length > 0) {
      const path = queue.shift()!;
      for (const next of graph.get(path.at(-1)!) ?? []) {
        if (next.startsWith("stats/")) return [...path, next];
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push([...path, next]);
      }
    }
    return undefined;
  };
  const renderers = [...graph.keys()].filter((file) => dirname(file) === "report" && !ANALYSIS_MODULES.has(file));

  test("the scan sees renderers and the analysis's way into src/stats (a guard against a rule that checks nothing)", () => {
    for (const file of ["report/terminal.ts", "report/markdown.ts", "report/json.ts", "report/html.ts", "report/outputs.ts"])
      expect(renderers).toContain(file);
    expect(pathToStats("report/analysis.ts")).toBeDefined();
  });

  test("no renderer in src/report imports src/stats, directly or through what it imports (type-only imports aside)", () => {
    const reaching = renderers.flatMap((file) => {
      const path = pathToStats(file);
      return path ? [path.join(" -> ")] : [];
    });
    expect(reaching).toEqual([]);
  });
});
