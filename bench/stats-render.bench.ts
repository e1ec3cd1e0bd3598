/**
 * The renderers every compare ends with, written with vitest's bench API (xbench runs vitest,
 * tinybench, Benchmark.js and Deno.bench suites as they are): the terminal table, the
 * markdown comment and the JSON result of an analyzed A/A table. `xbench compare --base HEAD
 * stats` (the README's quick start) runs it beside stats.bench.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, bench, describe } from "vitest";
import type { CompareResult } from "../src/model/result.ts";
import { analyzeRows } from "../src/report/row-stats.ts";
import { renderJson } from "../src/report/json.ts";
import { renderMarkdown } from "../src/report/markdown.ts";
import { renderTerminal } from "../src/report/terminal.ts";
import { analyzeResult } from "../src/report/analysis.ts";

let result: CompareResult;

beforeAll(() => {
  const seed = JSON.parse(readFileSync(join(import.meta.dirname, "..", "test", "fixtures", "aa-result.json"), "utf8")) as CompareResult;
  const rows = analyzeRows(
    seed.rows.map((r) => ({ ...r, presentOn: { base: true, head: true } })),
    { holm: false },
  );
  result = { ...seed, rows };
});

describe("render A/A table", () => {
  bench("terminal", () => {
    renderTerminal(analyzeResult(result), { color: false });
  });
  bench("markdown", () => {
    renderMarkdown(analyzeResult(result));
  });
  bench("json", () => {
    renderJson(result);
  });
});
