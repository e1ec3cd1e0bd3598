/**
 * `xbench history --html` in a real browser (Debian's chromium, headless, driven by
 * puppeteer-core; skipped with one line when it is missing). The history is known exactly: 30
 * commits whose recorded steps (test/support/history-entries.ts) move three rows at commits 8,
 * 17 and 25, with commit 12 not recorded. The page loads from a file:// URL with no console
 * error and no request but its own, draws one dot per moving commit at that commit's x (the
 * JSON's moves, row by row), a gap line at commit 12, and its tables with JavaScript off.
 * XBENCH_UPDATE_SCREENSHOT=1 writes docs/img/history.png for the README.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "pathe";
import puppeteer, { type Browser } from "puppeteer-core";
import type { HistoryReport } from "../../src/history/chain.ts";
import { knownHistory, type KnownRowStep } from "../support/history-entries.ts";
import type { PageElement, PageGlobal } from "../support/page.ts";
import { ROOT, tempDir, xbench } from "../support/xbench.ts";

const CHROMIUM = "/usr/bin/chromium";
const installed = existsSync(CHROMIUM);
if (!installed) console.log(`history-html: skipped, ${CHROMIUM} not installed (apt-get install chromium)`);

const ROWS = [
  { file: "bench/checksum.bench.ts", label: "hash31" },
  { file: "bench/stats.bench.ts", label: "variance" },
  { file: "bench/text.bench.ts", label: "countWords" },
];
const MOVES: Record<number, number> = { 8: 0, 17: 1, 25: 2 };
const TRUE_STEP = [0.1, -0.05, 0.03];

/** Commit i's steps: a known move in one row, small noise or unchanged code elsewhere; commit 12 unrecorded. */
function steps(i: number): KnownRowStep[] | undefined {
  if (i === 12) return undefined;
  return ROWS.map((_, k) => {
    if (MOVES[i] === k) return { delta: TRUE_STEP[k]!, halfWidth: 0.008 };
    if (i % 5 === 0) return { delta: ((i * (k + 3)) % 7) / 1000 - 0.003, halfWidth: 0.006 };
    return "unchanged";
  });
}

describe.skipIf(!installed)("xbench history --html in chromium", () => {
  let browser: Browser;
  const { dir, cleanup } = tempDir("xbench-history-html-");
  const { repo, shas } = knownHistory(30, ROWS, steps);
  const page = join(dir, "history.html");
  const json = join(dir, "history.json");

  beforeAll(async () => {
    browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true });
  });
  afterAll(async () => {
    await browser?.close();
    cleanup();
    repo.cleanup();
  });

  test("the page and the JSON are written; the JSON's moves are the known ones", () => {
    const r = xbench(["history", "--html", page, "--json", json], { cwd: repo.dir });
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(json, "utf8")) as HistoryReport;
    expect(report.rows.map((row) => row.moved.map((m) => m.sha))).toEqual([[shas[8]!], [shas[17]!], [shas[25]!]]);
    expect(report.commits.filter((c) => c.status !== "recorded").map((c) => c.sha)).toEqual([shas[12]!]);
  });

  test("no console error, no request but the file; a dot per moving commit at its x, a gap line at the unrecorded commit", async () => {
    const report = JSON.parse(readFileSync(json, "utf8")) as HistoryReport;
    const tab = await browser.newPage();
    await tab.setViewport({ width: 1040, height: 900 });
    const errors: string[] = [];
    const requests: string[] = [];
    tab.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    tab.on("pageerror", (error) => errors.push(String(error)));
    tab.on("request", (request) => requests.push(request.url()));
    const url = pathToFileURL(page).href;
    await tab.goto(url, { waitUntil: "load" });
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    const drawn = await tab.evaluate(() => {
      const document = (globalThis as unknown as PageGlobal).document;
      return [...document.querySelectorAll("svg.trend")].map((svg) => {
        const box = svg.getBoundingClientRect();
        const viewWidth = Number(svg.getAttribute("viewBox")!.split(" ")[2]);
        const screen = (x: number) => box.x + (x / viewWidth) * box.width;
        const centre = (element: PageElement) => {
          const rect = element.getBoundingClientRect();
          return rect.x + rect.width / 2;
        };
        return {
          row: svg.getAttribute("data-row"),
          moves: [...svg.querySelectorAll("g.move")].map((g) => {
            const dot = g.querySelector("circle")!;
            return {
              sha: g.getAttribute("data-sha"),
              cls: g.getAttribute("class"),
              screenX: centre(dot),
              expectedFromCx: screen(Number(dot.getAttribute("cx"))),
            };
          }),
          gaps: [...svg.querySelectorAll("line.gap")].map((line) => ({ sha: line.getAttribute("data-sha"), screenX: centre(line) })),
          start: screen(64),
          end: screen(viewWidth - 16),
        };
      });
    });
    expect(drawn.map((d) => d.row)).toEqual(report.rows.map((row) => row.id));
    drawn.forEach((plot, k) => {
      expect(plot.moves.map((m) => m.sha)).toEqual(report.rows[k]!.moved.map((m) => m.sha));
      expect(plot.moves[0]!.cls).toBe(`move ${TRUE_STEP[k]! > 0 ? "slower" : "faster"}`);
      // A commit's mark sits where its index puts it along the axis from the start to HEAD.
      const at = (sha: string) =>
        plot.start + ((report.commits.findIndex((c) => c.sha === sha) + 1) / report.commits.length) * (plot.end - plot.start);
      expect(Math.abs(plot.moves[0]!.screenX - at(plot.moves[0]!.sha!))).toBeLessThan(1.5);
      expect(plot.gaps.map((g) => g.sha)).toEqual([shas[12]!]);
      expect(Math.abs(plot.gaps[0]!.screenX - at(shas[12]!))).toBeLessThan(1.5);
    });
    if (process.env.XBENCH_UPDATE_SCREENSHOT) {
      const docs = join(ROOT, "docs", "img", "history.png");
      await tab.screenshot({ path: docs, clip: { x: 0, y: 0, width: 1040, height: 900 } });
      console.log(`history-html: wrote ${docs}`);
    }
    await tab.close();
  });

  test("the moves and the commits are tables, there with JavaScript off", async () => {
    const tab = await browser.newPage();
    await tab.setJavaScriptEnabled(false);
    await tab.goto(pathToFileURL(page).href, { waitUntil: "load" });
    const seen = await tab.evaluate(() => {
      const document = (globalThis as unknown as PageGlobal).document;
      return {
        moves: [...document.querySelectorAll("table.moves tbody tr")].map((tr) => tr.textContent ?? ""),
        commits: document.querySelectorAll("table.commits tbody tr").length,
      };
    });
    expect(seen.moves).toHaveLength(3);
    expect(seen.moves[0]).toContain("+10.0%");
    expect(seen.moves[0]).toContain("change 8");
    expect(seen.commits).toBe(29);
    await tab.close();
  });
});

test("the README's history screenshot is small", () => {
  expect(statSync(join(ROOT, "docs", "img", "history.png")).size).toBeLessThan(250_000);
});
