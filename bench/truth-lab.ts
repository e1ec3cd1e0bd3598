#!/usr/bin/env bun
/**
 * The truth lab: does `xbench compare` find a 2% and a 5% slowdown, and keep quiet on
 * unchanged code, on this machine? Builds its own fixture repository (bench/truth-lab/
 * fixture.ts: four workload kinds; head slows one file's workloads by 2%, another's by 5%,
 * and leaves a third alone), measures the true ratios in-process, then runs compare again
 * and again in each mode, interleaved (duet: both sides in one process; isolated: one side
 * per process), and reads every run with both inferences (the signed-rank/Hodges–Lehmann
 * interval xbench uses, and the paired t-interval it used before).
 *
 *   bun bench/truth-lab.ts [--runs 4] [--rounds N] [--max-time S] [--target PCT] [--modes duet,isolated]
 *                          [--kinds sum,json,alloc,text] [--json FILE] [--bin PATH] [--small PCT]
 *
 * `--small 1` makes the smaller slowdown 1% instead of 2% (the moonshot: a ~1% change found
 * within `--max-time 300`).
 *
 * `--kinds parse` runs the ms-scale workload alone (a parser at tens of milliseconds a call).
 *
 * Without --rounds, compare runs at its defaults (rounds until every interval is within the
 * target, or the time budget is spent). Prints per mode and inference: false verdicts on the
 * unchanged rows, detection of each slowdown, coverage of the true change, median
 * half-width, and the wall time of a run; then the half-widths per workload at equal wall time.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "pathe";
import mri from "mri";
import type { RoundRecord } from "../src/compare/run/store.ts";
import type { CompareResult } from "../src/model/result.ts";
import { logRatios, pairedStats } from "../src/stats/paired.ts";
import { tInterval } from "./truth-lab/t-interval.ts";
import { median } from "../src/stats/quantile.ts";
import { pairUp } from "../src/stats/validate.ts";
import { createRepo } from "../test/support/repo.ts";
import {
  benchFile,
  CALIBRATE_JS,
  calibrationCopy,
  DEFAULT_KINDS,
  FILES,
  KINDS,
  padsJs,
  WORKLOADS_JS,
  type Kind,
  type LabFile,
} from "./truth-lab/fixture.ts";

const args = mri(process.argv.slice(2), {
  string: ["runs", "rounds", "max-time", "target", "modes", "kinds", "json", "bin", "small"],
});
/** The slowdowns head makes, by file: the smaller one is `--small` percent (2 unless given). */
const EFFECTS: Record<LabFile, number> = { ...FILES, slow2: args.small ? Number(args.small) / 100 : FILES.slow2 };
const runs = Number(args.runs ?? 4);
const modes = String(args.modes ?? "duet,isolated").split(",") as Array<"duet" | "isolated">;
const kinds = (args.kinds ? String(args.kinds).split(",") : DEFAULT_KINDS) as Kind[];
for (const k of kinds) if (!KINDS.includes(k)) throw new Error(`--kinds: no workload ${k} (${KINDS.join(", ")})`);
/** The binary under test: this checkout's build, or `--bin` (another commit's build, to compare two). */
const BIN = args.bin ? String(args.bin) : join(import.meta.dir, "..", "dist", "xbench");

type Interval = [number, number];
/** The two inferences read from the same per-round values: interval of delta at 95%. */
const INFERENCES: Record<string, (base: number[], head: number[]) => Interval> = {
  "signed-rank": (base, head) => pairedStats("lab", base, head).ci,
  "t (before)": (base, head) => tInterval(logRatios(base, head)).ci,
};

