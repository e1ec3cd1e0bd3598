#!/usr/bin/env bun
/**
 * `xbench history` on a known history (docs/history.md, "The method, checked on a known
 * history"): the 30-commit library of test/support/history-fixture.ts with three steps in three
 * rows, every commit recorded, then per row the step's own interval, the moving commits found,
 * the chained cumulative at HEAD and a direct compare of the first commit against HEAD. Prints
 * one line per row and the wall times. The steps are +10%, -5% and +3% (KNOWN_STEPS); the
 * settings default to the e2e test's (test/e2e/history-method.test.ts), and `--target ''
 * --max-time ''` leaves a setting out.
 *
 *   bun build.ts && bun bench/history-method.ts [--rounds 6 --time 60 --target 0.5 --max-time 40] [--min-effect 1]
 */
import { parseArgs } from "node:util";
import { currentLoad } from "../src/util/load.ts";
import { METHOD_SETTINGS, methodLines, runMethodCheck, settingsFlags } from "../test/support/history-check.ts";
import { KNOWN_STEPS } from "../test/support/history-fixture.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: METHOD_SETTINGS.rounds },
    time: { type: "string", default: METHOD_SETTINGS.time },
    target: { type: "string", default: METHOD_SETTINGS.target },
    "max-time": { type: "string", default: METHOD_SETTINGS.maxTime },
    "min-effect": { type: "string", default: "1" },
  },
});
const settings = settingsFlags({ rounds: values.rounds!, time: values.time!, target: values.target!, maxTime: values["max-time"]! });
const load = currentLoad();
const check = runMethodCheck(KNOWN_STEPS, settings, values["min-effect"]!);
for (const failure of check.failures) console.log(`failure: ${failure}`);
for (const line of methodLines(check, KNOWN_STEPS)) console.log(line);
console.log(
  `recording 29 commits: ${check.recordS.toFixed(1)} s; direct compare: ${check.directS.toFixed(1)} s; ${settings.join(" ")}, --min-effect ${values["min-effect"]}`,
);
console.log(`load at start ${load.join(" ")}, at end ${currentLoad().join(" ")}`);
