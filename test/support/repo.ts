import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "pathe";
import { tempDir } from "./xbench.ts";

/** A throwaway git repository for end-to-end tests. */
export interface TestRepo {
  dir: string;
  git(...args: string[]): string;
  write(files: Record<string, string>): void;
  commit(message: string): string;
  worktrees(): string[];
  cleanup(): void;
}

export function createRepo(): TestRepo {
  const { dir, cleanup } = tempDir("xbench-repo-");
  const git = (...args: string[]) => {
    const r = spawnSync("git", args, { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout.trim();
  };
  git("init", "-q", "-b", "main");
  git("config", "user.email", "test@example.com");
  git("config", "user.name", "xbench test");
  git("config", "commit.gpgsign", "false");
  return {
    dir,
    git,
    write(files) {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
    },
    commit(message) {
      git("add", "-A");
      git("commit", "-q", "-m", message);
      return git("rev-parse", "HEAD");
    },
    worktrees() {
      return git("worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree "))
        .map((l) => l.slice("worktree ".length));
    },
    cleanup,
  };
}

/**
 * A bench file and the module it measures: benchmark `label` does `work` units of
 * arithmetic per call. The work lives in `<dir>/work.ts`, not in the bench file, because
 * head's bench files replace base's: a change under test must be in the code it imports.
 */
export function workBench(rows: Array<{ label: string; work: number; throws?: boolean }>, dir = "."): { bench: string; lib: string } {
  const work = Object.fromEntries(rows.map((r) => [r.label, r.work]));
  const broken = rows.filter((r) => r.throws).map((r) => r.label);
  const lib = [
    `export const WORK: Record<string, number> = ${JSON.stringify(work)};`,
    `const BROKEN = new Set(${JSON.stringify(broken)});`,
    "export function spin(label: string): number {",
    '  if (BROKEN.has(label)) throw new Error("broken on purpose");',
    "  let s = 0;",
    "  for (let i = 0; i < WORK[label]!; i++) s += Math.sqrt(i + (s % 7));",
    "  return s;",
    "}",
    "",
  ].join("\n");
  const bench = [
    'import { bench, run } from "mitata";',
    `import { spin } from "${dir}/work.ts";`,
    ...rows.map((r) => `bench(${JSON.stringify(r.label)}, () => spin(${JSON.stringify(r.label)}));`),
    "await run();",
    "",
  ].join("\n");
  return { bench, lib };
}

/** The files of a workBench at `benchPath`, its work module beside it. */
export function workFiles(benchPath: string, rows: Parameters<typeof workBench>[0]): Record<string, string> {
  const { bench, lib } = workBench(rows);
  const dir = benchPath.includes("/") ? benchPath.slice(0, benchPath.lastIndexOf("/") + 1) : "";
  return { [benchPath]: bench, [`${dir}work.ts`]: lib };
}

/**
 * Commits 0 to `count - 1` of a bench file with rows `slow` and `other`: `slow(i)` says whether
 * commit i's `slow` does `factor` times the work; every commit also edits unrelated code, and
 * `extra(i)` adds files of its own; `otherWork(i)` is the work of `other` (by default the same
 * in every commit, so commits differ in bench code only where `slow` does). For bisect.
 */
export function slowdownHistory(
  repo: TestRepo,
  slow: (index: number) => boolean,
  options: {
    count?: number;
    factor?: number;
    extra?: (index: number) => Record<string, string>;
    otherWork?: (index: number) => number;
  } = {},
): string[] {
  const { count = 16, factor = 2, extra = () => ({}), otherWork = () => 20000 } = options;
  const shas: string[] = [];
  for (let i = 0; i < count; i++) {
    repo.write({
      ...workFiles("g.bench.ts", [
        { label: "slow", work: slow(i) ? 20000 * factor : 20000 },
        { label: "other", work: otherWork(i) },
      ]),
      "src/unrelated.ts": `export const edits = ${i};\n`,
      ...extra(i),
    });
    for (const name of Object.keys(extra(i - 1))) if (!(name in extra(i))) repo.git("rm", "-q", name);
    shas.push(repo.commit(`commit ${i}${slow(i) !== slow(i - 1) ? (slow(i) ? ": slower" : ": revert") : ""}`));
  }
  return shas;
}
