/** The HTML report without a browser: escaping, one mark per interval row, what it must never load. */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { decideGate } from "../../src/report/gate.ts";
import { escapeHtml, forestPlot, renderHtml } from "../../src/report/html.ts";
import { renderJson } from "../../src/report/json.ts";
import { HOSTILE_LABEL, mixedResult, slowerResult } from "../support/report-fixtures.ts";
import { analyzeResult } from "../../src/report/analysis.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures");

/** The start tags of a page, by name. */
const tagNames = (html: string) => new Set([...html.matchAll(/<([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase()));

/** Numbers of the first match of `attribute="…"` in each element matched by `element`. */
function attributeOf(html: string, element: RegExp, attribute: string): number[] {
  return [...html.matchAll(element)].map((m) => Number(new RegExp(`${attribute}="([-\\d.]+)"`).exec(m[0])![1]));
}

describe("html report", () => {
  test("escapeHtml leaves no markup character bare and makes control characters visible", () => {
    expect(escapeHtml(`<a href="x">'&'</a>\n`)).toBe("&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;␊");
  });

  test("a hostile name is text, never markup: only the page's own tags appear", () => {
    const html = renderHtml(analyzeResult(mixedResult()));
    expect(html).not.toContain("<script");
    expect(html).toContain(escapeHtml(HOSTILE_LABEL));
    const own = ["html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "p", "div", "strong", "ul", "li", "span"];
    const plots = ["svg", "defs", "clippath", "rect", "text", "line", "g", "path", "circle"];
    const tables = ["section", "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "dl", "dt", "dd", "code"];
    for (const name of tagNames(html)) expect([...own, ...plots, ...tables]).toContain(name);
    // A name is written three times per timed row (forest, table, strip) and in the raw values: never raw.
    expect(html.split(escapeHtml(HOSTILE_LABEL)).length - 1).toBeGreaterThanOrEqual(4);
  });

  test("self-contained: nothing to fetch, and the policy forbids fetching", () => {
    const html = renderHtml(analyzeResult(mixedResult()));
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(html).not.toMatch(/\s(src|href|xlink:href)=|@import|url\((?!#label-clip\))/);
  });

  test("one forest-plot mark per row with an interval; the rest listed with their status", () => {
    const result = mixedResult();
    const html = renderHtml(analyzeResult(result));
    const withInterval = result.rows.filter((row) => row.stats);
    expect(html.match(/<g class="mark /g)).toHaveLength(withInterval.length);
    expect(html.match(/<li><span class="name">/g)).toHaveLength(result.rows.length - withInterval.length);
    for (const status of ["new", "removed", "failed", "fewer (-2)", "same"]) expect(html).toContain(`>${status}</span>`);
    // Every row in the table, JavaScript or not.
    expect(html.match(/<tr><th scope="row">/g)!.length).toBeGreaterThanOrEqual(result.rows.length);
  });

  test("a slower row's dot lies right of zero, a faster row's left, the gate's threshold further right", () => {
    const result = mixedResult();
    const svg = forestPlot({ ...result, gate: decideGate(result.rows, { on: "above", above: 0.1 }) });
    const zero = attributeOf(svg, /<line class="zero"[^>]*>/g, "x1")[0]!;
    const threshold = attributeOf(svg, /<line class="threshold"[^>]*>/g, "x1")[0]!;
    const dots = attributeOf(svg, /<circle class="point"[^>]*>/g, "cx");
    const verdicts = [...svg.matchAll(/data-verdict="([^"]+)"/g)].map((m) => m[1]);
    expect(dots).toHaveLength(verdicts.length);
    verdicts.forEach((verdict, i) => {
      if (verdict === "slower") expect(dots[i]!).toBeGreaterThan(zero);
      if (verdict === "faster") expect(dots[i]!).toBeLessThan(zero);
    });
    expect(threshold).toBeGreaterThan(zero);
    expect(forestPlot(result)).not.toContain('class="threshold"');
  });

  test("an unbounded interval (too few rounds) is drawn to both edges with arrows", () => {
    const result = slowerResult();
    const row = result.rows[0]!;
    const unbounded = { ...row, stats: { ...row.stats!, ci: [-1, Infinity] as [number, number] } };
    const svg = forestPlot({ ...result, rows: [unbounded] });
    expect(svg.match(/class="arrow"/g)).toHaveLength(2);
    expect(svg).not.toMatch(/NaN|Infinity/);
  });

  test("the browser test's fixture: one slower, one ~, one row without an interval, a --fail-above gate", () => {
    const result = slowerResult();
    expect(result.rows.map((row) => row.stats?.verdict ?? row.status)).toEqual(["slower", "~", "unchanged"]);
    expect(result.gate?.outcome).toBe("fail");
    const path = join(FIXTURES, "slower-result.json");
    if (process.env.UPDATE_FIXTURES) writeFileSync(path, renderJson(result));
    expect(renderJson(result)).toBe(readFileSync(path, "utf8"));
  });
});
