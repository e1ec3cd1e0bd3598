/**
 * Byte-identical output for the saved results in test/fixtures: every format `xbench report`
 * renders, as `report FILE --format F` reads the file (verdicts against its own min-effect, a
 * saved gate decided again). The expected files in test/fixtures/golden have no update switch:
 * a change to any byte is a change of behaviour, made and reviewed on purpose. The HTML page
 * carries the run's start and end from the result itself, so it needs no masking.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "pathe";
import { analyzeResult } from "../../src/report/analysis.ts";
import { withMinEffectResult } from "../../src/report/row-stats.ts";
import { renderer, type FormatKey } from "../../src/report/outputs.ts";
import { decideGate } from "../../src/report/gate.ts";
import { parseResult } from "../../src/report/json.ts";
import { DEFAULT_MIN_EFFECT } from "../../src/stats/equivalence.ts";
import type { CompareResult } from "../../src/model/result.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures");
const GOLDEN_RESULTS = ["aa", "mixed", "slower"] as const;

/** Golden file extension → the format and whether the terminal table is coloured. */
const CASES: Array<[string, FormatKey, boolean]> = [
  ["term.txt", "term", false],
  ["color.txt", "term", true],
  ["md", "markdown", false],
  ["json", "json", false],
  ["html", "html", false],
];

function saved(name: string): CompareResult {
  const file = join(FIXTURES, `${name}-result.json`);
  const loaded = parseResult(readFileSync(file, "utf8"), file);
  const read = withMinEffectResult(loaded, loaded.minEffect ?? DEFAULT_MIN_EFFECT);
  return read.gate ? { ...read, gate: decideGate(read.rows, read.gate.rule) } : read;
}

describe("golden output of every format", () => {
  for (const name of GOLDEN_RESULTS) {
    for (const [ext, format, color] of CASES) {
      test(`${name}-result.json as ${ext}`, () => {
        const expected = readFileSync(join(FIXTURES, "golden", `${name}.${ext}`), "utf8");
        expect(renderer(analyzeResult(saved(name)), { color })(format)).toBe(expected);
      });
    }
  }
});
