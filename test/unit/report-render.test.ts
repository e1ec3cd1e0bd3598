import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { EXIT_USAGE } from "../../src/cli/errors.ts";
import { XbenchError } from "../../src/errors.ts";
import { formatCount, formatHalfWidth, formatPercent, formatTime, formatWiderThan, visible } from "../../src/report/text.ts";
import { parseResult, renderJson } from "../../src/report/json.ts";
import { COMMENT_MARKER, escapeMarkdown, intervalPicture, renderMarkdown } from "../../src/report/markdown.ts";
import { SCHEMA_VERSION, type CompareResult } from "../../src/model/result.ts";
import { renderTerminal } from "../../src/report/terminal.ts";
import { mulberry32 } from "../../src/schedule/prng.ts";
import { analyzeRows, type RawRow } from "../../src/report/row-stats.ts";
import { withDisplayNames } from "../../src/report/names.ts";
import { aaResult, HOSTILE_NAME, mixedResult } from "../support/report-fixtures.ts";
import { analyzeResult, budgetForMost } from "../../src/report/analysis.ts";

const rawTimed = (id: string, base: number[], head: number[]): RawRow => ({
  id,
  file: "bench/q.bench.ts",
  label: id.split(": ")[1]!,
  unit: "ns",
  base,
  head,
  presentOn: { base: true, head: true },
});

const FIXTURES = join(import.meta.dir, "..", "fixtures");
const ANSI = /\u001b\[[0-9;]*m/g;

/** Compares with a hand-checked file; UPDATE_FIXTURES=1 rewrites it (then review the diff). */
function expectFixture(name: string, actual: string): void {
  const path = join(FIXTURES, name);
  if (process.env.UPDATE_FIXTURES) writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, "utf8"));
}

describe("formatting", () => {
  test.each([
    [0.5, "0.50 ns"],
    [999, "999.00 ns"],
    [999.996, "1.00 µs"],
    [3290, "3.29 µs"],
    [510_540, "510.54 µs"],
    [999_999.9, "1.00 ms"],
    [11_820_000, "11.82 ms"],
    [136_930_000, "136.93 ms"],
    [1.5e9, "1.50 s"],
    [125e9, "125.00 s"],
  ])("time %d ns is %s", (ns, text) => expect(formatTime(ns)).toBe(text));

  test.each([
    [0.014, "+1.4%"],
    [-0.021, "-2.1%"],
    [0, "+0.0%"],
    [-0.0001, "-0.0%"],
    [0.0001, "+0.0%"],
    [2.466166, "+246.6%"],
    [-0.437419, "-43.7%"],
  ])("percent %d is %s", (x, text) => expect(formatPercent(x)).toBe(text));

  test("counts group thousands", () => {
    expect([formatCount(0), formatCount(4712), formatCount(-1024), formatCount(8_912_345), formatCount(2.5)]).toEqual([
      "0",
      "4,712",
      "-1,024",
      "8,912,345",
      "2.5",
    ]);
  });

  test("control characters become visible", () => {
    expect(visible("a\nb\tc\u001b[31m\u007f\u0085")).toBe("a␊b␉c␛[31m␡\uFFFD");
  });
});

