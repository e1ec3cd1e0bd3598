/** What a later compare reclaims from runs killed before they could clean up (docs/reliability.md). */
import { afterEach, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "pathe";
import { reclaimDeadRuns } from "../../src/compare/run/reclaim.ts";
import { pidSpace } from "../../src/util/proc.ts";
import { tempDir } from "../support/xbench.ts";

let undo: Array<() => void> = [];
afterEach(() => {
  for (const step of undo.reverse()) step();
  undo = [];
});

/** A run temp folder under `root` whose owner is `pid`, with a folder it owned elsewhere. */
function deadRun(root: string, name: string, owner: Record<string, unknown>): { dir: string; owned: string } {
  const dir = join(root, name);
  const owned = join(root, "elsewhere", name, "node_modules", ".cache", "xbench", "run-base-0");
  mkdirSync(dir, { recursive: true });
  mkdirSync(owned, { recursive: true });
  writeFileSync(join(dir, "owner.json"), JSON.stringify({ repo: join(root, "no-repo"), ...owner }));
  writeFileSync(join(dir, "owned.ndjson"), `${JSON.stringify({ path: owned, created: [join(owned, ".."), join(owned, "..", "..")] })}\n`);
  return { dir, owned };
}

test("a dead owner's run is reclaimed with what it owned; a live one's, another pid space's and an ownerless folder are not", () => {
  const { dir: root, cleanup } = tempDir("xbench-reclaim-");
  undo.push(cleanup);
  const dead = spawnSync("true").pid!;
  const here = pidSpace(hostname());
  const gone = deadRun(root, "xbench-compare-gone", { pid: dead, space: here });
  const live = deadRun(root, "xbench-compare-live", { pid: process.pid, space: here });
  const foreign = deadRun(root, "xbench-tracer-compare-far", { pid: dead, space: "pid:[1]@another-host" });
  const ownerless = join(root, "xbench-compare-new");
  mkdirSync(ownerless); // mkdtemp done, owner not written yet: never touched

  expect(reclaimDeadRuns(root)).toEqual({ runs: 1, worktrees: 0 });
  expect(existsSync(gone.dir)).toBe(false);
  expect(existsSync(join(gone.owned, "..", ".."))).toBe(false); // .cache/xbench and .cache, made for it
  expect(existsSync(join(gone.owned, "..", "..", ".."))).toBe(true); // node_modules: not made by the run
  for (const kept of [live.dir, live.owned, foreign.dir, foreign.owned, ownerless]) expect(existsSync(kept)).toBe(true);
});
