#!/usr/bin/env bun
/**
 * Does every runtime agree with a direct measurement? Builds a fixture repository
 * (bench/runtime-agreement/fixture.ts: an HTML escaper modeled on a real "faster scanning"
 * commit, on a short and on a long input, and a synthetic row whose head does 40% less work),
 * then, per runtime (node, bun, deno) and run, measures head against base twice, interleaved:
 * through `dist/xbench compare --runtime R` (bundles, duet, signed-rank interval), and with a
 * plain script that imports both versions' sources unbundled into one process and alternates
 * them in blocks of --block ms, in two call styles (see DIRECT_JS). Prints, side by side, the
 * direction and size of each.
 *
 *   bun bench/runtime-agreement.ts [--runtimes node,bun,deno] [--runs 1] [--rounds 6] [--block 200] [--pairs 12]
 *                                  [--bin dist/xbench] [--json FILE]
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "pathe";
import mri from "mri";
import type { CompareResult } from "../src/model/result.ts";
import { createRepo } from "../test/support/repo.ts";
import {
  BENCH_JS,
  DIRECT_JS,
  ESCAPE_BASE_JS,
  ESCAPE_HEAD_JS,
  INPUTS_JS,
  ROWS,
  SYNTHETIC_STEPS,
  syntheticJs,
} from "./runtime-agreement/fixture.ts";

const args = mri(process.argv.slice(2), { string: ["runtimes", "runs", "rounds", "block", "pairs", "json", "bin"] });
const runtimes = String(args.runtimes ?? "node,bun,deno").split(",");
const runs = Number(args.runs ?? 1);
const rounds = String(args.rounds ?? 6);
const ROOT = join(import.meta.dir, "..");
const BIN = args.bin ? String(args.bin) : join(ROOT, "dist", "xbench");
const BIN_DIR = join(ROOT, "node_modules", ".bin");
const env = { ...process.env, PATH: `${BIN_DIR}:${process.env.PATH}` };

/** How each runtime runs the direct script. */
const DIRECT_ARGV: Record<string, string[]> = {
  node: ["node"],
  bun: [join(BIN_DIR, "bun")],
  deno: [join(BIN_DIR, "deno"), "run", "-A", "--quiet"],
};

interface Measured {
  run: number;
  runtime: string;
  label: string;
  xbench: { delta: number; ci: [number, number] } | { error: string };
  /** head/base - 1 from the direct script, per call style and clock. */
  direct: Record<"call" | "closure", { cpu: number; wall: number }>;
  load: [number, number];
}

const sources = (side: "base" | "head") => ({
  "src/escape.js": side === "base" ? ESCAPE_BASE_JS : ESCAPE_HEAD_JS,
  "src/synthetic.js": syntheticJs(SYNTHETIC_STEPS[side]),
  "src/inputs.js": INPUTS_JS,
});

