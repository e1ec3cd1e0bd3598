#!/usr/bin/env bun
/**
 * `xbench history` on a known history (docs/history.md, "The method, checked on a known
 * history"): the 30-commit library of test/support/history-fixture.ts with three steps in three
 * rows, every commit recorded, then per row the step's own interval, the moving commits found,
 * the chained cumulative at HEAD and a direct compare of the first commit against HEAD. Prints
 * one line per row and the wall times. `--steps small` (default) measures +10%, -5% and +3%, the steps the method must find;
 * `--steps test` the e2e test's +10%, -10% and +20%; the settings default to the test's.
 *
 *   bun build.ts && bun bench/history-method.ts [--steps small|test] [--rounds 10 --time 60] [--min-effect 1]
 */
import { parseArgs } from "node:util";
import { currentLoad } from "../src/util/load.ts";
import { methodLines, runMethodCheck } from "../test/support/history-check.ts";
import { KNOWN_STEPS, SMALL_STEPS } from "../test/support/history-fixture.ts";

const { values } = parseArgs({
  options: {
    steps: { type: "string", default: "small" },
    rounds: { type: "string", default: "10" },
    time: { type: "string", default: "60" },
    "min-effect": { type: "string", default: "1" },
  },
});
const steps = values.steps === "test" ? KNOWN_STEPS : SMALL_STEPS;
const settings = ["--rounds", values.rounds!, "--time", values.time!];
const load = currentLoad();
const check = runMethodCheck(steps, settings, values["min-effect"]!);
for (const failure of check.failures) console.log(`failure: ${failure}`);
for (const line of methodLines(check, steps)) console.log(line);
console.log(
  `recording 29 commits: ${check.recordS.toFixed(1)} s; direct compare: ${check.directS.toFixed(1)} s; ${settings.join(" ")}, --min-effect ${values["min-effect"]}`,
);
console.log(`load at start ${load.join(" ")}, at end ${currentLoad().join(" ")}`);
