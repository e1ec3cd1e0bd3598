/** Cycle finding for the dependency tests (src/ folders, native/ units). */
import { relative } from "pathe";
import { ROOT } from "./xbench.ts";

/** The node of a C file: its path without the extension, relative to the repository (log.c and log.h are one node). */
export const nativeNode = (file: string) => relative(ROOT, file).replace(/\.[ch]$/, "");

/** Adds the edge from → to; a node reaching itself is no edge (a unit's source including its own header). */
export function addEdge(edges: Map<string, Set<string>>, from: string, to: string): void {
  if (from === to) return;
  if (!edges.has(from)) edges.set(from, new Set());
  edges.get(from)!.add(to);
}

/** A cycle in the graph as the list of its nodes, first repeated at the end; undefined when there is none. */
export function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node];
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}