const repo = createRepo();
try {
  repo.write({
    "package.json": JSON.stringify({ name: "agreement", private: true, type: "module" }, null, 2),
    "bench/agree.bench.js": BENCH_JS,
    ...sources("base"),
  });
  repo.commit("base");
  repo.write(sources("head"));
  repo.commit("head: faster scanning, less work");
  // The direct script's copies of each side's sources, inside .git so the tree stays clean.
  const lab = join(repo.dir, ".git", "agreement");
  for (const side of ["base", "head"] as const) {
    for (const [file, text] of Object.entries(sources(side))) {
      mkdirSync(join(lab, side, "src"), { recursive: true });
      writeFileSync(join(lab, side, file), text);
    }
  }
  writeFileSync(join(lab, "direct.mjs"), DIRECT_JS);
  checkSameOutput(lab);

  const measured: Measured[] = [];
  const out = join(lab, "result.json");
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? runtimes : [...runtimes].reverse();
    for (const runtime of order) {
      const load0 = loadavg()[0]!;
      const argv = ["compare", "--base", "HEAD~1", "--head", "HEAD", "--runtime", runtime, "--rounds", rounds, "--json", out];
      const p = spawnSync(BIN, argv, { cwd: repo.dir, env, encoding: "utf8" });
      const result = p.status === 0 || p.status === 1 ? (JSON.parse(readFileSync(out, "utf8")) as CompareResult) : undefined;
      rmSync(out, { force: true });
      const d = spawnSync(
        DIRECT_ARGV[runtime]![0]!,
        [
          ...DIRECT_ARGV[runtime]!.slice(1),
          join(lab, "direct.mjs"),
          join(lab, "base"),
          join(lab, "head"),
          String(args.block ?? 200),
          String(args.pairs ?? 12),
        ],
        { cwd: repo.dir, env, encoding: "utf8" },
      );
      if (d.status !== 0) throw new Error(`direct script under ${runtime} exited ${d.status}: ${d.stderr.slice(-1000)}`);
      type Ratios = Record<"call" | "closure", { cpu: number; wall: number }>;
      const direct = JSON.parse(d.stdout.trim().split("\n").pop()!) as Record<string, Ratios>;
      const load: [number, number] = [load0, loadavg()[0]!];
      for (const row of ROWS) {
        const found = result?.rows.find((r) => r.label === row.label);
        const xbench =
          found?.stats !== undefined
            ? { delta: found.stats.delta, ci: found.stats.ci }
            : { error: found?.error?.message ?? `compare exited ${p.status}: ${p.stderr.trim().split("\n").pop()}` };
        const change = (r: { cpu: number; wall: number }) => ({ cpu: r.cpu - 1, wall: r.wall - 1 });
        const ratio = direct[row.label]!;
        measured.push({
          run,
          runtime,
          label: row.label,
          xbench,
          direct: { call: change(ratio.call), closure: change(ratio.closure) },
          load,
        });
      }
      console.error(`run ${run + 1}/${runs} ${runtime}: done, load ${load.map((l) => l.toFixed(1)).join(" -> ")}`);
    }
  }
  printTable(measured);
  if (args.json) writeFileSync(String(args.json), JSON.stringify(measured, null, 2));
} finally {
  repo.cleanup();
}

/** Base and head must escape alike, or the fixture compares two different jobs. */
function checkSameOutput(lab: string): void {
  const script = `const [b, h, i] = await Promise.all(["base/src/escape.js", "head/src/escape.js", "base/src/inputs.js"].map((f) => import(${JSON.stringify(`${lab}/`)} + f)));
for (const s of [i.SHORT, i.PAGE, "a".repeat(40) + "<\\u20d2" + "b".repeat(3) + "\\u{1F600}&&x=\\u20e5", "plain", "", "<", "\\ud800"]) if (b.encodeHTML(s) !== h.encodeHTML(s)) throw new Error("base and head differ on " + s);`;
  const r = spawnSync("node", ["--input-type=module", "-e", script], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`fixture check failed: ${r.stderr}`);
}

function printTable(measured: Measured[]): void {
  const pct = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
  console.log("\ndirect: head/base - 1 by process CPU time (wall time in the JSON); call: fn(input) from one shared block");
  console.log("function; closure: () => fn(input) from a block function of its own, as a bench file's closure runs\n");
  console.log(
    "run runtime  row                xbench delta [95% CI]            verdict  direct call  direct closure  xbench against call / closure",
  );
  for (const m of measured) {
    const x = "error" in m.xbench ? undefined : m.xbench;
    const interval = x ? `${pct(x.delta)} [${pct(x.ci[0])}, ${pct(x.ci[1])}]` : `error: ${(m.xbench as { error: string }).error}`;
    const verdict = x ? (x.ci[0] > 0 ? "slower" : x.ci[1] < 0 ? "faster" : "~") : "-";
    const against = (direct: number) => {
      if (!x) return "-";
      const inside = x.ci[0] <= direct && direct <= x.ci[1];
      if (verdict === "~") return inside ? "no verdict, in CI" : "no verdict";
      const same = (verdict === "faster") === direct < 0;
      return `${same ? "same" : "REVERSED"}${inside ? ", in CI" : ""}`;
    };
    console.log(
      [
        String(m.run + 1).padEnd(3),
        m.runtime.padEnd(8),
        m.label.padEnd(18),
        interval.padEnd(32),
        verdict.padEnd(8),
        pct(m.direct.call.cpu).padEnd(12),
        pct(m.direct.closure.cpu).padEnd(15),
        `${against(m.direct.call.cpu)} / ${against(m.direct.closure.cpu)}`,
      ].join(" "),
    );
  }
}
