/** Running `xbench compare` in a test repository and reading its JSON result. */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "pathe";
import type { CompareResult, Row } from "../../src/report/model.ts";
import type { TestRepo } from "./repo.ts";
import { ROOT, xbench, type RunResult } from "./xbench.ts";

/** Runtimes (bun, pnpm-free) from this checkout's node_modules, as a user's PATH would have them. */
export const COMPARE_ENV = { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` };

/** Short sampling: these tests check what is measured and named, not fine effects. */
export const FAST = ["--time", "40"];

/** `xbench compare FAST --json <outside the repo> ...args` in the repo; the result when one was written. */
export function runCompare(repo: TestRepo, args: string[], env: NodeJS.ProcessEnv = COMPARE_ENV): RunResult & { result?: CompareResult } {
  const out = join(repo.dir, "..", `${repo.dir.split("/").pop()}-result.json`);
  const r = xbench(["compare", ...FAST, "--json", out, ...args], { cwd: repo.dir, env, timeout: 300_000 });
  const result = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as CompareResult) : undefined;
  rmSync(out, { force: true }); // outside the repo (the tree must stay clean), so not in its cleanup
  return { ...r, result };
}

export function findRow(result: CompareResult | undefined, label: string): Row {
  const found = result?.rows.find((r) => r.label === label);
  if (!found) throw new Error(`no row ${label} in ${JSON.stringify(result?.rows.map((r) => r.label))}`);
  return found;
}