describe("terminal", () => {
  const result = mixedResult();

  test("header lines, aligned columns, every row shown", () => {
    const text = renderTerminal(analyzeResult(result), { color: false });
    const lines = text.split("\n");
    expect(lines[0]).toBe("runtime bun | rounds 12 | base 0c5e35d81638 | head 4fa387b2e78b (dirty)");
    expect(lines[1]).toBe("loadavg start 14.26 17.36 22.80 | end 17.83 31.33 29.39");
    const table = lines.slice(3, 3 + 1 + result.rows.length);
    expect(table[0]).toMatch(/^benchmark +base +head +delta +95% CI +verdict$/);
    expect(new Set(table.map((l) => l.length)).size).toBe(1);
    // the verdict column is right-aligned, every other value column too
    for (const header of ["base", "head", "delta", "95% CI", "verdict"]) {
      const end = table[0]!.indexOf(header) + header.length;
      for (const line of table) expect(line[end]).toBeOneOf([" ", undefined]);
    }
    expect(text).toContain("-31.4%  [-32.3%, -30.6%]");
    expect(text).toContain("fewer (-2)");
    expect(text).toContain("more (+1,024 B)");
    for (const v of [" new", " removed", " failed"]) expect(text).toContain(v);
    expect(text).toContain("note: 10 rounds asked for, rounded up to 12 (whole cycles of 6 orderings)");
    expect(text).not.toMatch(ANSI);
  });

  test("colour only when asked, and it does not move anything", () => {
    const plain = renderTerminal(analyzeResult(result), { color: false });
    const colored = renderTerminal(analyzeResult(result), { color: true });
    expect(colored).toMatch(ANSI);
    expect(colored.replace(ANSI, "")).toBe(plain);
  });

  test("a name cannot break a line or send escape sequences", () => {
    const hostile = structuredClone(result);
    hostile.rows[0]!.label = "x\u001b[2J\ny";
    const text = renderTerminal(analyzeResult(hostile), { color: false });
    expect(text).toContain("x␛[2J␊y");
    expect(text.split("\n").length).toBe(renderTerminal(analyzeResult(result), { color: false }).split("\n").length);
  });

  test("the A/A table, byte for byte", () => {
    expectFixture("aa.term.txt", renderTerminal(analyzeResult(aaResult()), { color: false }));
  });
});

/** `3.29 µs` back to ns, and how far its two decimals can be from the value it was rounded from. */
function parseTime(cell: string): { ns: number; rounding: number } {
  const [number, unit] = cell.split(" ");
  const scale = { ns: 1, µs: 1e3, ms: 1e6, s: 1e9 }[unit!]!;
  return { ns: Number(number) * scale, rounding: 0.005 * scale };
}

/** For each timed row of a table (its cells base, head, delta from the right): head/base - 1 and delta. */
function columnsAgree(rows: Array<{ base: string; head: string; delta: string }>): void {
  expect(rows.length).toBeGreaterThan(0);
  for (const { base, head, delta } of rows) {
    const b = parseTime(base);
    const h = parseTime(head);
    const shown = Number(delta.replace("%", "")) / 100;
    // Each cell is rounded: the ratio of the cells may differ from the rounded delta by what
    // the rounding of base and head (relative) and of the percentage (0.05 points) allow.
    const slack = b.rounding / b.ns + h.rounding / h.ns + 0.0005 + 1e-12;
    expect({ base, head, delta, off: Math.abs(h.ns / b.ns - 1 - shown) <= slack }).toEqual({ base, head, delta, off: true });
  }
}

