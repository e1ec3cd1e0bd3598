/**
 * The HTML report in a real browser: Debian's chromium, headless, driven by puppeteer-core. The
 * page of a saved result (test/fixtures/slower-result.json: one slower row past a --fail-above
 * gate, one ~ row, one row of unchanged code) loads from a file:// URL with no console error and
 * no request but its own, draws one forest-plot mark per interval row with the slower one right of
 * the zero line, and keeps its table with JavaScript off. The screenshot is left in the temp
 * folder (path printed); XBENCH_UPDATE_SCREENSHOT=1 also writes docs/report.png for the README.
 * Skips with one line when chromium is not installed (.ci/run installs it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { join } from "pathe";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { renderHtml } from "../../src/report/html.ts";
import { parseResult } from "../../src/report/json.ts";
import type { CompareResult } from "../../src/model/result.ts";
import { mixedResult } from "../support/report-fixtures.ts";
import type { PageElement, PageGlobal } from "../support/page.ts";
import { ROOT, tempDir } from "../support/xbench.ts";
import { analyzeResult } from "../../src/report/analysis.ts";

const CHROMIUM = "/usr/bin/chromium";
const installed = existsSync(CHROMIUM);
if (!installed) console.log(`html-report: skipped, ${CHROMIUM} not installed (apt-get install chromium)`);

const fixtureFile = join(ROOT, "test", "fixtures", "slower-result.json");
const fixture = (): CompareResult => parseResult(readFileSync(fixtureFile, "utf8"), fixtureFile);

/** What a page did while it loaded: console errors, uncaught exceptions, requests, dialogs. */
interface Visit {
  page: Page;
  url: string;
  errors: string[];
  requests: string[];
}

describe.skipIf(!installed)("html report in chromium", () => {
  let browser: Browser;
  const { dir, cleanup } = tempDir("xbench-html-");
  const started = performance.now();

  beforeAll(async () => {
    browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true });
  });
  afterAll(async () => {
    await browser?.close();
    cleanup();
    console.log(`html-report: browser tests took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });

  async function visit(name: string, result: CompareResult, options: { javaScript?: boolean } = {}): Promise<Visit> {
    const file = join(dir, `${name}.html`);
    writeFileSync(file, renderHtml(analyzeResult(result)));
    const page = await browser.newPage();
    await page.setJavaScriptEnabled(options.javaScript ?? true);
    await page.setViewport({ width: 1040, height: 700 });
    const url = pathToFileURL(file).href;
    const seen: Visit = { page, url, errors: [], requests: [] };
    page.on("console", (message) => {
      if (message.type() === "error") seen.errors.push(message.text());
    });
    page.on("pageerror", (error) => seen.errors.push(String(error)));
    page.on("dialog", (dialog) => {
      seen.errors.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on("request", (request) => seen.requests.push(request.url()));
    await page.goto(url, { waitUntil: "load" });
    return seen;
  }

  test("loads with no console error and no request but the file itself", async () => {
    const { page, url, errors, requests } = await visit("slower", fixture());
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();
  });

  test("one forest-plot mark per interval row; the slower row's mark right of the zero line", async () => {
    const result = fixture();
    const { page } = await visit("forest", result);
    const drawn = await page.evaluate(() => {
      const svg = (globalThis as unknown as PageGlobal).document.querySelector("svg.forest")!;
      const centre = (element: PageElement) => {
        const box = element.getBoundingClientRect();
        return box.x + box.width / 2;
      };
      const zero = svg.querySelector("line.zero")!;
      const marks = [...svg.querySelectorAll("g.mark")].map((mark) => {
        const dot = mark.querySelector("circle.point")!;
        return { verdict: mark.getAttribute("data-verdict"), cx: Number(dot.getAttribute("cx")), screenX: centre(dot) };
      });
      return { zeroX: Number(zero.getAttribute("x1")), zeroScreenX: centre(zero), marks, threshold: !!svg.querySelector("line.threshold") };
    });
    expect(drawn.marks.map((m) => m.verdict)).toEqual(result.rows.filter((row) => row.stats).map((row) => row.stats!.verdict));
    expect(drawn.marks).toHaveLength(2);
    const slower = drawn.marks.find((m) => m.verdict === "slower")!;
    // In the SVG's own coordinates and where the browser actually laid it out.
    expect(slower.cx).toBeGreaterThan(drawn.zeroX);
    expect(slower.screenX).toBeGreaterThan(drawn.zeroScreenX);
    expect(drawn.threshold).toBe(true);
    await page.close();
  });

  test("the table is there with JavaScript off, every row in it; the row without an interval listed", async () => {
    const result = fixture();
    const { page } = await visit("no-js", result, { javaScript: false });
    const seen = await page.evaluate(() => {
      const document = (globalThis as unknown as PageGlobal).document;
      return {
        rows: [...document.querySelectorAll("table.results tbody tr")].map((tr) => tr.textContent ?? ""),
        others: [...document.querySelectorAll("ul.other-rows li")].map((li) => li.textContent ?? ""),
      };
    });
    expect(seen.rows).toHaveLength(result.rows.length);
    expect(seen.rows[0]).toContain("slower");
    expect(seen.others).toEqual(["render.bench.ts › render page unchanged code"]);
    const shot = join(tmpdir(), "xbench-html-report.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`html-report: screenshot ${shot}`);
    if (process.env.XBENCH_UPDATE_SCREENSHOT) {
      const docs = join(ROOT, "docs", "report.png");
      // The top of the page (header, gate, plot, table) is what the README shows.
      await page.screenshot({ path: docs, clip: { x: 0, y: 0, width: 1040, height: 720 } });
      console.log(`html-report: wrote ${docs}`);
    }
    await page.close();
  });

  test("hostile names (markup, control characters) run nothing and break nothing", async () => {
    const result = mixedResult();
    const { page, errors, requests, url } = await visit("hostile", result);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    const count = await page.evaluate(() => {
      const document = (globalThis as unknown as PageGlobal).document;
      return {
        marks: document.querySelectorAll("svg.forest g.mark").length,
        rows: document.querySelectorAll("table.results tbody tr").length,
        scripts: document.querySelectorAll("script").length,
      };
    });
    expect(count).toEqual({ marks: result.rows.filter((row) => row.stats).length, rows: result.rows.length, scripts: 0 });
    await page.close();
  });
});

// Checked with or without a browser: the README's picture stays light.
test("the README's screenshot is small", () => {
  expect(statSync(join(ROOT, "docs", "report.png")).size).toBeLessThan(200_000);
});
