import type { Config, ProjectConfig, WorkspaceEntry } from "./types.ts";

/**
 * Structural checks. Strict: any bad row makes the whole file invalid (edits must not
 * write back a file with rows they silently dropped). Lenient: bad rows are dropped so
 * that a reader can still show the rest; such a result is never cached.
 */
export type Validation = { ok: true; config: Config } | { ok: false; reason: string; lenient: Config };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function workspaceProblem(value: unknown, seen: Set<string>): string | null {
  if (!isRecord(value)) return "workspace is not an object";
  if (typeof value.id !== "string" || value.id === "") return "workspace without id";
  if (seen.has(value.id)) return `duplicate workspace id ${value.id}`;
  if (typeof value.name !== "string") return `workspace ${value.id} without name`;
  if (typeof value.path !== "string") return `workspace ${value.id} without path`;
  if (typeof value.createdAt !== "string") return `workspace ${value.id} without createdAt`;
  if (value.archivedAt !== undefined && typeof value.archivedAt !== "string") return `workspace ${value.id}: bad archivedAt`;
  return null;
}

export function validateConfig(value: unknown): Validation {
  if (!isRecord(value) || !Array.isArray(value.projects)) {
    return { ok: false, reason: "no projects list", lenient: { projects: [] } };
  }
  const seen = new Set<string>();
  const kept: Config["projects"] = [];
  let firstProblem: string | null = null;
  for (const pair of value.projects as unknown[]) {
    if (
      !Array.isArray(pair) ||
      pair.length !== 2 ||
      typeof pair[0] !== "string" ||
      !isRecord(pair[1]) ||
      !Array.isArray(pair[1].workspaces)
    ) {
      firstProblem ??= "malformed project entry";
      continue;
    }
    const project = pair[1] as ProjectConfig;
    const good: WorkspaceEntry[] = [];
    for (const ws of project.workspaces as unknown[]) {
      const problem = workspaceProblem(ws, seen);
      if (problem) {
        firstProblem ??= problem;
        continue;
      }
      seen.add((ws as WorkspaceEntry).id);
      good.push(ws as WorkspaceEntry);
    }
    kept.push([pair[0], good.length === project.workspaces.length ? project : { ...project, workspaces: good }]);
  }
  if (firstProblem) return { ok: false, reason: firstProblem, lenient: { ...value, projects: kept } as Config };
  return { ok: true, config: value as Config };
}
