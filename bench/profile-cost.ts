#!/usr/bin/env bun
/**
 * What `compare --profile` costs and how well it points at the change (docs/profile.md): a
 * package of three rows (test/support/profile-fixture.ts: parse, validate and render at half,
 * one and two times the work) whose head makes validate about 30% slower. Each pair runs the
 * same compare without and with `--profile all`, in alternating order; prints both wall
 * times, what profiling added, and for each row whether validate ranked first.
 *
 *   bun bench/profile-cost.ts [PAIRS (10)] [--time MS (100)]
 * Uses dist/xbench (run `bun build.ts` first).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "pathe";
import type { CompareResult } from "../src/model/result.ts";
import { median } from "../src/stats/quantile.ts";
import { pipelinePackage, slowerValidate } from "../test/support/profile-fixture.ts";
import { tempRepo } from "./temp-repo.ts";

const args = process.argv.slice(2);
const pairs = Number(args.find((a) => /^\d+$/.test(a)) ?? 10);
const timeMs = args.includes("--time") ? args[args.indexOf("--time") + 1]! : "100";
const bin = join(import.meta.dir, "..", "dist", "xbench");
const ROWS = { small: 0.5, medium: 1, large: 2 };
// bun and deno from this checkout, as the tests use them.
const env = { ...process.env, PATH: `${join(import.meta.dir, "..", "node_modules", ".bin")}:${process.env.PATH}` };

const repo = tempRepo("xbench-profile-cost-");
try {
  for (const [path, text] of Object.entries(pipelinePackage(ROWS))) repo.write(path, text);
  repo.commit("pipeline");
  for (const [path, text] of Object.entries(slowerValidate(1.3))) repo.write(path, text);
  const out = join(repo.dir, "..", `${repo.dir.split("/").pop()}.json`);
  const run = (profile: boolean) => {
    const started = performance.now();
    const extra = profile ? ["--profile", "all"] : [];
    const r = spawnSync(bin, ["compare", "--base", "HEAD", "--rounds", "6", "--time", timeMs, "--json", out, ...extra], {
      cwd: repo.dir,
      env,
      encoding: "utf8",
    });
    const wallS = (performance.now() - started) / 1000;
    if (r.status !== 0) throw new Error(`compare ${extra.join(" ")} exited ${r.status}: ${r.stderr}`);
    return { wallS, result: JSON.parse(readFileSync(out, "utf8")) as CompareResult };
  };

  console.log(
    `3 rows (parse, validate, render at ${Object.values(ROWS).join(", ")}x), head's validate 30% slower; --rounds 6 --time ${timeMs}`,
  );
  console.log(
    `load average at the start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const added: number[] = [];
  const plain: number[] = [];
  const profiled: number[] = [];
  const first = Object.fromEntries(Object.keys(ROWS).map((label) => [label, 0]));
  for (let p = 0; p < pairs; p++) {
    const order = p % 2 === 0 ? [false, true] : [true, false];
    const runs = order.map((profile) => ({ profile, ...run(profile) }));
    const without = runs.find((r) => !r.profile)!;
    const withProfile = runs.find((r) => r.profile)!;
    plain.push(without.wallS);
    profiled.push(withProfile.wallS);
    added.push(withProfile.wallS - without.wallS);
    const leaders = withProfile.result.rows.map((row) => `${row.label}: ${row.profile?.functions[0]?.name ?? "none"}`);
    for (const row of withProfile.result.rows) if (row.profile?.functions[0]?.name === "validate") first[row.label]! += 1;
    console.log(
      `pair ${p + 1}: without ${without.wallS.toFixed(1)} s · with --profile all ${withProfile.wallS.toFixed(1)} s · first: ${leaders.join(", ")}`,
    );
  }
  rmSync(out, { force: true });
  const total = Object.values(first).reduce((a, b) => a + b, 0);
  console.log(
    `median: without ${median(plain).toFixed(1)} s, with ${median(profiled).toFixed(1)} s, added ${median(added).toFixed(1)} s per run (${((median(added) / median(plain)) * 100).toFixed(0)}%)`,
  );
  console.log(
    `validate ranked first: ${Object.entries(first)
      .map(([label, n]) => `${label} ${n}/${pairs}`)
      .join(", ")} (${total}/${pairs * 3} rows)`,
  );
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  repo.cleanup();
}