function node(script: string, argv: string[], cwd: string): Record<string, number> {
  const r = spawnSync("node", [script, ...argv], { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`calibration failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number>;
}

const repo = createRepo();
try {
  // Base: every pad zero.
  const zero = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  repo.write({
    "package.json": JSON.stringify({ name: "lab", private: true, type: "module" }, null, 2),
    "src/workloads.js": WORKLOADS_JS,
    "src/pads.js": padsJs({ same: zero, slow2: zero, slow5: zero }),
    ...Object.fromEntries((Object.keys(FILES) as LabFile[]).map((f) => [`bench/${f}.bench.ts`, benchFile(f, kinds)])),
  });
  repo.commit("base");

  // Head: pads sized from each workload's cost, corrected twice against in-process ratios
  // (a spin loop's cost is not linear in its steps for short pads), then the true ratios
  // measured in three more processes, 4 s per workload each, with base's and head's copies
  // built as compare builds them: the truth the intervals are checked against.
  const copies = (f: LabFile, pads: Record<Kind, number>) =>
    repo.write({ [`calibrate/base/${f}.js`]: calibrationCopy(f, zero), [`calibrate/head/${f}.js`]: calibrationCopy(f, pads) });
  const calibrate = (argv: string[]) => node("calibrate/calibrate.mjs", [...argv, kinds.join(",")], repo.dir);
  repo.write({ "calibrate/calibrate.mjs": CALIBRATE_JS });
  copies("same", zero);
  const cost = calibrate(["cost", "same", "1"]);
  const truthOf = (f: LabFile, processes: number, seconds: number): Record<Kind, number> => {
    const measured = Array.from({ length: processes }, () => calibrate(["truth", f, String(seconds)]));
    return { ...zero, ...Object.fromEntries(kinds.map((k) => [k, median(measured.map((m) => m[k]!)) - 1])) } as Record<Kind, number>;
  };
  const pads = { same: { ...zero }, slow2: { ...zero }, slow5: { ...zero } } as Record<LabFile, Record<Kind, number>>;
  const truth = { same: { ...zero }, slow2: { ...zero }, slow5: { ...zero } } as Record<LabFile, Record<Kind, number>>;
  for (const f of ["slow2", "slow5"] as const) {
    for (const k of kinds) pads[f][k] = Math.max(1, Math.round((EFFECTS[f] * cost[k]!) / cost.spinStepNs!));
    for (let step = 0; step < 2; step++) {
      copies(f, pads[f]);
      const measured = truthOf(f, 1, 1);
      for (const k of kinds) if (measured[k] > 0) pads[f][k] = Math.max(1, Math.round((pads[f][k] * EFFECTS[f]) / measured[k]));
    }
    copies(f, pads[f]);
    truth[f] = truthOf(f, 3, 4);
  }
  repo.write({ "src/pads.js": padsJs(pads) });
  repo.commit("head: slower");
  console.log(
    `workload cost (ns): ${kinds.map((k) => `${k} ${cost[k]!.toFixed(0)}`).join(", ")}; spin step ${cost.spinStepNs!.toFixed(2)} ns`,
  );
  for (const f of ["slow2", "slow5"] as const) {
    console.log(`true change ${f}: ${kinds.map((k) => `${k} ${(truth[f][k] * 100).toFixed(2)}%`).join(", ")}`);
  }

  const settings = [
    ...(args.rounds ? ["--rounds", String(args.rounds)] : []),
    ...(args["max-time"] ? ["--max-time", String(args["max-time"])] : []),
    ...(args.target ? ["--target", String(args.target)] : []),
  ];
  interface Run {
    mode: string;
    wallS: number;
    rounds: number;
    load: [number, number];
    /** Median batch length of every timed row, side and process of the run, from its rounds file. */
    batchNs: number[];
    result: CompareResult;
  }
  const done: Run[] = [];
  const runsDir = join(repo.dir, ".git", "xbench", "runs");
  const seen = new Set<string>();
  /** The batch lengths (`batchNs`) of every timed row in the rounds file of the run that just ended. */
  const batchLengths = (): number[] => {
    const lengths: number[] = [];
    for (const id of readdirSync(runsDir).filter((d) => !seen.has(d))) {
      seen.add(id);
      for (const line of readFileSync(join(runsDir, id, "rounds.ndjson"), "utf8").split("\n")) {
        if (!line.trim()) continue;
        for (const row of (JSON.parse(line) as RoundRecord).rows ?? []) if (row.batchNs !== undefined) lengths.push(row.batchNs);
      }
    }
    return lengths;
  };
  const out = join(repo.dir, ".git", "lab-result.json");
  for (let r = 0; r < runs; r++) {
    for (const mode of r % 2 === 0 ? modes : [...modes].reverse()) {
      const loadStart = loadavg()[0]!;
      const start = performance.now();
      const argv = [
        "compare",
        "--base",
        "HEAD~1",
        "--head",
        "HEAD",
        "--json",
        out,
        ...settings,
        ...(mode === "isolated" ? ["--isolate"] : []),
      ];
      const p = spawnSync(BIN, argv, { cwd: repo.dir, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
      if (p.status !== 0) throw new Error(`compare (${mode}) exited ${p.status}: ${p.stderr.slice(-2000)}`);
      const result = JSON.parse(readFileSync(out, "utf8")) as CompareResult;
      rmSync(out, { force: true });
      const run = {
        mode,
        wallS: (performance.now() - start) / 1000,
        rounds: result.rounds.completed,
        load: [loadStart, loadavg()[0]!] as [number, number],
        batchNs: batchLengths(),
        result,
      };
      done.push(run);
      const ms = (ns: number) => `${(ns / 1e6).toFixed(2)} ms`;
      console.log(
        `run ${r + 1}/${runs} ${mode}: ${run.rounds} rounds, ${run.wallS.toFixed(0)} s, load ${run.load.map((l) => l.toFixed(1)).join(" -> ")}, ` +
          (run.batchNs.length > 0
            ? `batches (median per row, side and process) ${ms(Math.min(...run.batchNs))} shortest, ${ms(median(run.batchNs))} median`
            : "no batch lengths in the rounds file"),
      );
    }
  }

  interface Reading {
    mode: string;
    inference: string;
    file: LabFile;
    kind: Kind;
    truth: number;
    ci: Interval;
    wallS: number;
  }
  const readings: Reading[] = [];
  for (const run of done) {
    for (const row of run.result.rows) {
      if (row.status !== "ok" || !row.stats) continue;
      const file = row.file.replace(/^bench\/|\.bench\.ts$/g, "") as LabFile;
      const kind = row.label as Kind;
      const pairs = pairUp(row.base, row.head);
      for (const [inference, interval] of Object.entries(INFERENCES)) {
        readings.push({
          mode: run.mode,
          inference,
          file,
          kind,
          truth: truth[file][kind],
          ci: interval(pairs.base, pairs.head),
          wallS: run.wallS,
        });
      }
    }
  }
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
  const rate = (hits: number, n: number) => `${hits}/${n} (${n ? ((100 * hits) / n).toFixed(0) : "-"}%)`;
  const halfWidth = (r: Reading) => (r.ci[1] - r.ci[0]) / 2;
  const small = `detect +${(EFFECTS.slow2 * 100).toFixed(0)}%`.padEnd(15);
  console.log(`\nmode      inference     A/A verdicts   ${small}detect +5%     coverage        median ±   wall/run  rounds`);
  for (const mode of modes) {
    const modeRuns = done.filter((r) => r.mode === mode);
    for (const inference of Object.keys(INFERENCES)) {
      const mine = readings.filter((r) => r.mode === mode && r.inference === inference);
      const of = (f: LabFile) => mine.filter((r) => r.file === f);
      const aa = of("same");
      const falseVerdicts = aa.filter((r) => r.ci[0] > 0 || r.ci[1] < 0).length;
      const detected = (f: LabFile) => of(f).filter((r) => r.ci[0] > 0).length;
      const covered = mine.filter((r) => r.ci[0] <= r.truth && r.truth <= r.ci[1]).length;
      console.log(
        [
          mode.padEnd(9),
          inference.padEnd(13),
          rate(falseVerdicts, aa.length).padEnd(14),
          rate(detected("slow2"), of("slow2").length).padEnd(14),
          rate(detected("slow5"), of("slow5").length).padEnd(14),
          rate(covered, mine.length).padEnd(15),
          `±${pct(median(mine.map(halfWidth)))}`.padEnd(10),
          `${median(modeRuns.map((r) => r.wallS)).toFixed(0)} s`.padEnd(9),
          String(median(modeRuns.map((r) => r.rounds))),
        ].join(" "),
      );
    }
  }
  if (modes.includes("duet") && modes.includes("isolated")) {
    // Half-width shrinks as 1/√rounds: project isolated's to duet's wall time per run.
    const wall = (mode: string) => median(done.filter((r) => r.mode === mode).map((r) => r.wallS));
    const scale = Math.sqrt(wall("isolated") / wall("duet"));
    console.log(`\nsigned-rank half-width per workload, isolated projected to duet's wall time (x${scale.toFixed(2)}):`);
    for (const kind of kinds) {
      const hw = (mode: string) =>
        median(readings.filter((r) => r.mode === mode && r.inference === "signed-rank" && r.kind === kind).map(halfWidth));
      const isolated = hw("isolated") * scale;
      console.log(
        `  ${kind.padEnd(6)} duet ±${pct(hw("duet"))}  isolated ±${pct(isolated)}  ratio 1/${(isolated / hw("duet")).toFixed(1)}`,
      );
    }
  }
  if (args.json)
    writeFileSync(
      String(args.json),
      JSON.stringify({ cost, pads, truth, runs: done.map(({ result, ...run }) => ({ ...run, rows: result.rows })) }, null, 2),
    );
} finally {
  repo.cleanup();
}
