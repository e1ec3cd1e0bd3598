/** The per-function profile tables in each renderer (docs/profile.md), and the JSON reading them back. */
import { describe, expect, test } from "bun:test";
import type { RowProfile } from "../../src/model/profile.ts";
import type { CompareResult } from "../../src/model/result.ts";
import { renderHtml } from "../../src/report/html.ts";
import { parseResult, renderJson } from "../../src/report/json.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { functionCells } from "../../src/report/profile.ts";
import { renderTerminal } from "../../src/report/terminal.ts";
import { slowerResult } from "../support/report-fixtures.ts";
import { analyzeResult } from "../../src/report/analysis.ts";

const PROFILE: RowProfile = {
  processes: 6,
  functions: [
    {
      name: "validate",
      file: "src/pipeline.ts",
      line: 7,
      status: "both",
      base: 40_000,
      head: 52_000,
      change: 12_000,
      ci: [6_000, 15_000],
      share: 0.31,
    },
    {
      name: "paint<b>",
      file: "src/pipeline.ts",
      line: 16,
      status: "new",
      base: 0,
      head: 30_000,
      change: 30_000,
      ci: [25_000, 33_000],
      share: 0.18,
    },
    {
      name: "render",
      file: "src/pipeline.ts",
      line: 16,
      status: "removed",
      base: 29_000,
      head: 0,
      change: -29_000,
      ci: [-31_000, -26_000],
      share: 0.2,
    },
  ],
  other: { base: 1_500, head: 1_600 },
};

function profiled(): CompareResult {
  const result = slowerResult();
  const rows = result.rows.map((row, i) => (i === 0 ? { ...row, profile: PROFILE } : row));
  return {
    ...result,
    rows,
    profile: {
      rows: "verdict",
      processes: 6,
      intervalUs: 100,
      files: { base: "/r/profile-base.cpuprofile", head: "/r/profile-head.cpuprofile" },
    },
  };
}

describe("profile tables", () => {
  test("a function's cells: times, the change against base, the interval, the share, new and removed", () => {
    expect(functionCells(PROFILE.functions[0]!)).toEqual([
      "validate",
      "src/pipeline.ts:7",
      "40.00 µs",
      "52.00 µs",
      "+12.00 µs (+30.0%)",
      "[+6.00 µs, +15.00 µs]",
      "31.0%",
      "",
    ]);
    expect(functionCells(PROFILE.functions[1]!).slice(2, 5)).toEqual(["—", "30.00 µs", "+30.00 µs"]);
    expect(functionCells(PROFILE.functions[2]!).at(-1)).toBe("removed");
  });

  test("terminal: a table under the main one; markdown: a collapsible section per row, names escaped; HTML: a section", () => {
    const result = profiled();
    const terminal = renderTerminal(analyzeResult(result), { color: false });
    expect(terminal).toContain(`profile: parse.bench.ts › ${result.rows[0]!.label}`);
    expect(terminal).toMatch(/validate\s+src\/pipeline\.ts:7\s+40\.00 µs\s+52\.00 µs\s+\+12\.00 µs \(\+30\.0%\)/);
    const markdown = renderMarkdown(analyzeResult(result));
    expect(markdown).toContain("<details><summary>Profile of");
    expect(markdown).toContain("paint&#60;b&#62;");
    expect(markdown).not.toContain("paint<b>");
    const html = renderHtml(analyzeResult(result));
    expect(html).toContain('<section id="profile">');
    expect(html).toContain('<th scope="row">paint&#60;b&#62;</th>');
    expect(renderTerminal(analyzeResult(slowerResult()), { color: false })).not.toContain("profile:");
    expect(renderHtml(analyzeResult(slowerResult()))).not.toContain('id="profile"');
  });

  test("an unbounded interval (fewer than 6 processes) reads ±∞, also as JSON wrote it (null)", () => {
    const fn = { ...PROFILE.functions[0]!, ci: [-Infinity, Infinity] as [number, number] };
    expect(functionCells(fn)[5]).toBe("[-∞, +∞]");
    const parsed = JSON.parse(JSON.stringify(fn));
    expect(functionCells(parsed)[5]).toBe("[-∞, +∞]");
  });

  test("the JSON keeps the profile and reads back", () => {
    const back = parseResult(renderJson(profiled()));
    expect(back.rows[0]!.profile).toEqual(PROFILE);
    expect(back.profile?.files?.head).toBe("/r/profile-head.cpuprofile");
  });
});
