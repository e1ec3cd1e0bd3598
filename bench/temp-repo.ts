/**
 * A throwaway git repository for the benchmarks that run xbench compare on a suite they write
 * (bench/unchanged.ts, bench/shards.ts). `cleanup()` removes it.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";

export interface TempRepo {
  dir: string;
  write(path: string, text: string): void;
  commit(message: string): void;
  cleanup(): void;
}

export function tempRepo(prefix: string): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const git = (...argv: string[]) => {
    const r = spawnSync("git", argv, { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${argv.join(" ")}: ${r.stderr}`);
  };
  git("init", "-q");
  return {
    dir,
    write(path, text) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    },
    commit(message) {
      git("add", "-A");
      git("-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", message);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Module i of a suite: a loop whose work depends on i; `step` 1 unless a change wants otherwise. */
export function workModule(i: number, step = 1): string {
  return `export function work${i}(n) { let s = 0; for (let k = 0; k < n; k += ${step}) s = (s + k * ${i + 3}) % 65521; return s; }\n`;
}

/** The bench file of module i: three mitata rows. */
export function workBench(i: number): string {
  return `import { bench } from "mitata";\nimport { work${i} } from "../src/m${i}.js";\nbench("small", () => work${i}(100));\nbench("medium", () => work${i}(1000));\nbench("large", () => work${i}(3000));\n`;
}
