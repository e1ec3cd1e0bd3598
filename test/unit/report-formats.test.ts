/**
 * One analysis, renderers that take it (docs/report.md): the registry of output formats both
 * commands share, what a renderer shows coming from the analysis and not from its own
 * statistics, and the one colour decision.
 */
import { describe, expect, spyOn, test } from "bun:test";
import { colorFor, wantsColor } from "../../src/output/color.ts";
import { analyzeResult } from "../../src/report/analysis.ts";
import { FILE_FLAGS, FORMAT_NAMES, FORMATS, fileTargets, fileTexts, formatNamed, renderer } from "../../src/report/outputs.ts";
import { readAA } from "../../src/stats/noise.ts";
import { aaResult, mixedResult } from "../support/report-fixtures.ts";

describe("the registry of output formats", () => {
  test("report --format takes md and markdown for the format --markdown writes; each other format by its own name", () => {
    expect(FORMAT_NAMES).toEqual(["term", "json", "md", "markdown", "html"]);
    expect(FORMAT_NAMES.map(formatNamed)).toEqual(["term", "json", "markdown", "markdown", "html"]);
  });

  test("every format but the terminal table has a file flag named as it is", () => {
    expect(Object.keys(FILE_FLAGS)).toEqual(["json", "markdown", "html"]);
    for (const flag of Object.values(FILE_FLAGS)) expect(flag).toMatchObject({ type: "string", path: "file" });
  });

  test("the files asked for get their format's text; an empty flag is none", () => {
    const targets = fileTargets({ json: "r.json", markdown: "", html: "r.html" });
    expect(targets).toEqual({ json: "r.json", markdown: undefined, html: "r.html" });
    const asked: string[] = [];
    const texts = fileTexts(targets, (format) => {
      asked.push(format);
      return `<${format}>`;
    });
    expect(texts).toEqual({ json: "<json>", html: "<html>" });
    expect(asked).toEqual(["json", "html"]);
  });

  test("a format is rendered once per analysis however often it is asked for", () => {
    const spy = spyOn(FORMATS.markdown, "render");
    try {
      const render = renderer(analyzeResult(mixedResult()), { color: false });
      const first = render("markdown");
      expect(render("markdown")).toBe(first);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("renderers show the analysis's figures", () => {
  test("the A/A note says what the analysis read, not what a renderer would compute again", () => {
    const analysis = analyzeResult(aaResult());
    expect(analysis.aa?.rows).toBe(readAA(aaResult()).rows.length);
    const doctored = { ...analysis, aa: { ...analysis.aa!, falseVerdicts: 17, rows: 99 } };
    for (const format of ["term", "markdown", "html"] as const) {
      expect(renderer(doctored, { color: false })(format)).toContain("A/A run: 17 of 99 timed rows got a verdict by chance");
    }
  });

  test("a row without a comparison shows the side medians of the analysis", () => {
    const analysis = analyzeResult(mixedResult());
    const i = analysis.shown.rows.findIndex((row) => row.status === "new");
    const rows = analysis.shown.rows.map((row, j) => (j === i ? { ...row, sideMedians: { head: 123_456 } } : row));
    expect(renderer({ ...analysis, shown: { ...analysis.shown, rows } }, { color: false })("term")).toContain("123.46 µs");
  });

  test("a run of two different commits is not read as A/A: no row gets a noise floor", () => {
    const result = mixedResult();
    expect(result.base.sha).not.toBe(result.head.sha);
    expect(readAA(result).rows).toEqual([]);
    expect(analyzeResult(result).aa).toBeUndefined();
    expect(analyzeResult(aaResult()).aa?.rows).toBeGreaterThan(0);
  });
});

describe("colour", () => {
  test.each([
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: "1" }, false],
    [true, { NO_COLOR: "" }, true], // an empty NO_COLOR is not set
    [false, { FORCE_COLOR: "1" }, true],
    [false, { FORCE_COLOR: "3" }, true],
    [false, { FORCE_COLOR: "" }, false],
    [true, { FORCE_COLOR: "0" }, false],
    [true, { FORCE_COLOR: "false" }, false],
    [false, { NO_COLOR: "1", FORCE_COLOR: "1" }, false], // the user's no wins
  ])("a terminal %p with %p: colour %p", (isTTY, env, color) => {
    expect(wantsColor(isTTY, env)).toBe(color);
    expect(colorFor({ isTTY }, env)).toBe(color);
  });
});
