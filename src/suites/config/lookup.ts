import type { ReadonlyConfig, ReadonlyWorkspace } from "./types.ts";

/** Where a workspace lives: its row and the project that holds it. */
export interface WorkspaceRef {
  projectPath: string;
  workspace: ReadonlyWorkspace;
}

/** What a workspace list needs, derived from one row. */
export interface WorkspaceMetadata {
  id: string;
  name: string;
  title: string;
  projectPath: string;
  projectName: string;
  archived: boolean;
  taskStatus: string | null;
  models: string[];
}

/**
 * Builds the id index of one snapshot. Snapshots never change, so one index per snapshot
 * (kept beside it by the store) turns every lookup into a Map hit.
 */
export function indexWorkspaces(config: ReadonlyConfig): Map<string, WorkspaceRef> {
  const index = new Map<string, WorkspaceRef>();
  for (const [projectPath, project] of config.projects) {
    for (const workspace of project.workspaces) index.set(workspace.id, { projectPath, workspace });
  }
  return index;
}

export function metadataOf({ projectPath, workspace }: WorkspaceRef): WorkspaceMetadata {
  const agents = workspace.aiSettingsByAgent ?? {};
  return {
    id: workspace.id,
    name: workspace.name,
    title: workspace.title ?? workspace.name,
    projectPath,
    projectName: projectPath.slice(projectPath.lastIndexOf("/") + 1),
    archived: workspace.archivedAt !== undefined && (workspace.unarchivedAt === undefined || workspace.unarchivedAt < workspace.archivedAt),
    taskStatus: workspace.task?.status ?? null,
    models: Object.values(agents).map((settings) => settings.model),
  };
}

/** Metadata of every workspace, in file order. */
export function allWorkspaceMetadata(config: ReadonlyConfig): WorkspaceMetadata[] {
  const out: WorkspaceMetadata[] = [];
  for (const [projectPath, project] of config.projects) {
    for (const workspace of project.workspaces) out.push(metadataOf({ projectPath, workspace }));
  }
  return out;
}
