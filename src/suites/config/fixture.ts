import { mulberry32, shuffled } from "../../schedule/prng.ts";
import type { AgentAiSettings, Config, ProjectConfig, WorkspaceEntry, WorkspaceTask } from "./types.ts";

/**
 * A deterministic, live-shaped config.json: 19 projects, 57% of workspaces archived,
 * rows with AI settings per agent, task fields and occasionally a long error text.
 * Same seed and size, same bytes, on every runtime. Synthetic only: no real data.
 */
export interface FixtureOptions {
  workspaces: number;
  seed?: number;
  projects?: number;
  archivedShare?: number;
}

const WORDS = (
  "config snapshot cache parser worker queue retry flaky test build lint docs api route " +
  "schema migration index search token auth session stream buffer render layout sidebar " +
  "terminal agent review compact theme settings import export upload sync lock watcher"
).split(" ");
const MODELS = ["anthropic:claude-sonnet-4-5", "anthropic:claude-opus-4-1", "openai:gpt-5-codex", "openai:gpt-5", "google:gemini-2.5-pro"];
const AGENTS = ["exec", "plan", "explore", "compact", "review"];
const THINKING: AgentAiSettings["thinkingLevel"][] = ["off", "low", "medium", "high"];
const STATUSES: WorkspaceTask["status"][] = ["queued", "running", "awaiting_review", "done", "done", "done", "failed"];
const START = Date.UTC(2026, 0, 5);
const DAY = 86_400_000;

export function generateConfig(options: FixtureOptions): Config {
  const random = mulberry32(options.seed ?? 4712);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join("");
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const iso = (ms: number) => new Date(ms).toISOString();

  const projectCount = options.projects ?? 19;
  const projects: [string, ProjectConfig][] = Array.from({ length: projectCount }, (_, i) => [
    `/home/dev/src/${pick(WORDS)}-${pick(WORDS)}-${i}`,
    { workspaces: [] },
  ]);
  // A few projects hold most workspaces, as on a real machine: weight i is 1/(i+1).
  const weights = projects.map((_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);

  // Exactly round(share * n) archived, spread by a seeded shuffle.
  const n = options.workspaces;
  const archived = new Set<number>();
  const order = shuffled(
    Array.from({ length: n }, (_, i) => i),
    random,
  );
  for (const i of order.slice(0, Math.round((options.archivedShare ?? 0.57) * n))) archived.add(i);

  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    let r = random() * total;
    let p = 0;
    while (p < projectCount - 1 && (r -= weights[p]!) > 0) p++;
    const [projectPath, project] = projects[p]!;
    const id = `${hex(10)}${i.toString(16).padStart(4, "0")}`.slice(-12);
    const name = `${pick(WORDS)}-${pick(WORDS)}-${hex(4)}`;
    const created = START + Math.floor(random() * 300 * DAY);
    const ws: WorkspaceEntry = {
      id,
      name,
      title: `${words(int(3, 9))}`.replace(/^./, (c) => c.toUpperCase()),
      path: `/home/dev/.xum/src/${projectPath.slice(projectPath.lastIndexOf("/") + 1)}/${name}`,
      createdAt: iso(created),
      runtimeConfig: random() < 0.8 ? { type: "worktree", srcBaseDir: "/home/dev/.xum/src" } : { type: "local" },
      aiSettingsByAgent: Object.fromEntries(
        AGENTS.slice(0, int(2, AGENTS.length)).map((agent) => [agent, { model: pick(MODELS), thinkingLevel: pick(THINKING) }]),
      ),
    };
    if (random() < 0.6) {
      const task: WorkspaceTask = { status: pick(STATUSES), prompt: words(int(20, 150)), agentType: pick(AGENTS) };
      if (ids.length > 0 && random() < 0.4) task.parentWorkspaceId = pick(ids);
      if (task.status !== "queued") task.reportedAt = iso(created + int(1, 48) * 3_600_000);
      ws.task = task;
    }
    if (archived.has(i)) {
      ws.archivedAt = iso(created + int(1, 60) * DAY);
      if (random() < 0.05) ws.unarchivedAt = iso(created + int(0, 1) * DAY); // older than archivedAt
    }
    if (random() < 0.03) ws.lastError = longError(random, pick, int);
    ids.push(id);
    project.workspaces.push(ws);
  }
  return { projects };
}

/** A stack trace with tool output, 4-24 KB: the rows that make real files large. */
function longError(random: () => number, pick: <T>(list: readonly T[]) => T, int: (lo: number, hi: number) => number): string {
  const lines = [`Error: ${pick(WORDS)} ${pick(WORDS)} failed with exit code ${int(1, 255)}`];
  const target = int(4_000, 24_000);
  let size = lines[0]!.length;
  while (size < target) {
    const line =
      random() < 0.7
        ? `    at ${pick(WORDS)}${pick(WORDS).replace(/^./, (c) => c.toUpperCase())} (/home/dev/src/app/src/${pick(WORDS)}/${pick(WORDS)}.ts:${int(1, 900)}:${int(1, 80)})`
        : `stderr: ${pick(WORDS)}: ${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} (errno ${int(1, 130)})`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** The file's bytes, formatted as the store saves them. */
export function serializeConfig(config: Config): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** The id of the last workspace in file order: the worst case of a linear scan. */
export function lastWorkspaceId(config: Config): string {
  for (let p = config.projects.length - 1; p >= 0; p--) {
    const list = config.projects[p]![1].workspaces;
    if (list.length) return list[list.length - 1]!.id;
  }
  throw new Error("fixture has no workspaces");
}
