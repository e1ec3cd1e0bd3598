/**
 * The shape of config.json: projects (an ordered list of [path, project] pairs, as the
 * file stores them) and their workspaces. Only the fields the store validates are typed
 * strictly; the rest of a row is carried as it is.
 */

/** Model and thinking level chosen for one agent inside a workspace. */
export interface AgentAiSettings {
  model: string;
  thinkingLevel: "off" | "low" | "medium" | "high";
}

export interface WorkspaceTask {
  status: "queued" | "running" | "awaiting_review" | "done" | "failed";
  prompt: string;
  parentWorkspaceId?: string;
  agentType?: string;
  reportedAt?: string;
}

export interface WorkspaceEntry {
  /** Unique across the whole file; the O(1) lookup key. */
  id: string;
  name: string;
  title?: string;
  path: string;
  createdAt: string;
  archivedAt?: string;
  unarchivedAt?: string;
  runtimeConfig?: { type: "local" | "worktree" | "ssh"; srcBaseDir?: string; host?: string };
  aiSettingsByAgent?: Record<string, AgentAiSettings>;
  task?: WorkspaceTask;
  /** Occasionally a long stack or tool output; the reason some rows are kilobytes. */
  lastError?: string;
  [extra: string]: unknown;
}

export interface ProjectConfig {
  workspaces: WorkspaceEntry[];
  [extra: string]: unknown;
}

export interface Config {
  projects: [projectPath: string, project: ProjectConfig][];
  [extra: string]: unknown;
}

/** What readers get: the store shares one snapshot, so it must not be changed. */
export type Snapshot<T> = T extends object ? { readonly [K in keyof T]: Snapshot<T[K]> } : T;

export type ReadonlyConfig = Snapshot<Config>;
export type ReadonlyWorkspace = Snapshot<WorkspaceEntry>;

export function emptyConfig(): Config {
  return { projects: [] };
}
