/**
 * What a compare's outputs cost once its rows are analyzed: the one analysis of the result
 * (src/report/analysis.ts: the A/A reading, side medians, display names) alone, and every output
 * a compare writes (terminal, markdown, JSON, HTML) from one analysis against an analysis per
 * format. Run with `xbench compare --base HEAD --all --bench bench/report-outputs.bench.ts`
 * (docs/measurements.md): the rows' medians in one run give the ratios.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bench, describe } from "vitest";
import type { CompareResult } from "../src/model/result.ts";
import { analyzeResult } from "../src/report/analysis.ts";
import { renderer } from "../src/report/outputs.ts";

/** The saved A/A table of 42 rows: the A/A reading runs on it, as on any compare of a commit with itself. */
const result = JSON.parse(readFileSync(join(import.meta.dirname, "..", "test", "fixtures", "aa-result.json"), "utf8")) as CompareResult;
const formats = ["term", "markdown", "json", "html"] as const;

describe("outputs of an A/A compare", () => {
  bench("the analysis alone", () => {
    analyzeResult(result);
  });
  bench("every output, one analysis", () => {
    const render = renderer(analyzeResult(result), { color: false });
    for (const format of formats) render(format);
  });
  bench("every output, an analysis per format", () => {
    for (const format of formats) renderer(analyzeResult(result), { color: false })(format);
  });
});
