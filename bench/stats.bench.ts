/**
 * xbench's own hot pure code: the statistics, the scheduler and the markdown renderer that
 * every compare runs. `xbench compare --base HEAD stats` is the README's quick start.
 */
import { bench, run } from "mitata";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeRows } from "../src/report/row-stats.ts";
import { renderMarkdown } from "../src/report/markdown.ts";
import type { CompareResult } from "../src/model/result.ts";
import { planRounds } from "../src/schedule/orderings.ts";
import { pairedStats, studentT975 } from "../src/stats/paired.ts";
import { analyzeResult } from "../src/report/analysis.ts";

const rounds = 1000;
const base = Array.from({ length: rounds }, (_, i) => 1000 + ((i * 7919) % 97));
const head = base.map((v, i) => v * (1.05 + ((i * 104729) % 13) / 1000));
const seedTable = JSON.parse(readFileSync(join(import.meta.dirname, "..", "test", "fixtures", "aa-result.json"), "utf8")) as CompareResult;

bench("pairedStats (1000 rounds)", () => pairedStats("bench", base, head));
bench("studentT975 (df $df)", function* (state: { get(name: string): number }) {
  const df = state.get("df");
  yield () => studentT975(df);
}).args("df", [9, 999]);
bench("planRounds (5 arms, 240 rounds)", () => planRounds({ arms: ["a", "b", "c", "d", "e"], rounds: 240 }));
bench("analyzeRows + renderMarkdown (A/A table)", () => {
  const rows = analyzeRows(
    seedTable.rows.map((r) => ({ ...r, presentOn: { base: true, head: true } })),
    { holm: false },
  );
  return renderMarkdown(analyzeResult({ ...seedTable, rows }));
});

await run();
