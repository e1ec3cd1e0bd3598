import { readFileSync, readdirSync } from "node:fs";
import { join } from "pathe";
import { ROOT } from "./xbench.ts";

/** One step of a workflow job or composite action, as far as the tests read it. */
export interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}

export const WORKFLOW_DIR = join(ROOT, ".github", "workflows");

export function workflowFiles(): string[] {
  return readdirSync(WORKFLOW_DIR)
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(WORKFLOW_DIR, name));
}

export function readYaml<T>(file: string): T {
  return Bun.YAML.parse(readFileSync(file, "utf8")) as T;
}

/** Every step of a workflow (all jobs) or of a composite action. */
export function stepsOf(file: string): Step[] {
  const doc = readYaml<{ jobs?: Record<string, { steps?: Step[] }>; runs?: { steps?: Step[] } }>(file);
  if (doc.runs) return doc.runs.steps ?? [];
  return Object.values(doc.jobs ?? {}).flatMap((job) => job.steps ?? []);
}

/**
 * Replaces `${{ expr }}` as the runner would, from `values` (keyed by the expression's text,
 * such as `inputs.version`); an expression the caller did not provide fails the test.
 */
export function expand(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expr: string) => {
    if (!(expr in values)) throw new Error(`no value for \${{ ${expr} }}`);
    return values[expr]!;
  });
}