describe("columns agree with the delta", () => {
  const timed = /^[-+]\d+\.\d%$/;
  for (const [name, result] of [
    ["A/A", aaResult()],
    ["mixed", mixedResult()],
  ] as const) {
    test(`every timed row of the ${name} terminal table`, () => {
      const lines = renderTerminal(analyzeResult(result), { color: false }).split("\n");
      const cells = lines
        .map((line) => line.split(/ {2,}/).slice(-5))
        .filter((c) => c.length === 5 && /^[\d.]+ (ns|µs|ms|s)$/.test(c[0]!))
        .map(([base, head, delta]) => ({ base: base!, head: head!, delta: delta! }))
        .filter((c) => timed.test(c.delta));
      expect(cells.length).toBe(result.rows.filter((r) => r.stats).length);
      columnsAgree(cells);
    });

    test(`every timed row of the ${name} markdown table`, () => {
      const rows = renderMarkdown(analyzeResult(result))
        .split("\n")
        .filter((line) => line.startsWith("| ") && line.split(" | ").length === 7)
        .map((line) => line.split(" | "))
        .filter((c) => timed.test(c[3]!) && c[4] !== "exact")
        .map((c) => ({ base: c[1]!, head: c[2]!, delta: c[3]! }));
      expect(rows.length).toBe(result.rows.filter((r) => r.stats).length);
      columnsAgree(rows);
    });
  }

  test("a timed row whose values tie on both sides in most rounds is marked, not shown as certain", () => {
    const quantized = [750, 687.5, 750, 750, 687.5, 750, 750, 750];
    const rows = analyzeRows(
      [
        {
          ...rawTimed(
            "q-00000000: quantized",
            quantized,
            quantized.map((v, i) => (i === 1 ? 750 : v)),
          ),
        },
        { ...rawTimed("n-00000000: noisy", [100, 101, 102, 103, 104, 105], [101, 100, 103, 104, 103, 106]) },
      ],
      { holm: false },
    );
    const text = renderTerminal(analyzeResult({ ...mixedResult(), rows }), { color: false });
    expect(text).toMatch(/note: \S+ › quantized: base and head values were identical in 7 of 8 rounds/);
    expect(text).not.toContain("n-00000000: noisy: base and head");
  });

  test("a width that missed its target shows the decimals that make it wider; a small target is never ±0.0%", () => {
    expect(formatWiderThan(0.0104, 0.01)).toBe("±1.04%"); // not "±1.0% ... wider than the ±1.0% target"
    expect(formatWiderThan(0.015, 0.01)).toBe("±1.5%");
    expect(formatWiderThan(0.01004, 0.01)).toBe("±1.004%");
    expect(formatWiderThan(0.0003, 0.0001)).toBe("±0.03%");
    expect(formatHalfWidth(0.01)).toBe("±1.0%");
    expect(formatHalfWidth(0.5)).toBe("±50.0%");
    expect(formatHalfWidth(0.0025)).toBe("±0.25%");
    expect(formatHalfWidth(0.0001)).toBe("±0.01%");
    expect(formatHalfWidth(0.00996)).toBe("±1.0%"); // not "±1%"
    expect(formatWiderThan(0.009, 0.01)).toBe("±0.9%"); // within the target: as any width
    expect(formatHalfWidth(Number.POSITIVE_INFINITY)).toBe("±∞");
  });

  test("rows still wider than the target when time ran out: one note for all, a note per row with --verbose", () => {
    const result = aaResult();
    result.rounds = { ...result.rounds, stoppedBy: "time", targetHalfWidth: 0.01, maxTimeS: 120, measuredS: 118 };
    const text = renderTerminal(analyzeResult(result), { color: false });
    const wide = result.rows.filter((r) => r.stats && r.stats.halfWidth! > 0.01);
    expect(wide.length).toBeGreaterThan(1);
    const widest = Math.max(...result.rows.filter((r) => r.stats).map((r) => r.stats!.halfWidth!));
    const notes = text.split("\n").filter((line) => line.startsWith("note: ") && line.includes("target"));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      new RegExp(
        `^note: ${wide.length} of \\d+ intervals wider than the ±1\\.0% target when the 120 s budget \\(--max-time\\) ran out: widest ${formatWiderThan(widest, 0.01).replace(/[.+]/g, "\\$&")}, after 10 rounds; about --max-time \\d+0 would bring ${Math.ceil(0.75 * wide.length)} of them within it \\(--verbose lists them\\)$`,
      ),
    );
    const verbose = renderTerminal(analyzeResult(result), { color: false, verbose: true });
    const displayed = new Map(result.rows.map((row, i) => [row.id, withDisplayNames(result).rows[i]!.id]));
    for (const row of wide) {
      const need = Math.ceil(10 * (row.stats!.halfWidth! / 0.01) ** 2);
      expect(verbose).toContain(
        `note: ${displayed.get(row.id)}: ${formatWiderThan(row.stats!.halfWidth!, 0.01)} after 10 rounds, wider than the ±1.0% target; about ${need} rounds would reach it`,
      );
    }
    // A run that reached its target has nothing to say per row.
    result.rounds.stoppedBy = "target";
    expect(renderTerminal(analyzeResult(result), { color: false, verbose: true })).not.toContain("would reach it");
  });

  test("an A/A run sampled until narrow: one half-width figure for the widest interval, and what 97% and 95% each are", () => {
    const result = { ...aaResult(), level: 0.97, coverage: 0.95 };
    result.rounds = { ...result.rounds, stoppedBy: "time", targetHalfWidth: 0.01, maxTimeS: 120, measuredS: 118 };
    const text = renderTerminal(analyzeResult(result), { color: false });
    const widest = [...text.matchAll(/widest (±[\d.]+%)/g)].map((m) => m[1]);
    expect(widest).toHaveLength(2); // the sampling note's and the A/A note's
    expect(widest[0]).toBe(widest[1]);
    expect(text).toContain(
      "each interval is built at 97% (the JSON's level) so that, with rows stopping on their own width, the 95% CI column holds 95% (its coverage)",
    );
    expect(text).not.toContain("smallest change detectable");
  });

  test("a round far off its row's others is named, with what the two sides say of why; one note, each row with --verbose", () => {
    const result = aaResult();
    const [first, second, third] = result.rows.filter((r) => r.stats && r.base.length >= 8);
    const base = first!.base.map((_, i) => 1000 + (i % 3));
    // Round 3: head alone ran 3x slower (a pause inside that process).
    const oneSide = { ...first!, base, head: base.map((b, i) => (i === 2 ? b * 3 : b * (1 + (i % 2) * 0.002))) };
    // Round 5: both sides slower, head more.
    const whole = { ...second!, base: base.map((b, i) => (i === 4 ? b * 2 : b)), head: base.map((b, i) => (i === 4 ? b * 5 : b * 1.001)) };
    // Round 2: each side within its own rounds, only their ratio off.
    const ratioOnly = {
      ...third!,
      base: base.map((b, i) => (i === 1 ? b * 0.8 : b * (1 + (0.3 * ((i % 4) - 1.5)) / 1.5))),
      head: base.map((b, i) => (i === 1 ? b * 1.25 : b * (1 + (0.3 * ((i % 4) - 1.5)) / 1.5) * 1.001)),
    };
    result.rows = result.rows.map((row) => (row === first ? oneSide : row === second ? whole : row === third ? ratioOnly : row));
    const analysis = analyzeResult(result);
    const byRound = Object.fromEntries(analysis.outliers.map(({ outlier }) => [outlier.round, outlier]));
    expect(byRound[3]).toMatchObject({ round: 3, cause: "one-side", side: { name: "head" } });
    expect(byRound[3]!.change).toBeCloseTo(2, 1);
    expect(byRound[5]).toMatchObject({ round: 5, cause: "whole-process" });
    expect(byRound[2]).toMatchObject({ round: 2, cause: "ratio-only" });
    const text = renderTerminal(analysis, { color: false });
    const notes = text.split("\n").filter((line) => line.includes("far off"));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^note: \d+ rows have a round far off its others, which widens its interval: .*; --verbose names each$/);
    const verbose = renderTerminal(analysis, { color: false, verbose: true });
    expect(verbose).toMatch(
      /: round 3 reads \+\d+\.\d% where its other rounds read [-+]\d+\.\d% to [-+]\d+\.\d%: head's batches there ran \d+% slower than in its other rounds and base's did not, a pause inside that process \(preempted, or a collection during them\)$/m,
    );
    expect(verbose).toContain("both sides ran far from their other rounds, the process as a whole was slowed");
    expect(verbose).toContain("neither side is far from its other rounds, only their ratio");
    // A spread-out row whose farthest round is the edge of its spread names none.
    expect(analyzeResult(aaResult()).outliers).toEqual([]);
  });

  test("rows of no work measured: one note for all of them, how many and where the list is; a note per row with --verbose", () => {
    const result = aaResult();
    const timed = result.rows.filter((r) => r.stats);
    const empty = timed.slice(0, 3).map((row) => ({
      ...row,
      status: "no-work" as const,
      stats: undefined,
      base: row.base.map(() => 0.4),
      head: row.head.map(() => 0.5),
    }));
    result.rows = [...empty, ...result.rows.slice(3)];
    const text = renderTerminal(analyzeResult(result), { color: false });
    const notes = text.split("\n").filter((line) => line.startsWith("note: ") && line.includes("no work measured"));
    expect(notes).toEqual([
      'note: 3 rows read no work measured: under 1.5 ns per iteration on both sides, below what time can resolve here (an empty loop costs about as much), so no interval and no verdict (--verbose lists them; the JSON marks them "no-work"); a body meant to cost more may have been optimized away: use its result (return it, or keep it in a variable the benchmark reads)',
    ]);
    expect(text).not.toContain("probably optimized away");
    const verbose = renderTerminal(analyzeResult(result), { color: false, verbose: true });
    const shown = withDisplayNames(result).rows;
    for (const i of [0, 1, 2]) {
      expect(verbose).toContain(
        `note: ${shown[i]!.id}: no work measured: 0.40 ns (base) and 0.50 ns (head) per iteration, under 1.5 ns, below what time can resolve here`,
      );
    }
  });

  test("the budget that would bring three quarters of the wide rows within the target", () => {
    const result = aaResult();
    result.rounds = { ...result.rounds, stoppedBy: "time", targetHalfWidth: 0.01, maxTimeS: 120, measuredS: 100 };
    const timed = result.rows.filter((r) => r.stats);
    const wide = timed.filter((r) => r.stats!.halfWidth! > 0.01);
    const perRowRound = 100 / timed.reduce((sum, r) => sum + r.stats!.n, 0);
    const extra = wide.map((r) => Math.ceil(r.stats!.n * (r.stats!.halfWidth! / 0.01) ** 2) - r.stats!.n).sort((a, b) => a - b);
    const k = Math.ceil(0.75 * wide.length);
    const expected = Math.ceil((100 + perRowRound * extra.slice(0, k).reduce((a, b) => a + b, 0)) / 10) * 10;
    expect(budgetForMost(result, wide, 0.01)).toEqual({ maxTimeS: expected, rows: k });
  });

  test("the raw medians stay in the JSON", () => {
    const row = mixedResult().rows.find((r) => r.stats)!;
    const back = parseResult(renderJson(mixedResult())).rows.find((r) => r.id === row.id)!;
    expect(back.stats!.headMedian).toBe(row.stats!.headMedian);
    expect(back.stats!.headMedian).not.toBe(row.stats!.baseMedian * (1 + row.stats!.delta));
  });
});

