#!/usr/bin/env bun
/**
 * The layout lab: when head changes one function of a module, do the rows of the module's
 * other functions, whose code did not change, get a verdict more often than the 5% level?
 * And does drawing the heap layout per side (compare/rounds/layout.ts) bring them back to it?
 *
 * Fixture: src/lib.js holds the truth lab's four workloads (sum, json, alloc, text) and a
 * `slugify` that head rewrites; bench/lib.bench.js measures all five. bench/control.bench.js
 * measures an untouched copy of the workloads (src/control.js), as a control: same code on
 * both sides, so its layout is never drawn per side. Runs alternate the two arms: the default
 * (a layout drawn before each side loads, where the code differs) and XBENCH_LAYOUT=fixed.
 *
 *   bun bench/layout-lab.ts [--runs 10] [--max-time 40] [--json FILE]
 *
 * Prints, per arm: verdicts on the unchanged rows of the changed module (and of the control
 * file), their median half-width, and the median |delta|.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "pathe";
import mri from "mri";
import type { CompareResult } from "../src/model/result.ts";
import { median } from "../src/stats/quantile.ts";
import { createRepo } from "../test/support/repo.ts";
import { WORKLOADS_JS } from "./truth-lab/fixture.ts";

const args = mri(process.argv.slice(2), { string: ["runs", "max-time", "json"] });
const runs = Number(args.runs ?? 10);
const maxTime = String(args["max-time"] ?? 40);
const BIN = join(import.meta.dir, "..", "dist", "xbench");
const KINDS = ["sum", "json", "alloc", "text"] as const;

const SLUGIFY_BASE = `
export function slugify(s) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}
`;
/** Head's rewrite: a hand-written scan, as a performance change would be. */
const SLUGIFY_HEAD = `
export function slugify(s) {
  let out = "";
  let dash = false;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (dash && out.length > 0) out += "-";
      out += String.fromCharCode(c);
      dash = false;
    } else dash = true;
  }
  return out;
}
`;

const benchFile = (module: string, withSlug: boolean) =>
  [
    'import { bench, run } from "mitata";',
    `import { workloads${withSlug ? ", slugify" : ""} } from "../src/${module}.js";`,
    ...KINDS.map((k) => `bench(${JSON.stringify(k)}, () => workloads.${k}(0));`),
    ...(withSlug ? ['bench("slugify", () => slugify("The Quick Brown Fox, Jumps Over 13 Lazy Dogs!"));'] : []),
    "await run();",
    "",
  ].join("\n");

interface Run {
  arm: "drawn" | "fixed";
  load: [number, number];
  rounds: number;
  rows: Array<{ file: string; label: string; verdict: string; delta: number; halfWidth: number }>;
}

const repo = createRepo();
const done: Run[] = [];
try {
  repo.write({
    "package.json": JSON.stringify({ name: "layout-lab", private: true, type: "module" }, null, 2),
    "src/lib.js": WORKLOADS_JS + SLUGIFY_BASE,
    "src/control.js": WORKLOADS_JS,
    "bench/lib.bench.js": benchFile("lib", true),
    "bench/control.bench.js": benchFile("control", false),
  });
  repo.commit("base");
  repo.write({ "src/lib.js": WORKLOADS_JS + SLUGIFY_HEAD });
  repo.commit("head: slugify by hand");

  const out = join(repo.dir, ".git", "lab-result.json");
  for (let r = 0; r < runs; r++) {
    for (const arm of r % 2 === 0 ? (["drawn", "fixed"] as const) : (["fixed", "drawn"] as const)) {
      const loadStart = loadavg()[0]!;
      const argv = ["compare", "--base", "HEAD~1", "--head", "HEAD", "--all", "--max-time", maxTime, "--json", out];
      const env = { ...process.env, ...(arm === "fixed" ? { XBENCH_LAYOUT: "fixed" } : {}) };
      const p = spawnSync(BIN, argv, { cwd: repo.dir, env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
      if (p.status !== 0) throw new Error(`compare (${arm}) exited ${p.status}: ${p.stderr.slice(-2000)}`);
      const result = JSON.parse(readFileSync(out, "utf8")) as CompareResult;
      rmSync(out, { force: true });
      const rows = result.rows.flatMap((row) =>
        row.stats
          ? [
              {
                file: row.file,
                label: row.label,
                verdict: row.stats.verdict,
                delta: row.stats.delta,
                halfWidth: (row.stats.ci[1] - row.stats.ci[0]) / 2,
              },
            ]
          : [],
      );
      const run: Run = { arm, load: [loadStart, loadavg()[0]!], rounds: result.rounds.completed, rows };
      done.push(run);
      const changedModule = rows.filter((x) => x.file.includes("lib") && x.label !== "slugify");
      console.log(
        `run ${r + 1}/${runs} ${arm}: ${run.rounds} rounds, load ${run.load.map((l) => l.toFixed(1)).join(" -> ")}; ` +
          changedModule.map((x) => `${x.label} ${(x.delta * 100).toFixed(2)}% ±${(x.halfWidth * 100).toFixed(2)} ${x.verdict}`).join(", "),
      );
    }
  }
} finally {
  repo.cleanup();
}

const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
console.log(
  "\narm   | rows of unchanged code in the changed module: verdicts | median ± | median |delta| | control rows: verdicts | median ±",
);
for (const arm of ["drawn", "fixed"] as const) {
  const rows = done.filter((r) => r.arm === arm).flatMap((r) => r.rows);
  const changed = rows.filter((x) => x.file.includes("lib") && x.label !== "slugify");
  const control = rows.filter((x) => x.file.includes("control"));
  const verdicts = (xs: typeof rows) => xs.filter((x) => x.verdict === "slower" || x.verdict === "faster").length;
  console.log(
    `${arm} | ${verdicts(changed)}/${changed.length} | ±${pct(median(changed.map((x) => x.halfWidth)))} | ${pct(median(changed.map((x) => Math.abs(x.delta))))} | ` +
      `${verdicts(control)}/${control.length} | ±${pct(median(control.map((x) => x.halfWidth)))}`,
  );
  for (const kind of KINDS) {
    const k = changed.filter((x) => x.label === kind);
    console.log(`  ${kind}: deltas ${k.map((x) => pct(x.delta)).join(" ")}; verdicts ${verdicts(k)}/${k.length}`);
  }
}
if (args.json) writeFileSync(String(args.json), JSON.stringify(done, null, 2));
