import { afterEach } from "bun:test";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "pathe";
import type { CompareResult, Row } from "../../src/model/result.ts";
import { createRepo, workFiles, type TestRepo } from "./repo.ts";
import { ROOT, xbench } from "./xbench.ts";

/** Runtimes (bun, deno) from this checkout's node_modules. */
export const COMPARE_ENV = { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` };

/** Repositories made with the returned function are removed after each test. */
export function repoPerTest(): (files: Record<string, string>) => TestRepo {
  let repos: TestRepo[] = [];
  afterEach(() => {
    for (const r of repos) r.cleanup();
    repos = [];
  });
  return (files) => {
    const repo = createRepo();
    repos.push(repo);
    repo.write(files);
    repo.commit("base");
    return repo;
  };
}

/** A repository whose commit has `baseRows` at `benchPath`, its working tree `headRows`. */
export function headChanged(
  repoWith: ReturnType<typeof repoPerTest>,
  benchPath: string,
  baseRows: Parameters<typeof workFiles>[1],
  headRows: Parameters<typeof workFiles>[1],
): TestRepo {
  const repo = repoWith(workFiles(benchPath, baseRows));
  repo.write(workFiles(benchPath, headRows));
  return repo;
}

/** Rows `fine` and `fragile` in t.bench.ts, committed; the working tree's `fragile` throws. */
export function fragileHead(repoWith: ReturnType<typeof repoPerTest>): TestRepo {
  const fine = { label: "fine", work: 2000 };
  return headChanged(repoWith, "t.bench.ts", [fine, { label: "fragile", work: 2000 }], [fine, { label: "fragile", work: 0, throws: true }]);
}

/** `xbench compare ARGS` in `repo`, with short sampling (`--time`), and the JSON result it wrote. */
export function compareIn(repo: TestRepo, args: string[], options: { timeMs?: number; env?: Record<string, string | undefined> } = {}) {
  const out = join(repo.dir, "..", `${repo.dir.split("/").pop()}-result.json`);
  const argv = ["compare", "--time", String(options.timeMs ?? 40), "--json", out, ...args];
  const r = xbench(argv, { cwd: repo.dir, env: options.env ?? COMPARE_ENV, timeout: 300_000 });
  const result = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as CompareResult) : undefined;
  rmSync(out, { force: true }); // outside the repo (the tree must stay clean), so not in its cleanup
  return { ...r, result };
}

export function rowOf(result: CompareResult | undefined, label: string): Row {
  const found = result?.rows.find((r) => r.label === label);
  if (!found) throw new Error(`no row ${label} in ${JSON.stringify(result?.rows.map((r) => r.label))}`);
  return found;
}

/** Pids of live processes whose environment holds `NAME=value`: what a test's own xbench started. */
export function processesWithEnv(name: string, value: string): number[] {
  const wanted = `${name}=${value}`;
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(wanted)) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}