describe("markdown", () => {
  test("snapshot: the A/A table in markdown", () => expectFixture("aa.md", renderMarkdown(analyzeResult(aaResult()))));
  test("snapshot: every kind of row, Holm, rounding note, hostile names", () =>
    expectFixture("mixed.md", renderMarkdown(analyzeResult(mixedResult()))));

  test("starts with the sticky marker and keeps every table row at 7 cells", () => {
    const md = renderMarkdown(analyzeResult(mixedResult()));
    expect(md.startsWith(`${COMMENT_MARKER}\n`)).toBe(true);
    expect(COMMENT_MARKER).toBe("<!-- xbench-compare -->");
    const tableLines = md.split("\n").filter((l) => l.startsWith("|"));
    const main = tableLines.filter((l) => l.split("|").length === 9);
    const raw = tableLines.filter((l) => l.split("|").length === 6);
    expect(main.length).toBe(mixedResult().rows.length + 2);
    expect(raw.length).toBe(mixedResult().rows.length + 2);
    expect(main.length + raw.length).toBe(tableLines.length);
  });

  test("no HTML but our own tags, whatever the names", () => {
    const md = renderMarkdown(analyzeResult(mixedResult()));
    const tags = md.match(/<[^>]*>/g) ?? [];
    expect(new Set(tags)).toEqual(new Set([COMMENT_MARKER, "<sub>", "</sub>", "<details>", "<summary>", "</summary>", "</details>"]));
    expect(md).not.toContain("\nsecond line");
  });

  test("escaping: any string comes out with no markup character left bare", () => {
    const random = mulberry32(9);
    const alphabet = "|<>&`*_[]~!$#@\\\n\r\t:/w.(){}\"'=- aZ9\u001b";
    for (let i = 0; i < 500; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 30) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      const escaped = escapeMarkdown(text);
      const withoutRefs = escaped.replace(/&#\d+;/g, "");
      expect(withoutRefs).not.toMatch(/[|<>&`*_[\]~!$#@\\\n\r\t\u001b]/);
      expect(withoutRefs).not.toMatch(/:\/\/|www\./i);
    }
    expect(escapeMarkdown("a|b")).toBe("a&#124;b");
    expect(escapeMarkdown("@team #1")).toBe("&#64;&#8288;team &#35;&#8288;1");
    expect(escapeMarkdown(HOSTILE_NAME)).not.toContain("<script>");
  });

  test("interval pictures", () => {
    expect(intervalPicture([-0.016, 0.046], 0.014)).toBe("····━━━┿━●━━━━━");
    expect(intervalPicture([0, 0], 0)).toBe("·······●·······");
    expect(intervalPicture([-0.34, -0.1], -0.23)).toBe("━━━●━━·│·······");
    // +2% rounds to the zero cell's neighbour, never onto zero: the picture agrees with the verdict
    expect(intervalPicture([0.02, 0.5], 0.2)).toBe("·······│━━●━━━━");
    expect(intervalPicture([-0.5, -0.001], -0.2)).toBe("━━━━━●━│·······");
  });
});

describe("json", () => {
  test("round-trips the model", () => {
    const result = mixedResult();
    expect(parseResult(renderJson(result))).toEqual(JSON.parse(JSON.stringify(result)));
    expectFixture("mixed-result.json", renderJson(result));
    expectFixture("aa-result.json", renderJson(aaResult()));
  });

  test("an unbounded interval (fewer than 6 rounds) survives the round trip: JSON writes Infinity as null", () => {
    const result = mixedResult();
    const row = result.rows.find((r) => r.stats)!;
    const unbounded = { ...row, stats: { ...row.stats!, ci: [-1, Infinity] as [number, number], halfWidth: Infinity } };
    const back = parseResult(renderJson({ ...result, rows: [unbounded] }));
    expect(back.rows[0]!.stats!.ci).toEqual([-1, Infinity]);
    expect(back.rows[0]!.stats!.halfWidth).toBe(Infinity);
    expect(formatPercent(Infinity)).toBe("+∞");
  });

  const oneLineUsageError = (text: string, message: string) => {
    let error: unknown;
    try {
      parseResult(text, "r.json");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(XbenchError);
    expect((error as XbenchError).exitCode).toBe(EXIT_USAGE);
    expect((error as Error).message).toStartWith("r.json: ");
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain("\n");
  };
  const valid = () => JSON.parse(renderJson(mixedResult())) as Record<string, unknown>;
  const edited = (edit: (r: Record<string, unknown>) => void) => {
    const r = valid();
    edit(r);
    return JSON.stringify(r);
  };

  test("malformed JSON", () => oneLineUsageError('{"schema": "xbench/compare",\n', "not valid JSON"));
  test("another schema", () =>
    oneLineUsageError(
      edited((r) => (r.schema = "other/thing")),
      'schema "other/thing"',
    ));
  test("no schema", () => oneLineUsageError("[1, 2]", "not an xbench compare result"));
  test("a newer schema version", () =>
    oneLineUsageError(
      edited((r) => (r.schemaVersion = SCHEMA_VERSION + 1)),
      "newer than this xbench reads",
    ));
  test("a wrong shape names the field", () => {
    oneLineUsageError(
      edited((r) => ((r.rows as Array<Record<string, unknown>>)[2]!.unit = "furlongs")),
      "rows[2].unit",
    );
    oneLineUsageError(
      edited((r) => delete r.loadavg),
      "field loadavg",
    );
    oneLineUsageError(
      edited((r) => ((r.rows as Array<Record<string, unknown>>)[0]!.stats = { n: 1 })),
      "rows[0].stats",
    );
  });
  test("unknown extra fields from compatible writers are kept", () => {
    const r = parseResult(edited((r) => (r.extra = 1))) as CompareResult & { extra?: number };
    expect(r.extra).toBe(1);
  });
});
