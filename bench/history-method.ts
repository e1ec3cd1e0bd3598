#!/usr/bin/env bun
/**
 * `xbench history` on a known history (docs/history.md, "The method, checked on a known
 * history"): the 30-commit library of test/support/history-fixture.ts with steps of +10%, -5%
 * and +3% in three rows, every commit recorded, then per row the moving commits found, the
 * chained cumulative at HEAD and a direct compare of the first commit against HEAD. Prints one
 * line per row and the wall times; the settings are the e2e test's unless given.
 *
 *   bun build.ts && bun bench/history-method.ts [--rounds 10 --time 60] [--min-effect 1]
 */
import { parseArgs } from "node:util";
import { formatInterval, formatPercent } from "../src/report/format.ts";
import { runMethodCheck } from "../test/support/history-check.ts";
import { KNOWN_STEPS } from "../test/support/history-fixture.ts";
import { currentLoad } from "../src/util/load.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "10" },
    time: { type: "string", default: "60" },
    "min-effect": { type: "string", default: "1" },
  },
});
const settings = ["--rounds", values.rounds!, "--time", values.time!];
const load = currentLoad();
const check = runMethodCheck(settings, values["min-effect"]!);
for (const failure of check.failures) console.log(`failure: ${failure}`);
for (const step of KNOWN_STEPS) {
  const row = check.history.rows.find((r) => r.file === `bench/${step.module}.bench.ts`)!;
  const direct = check.direct.rows.find((r) => r.file === row.file)!;
  const moved = row.moved.map((m) => `${check.shas.indexOf(m.sha)}`).join(",") || "none";
  const c = row.cumulative!;
  console.log(
    `${row.name}: truth ${formatPercent(step.ratio - 1)} at commit ${step.index}; moved by commit ${moved}; chained ${formatPercent(c.delta)} ${formatInterval(c.ci)} over ${c.steps} steps; direct ${formatPercent(direct.stats!.delta)} ${formatInterval(direct.stats!.ci)}`,
  );
}
console.log(
  `recording 29 commits: ${check.recordS.toFixed(1)} s; direct compare: ${check.directS.toFixed(1)} s; settings ${settings.join(" ")}, --min-effect ${values["min-effect"]}`,
);
console.log(`load at start ${load.join(" ")}, at end ${currentLoad().join(" ")}`);
