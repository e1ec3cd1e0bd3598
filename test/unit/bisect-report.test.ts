import { describe, expect, test } from "bun:test";
import type { BisectResult, BisectStep } from "../../src/compare/bisect/bisect.ts";
import type { BisectConclusion } from "../../src/compare/bisect/bisect-search.ts";
import { conclusionLines, renderBisectMarkdown, stepLine } from "../../src/output/bisect-report.ts";

const sha = (i: number) => `${String(i).padStart(2, "0")}${"a".repeat(38)}`;
const path = Array.from({ length: 6 }, (_, i) => ({ sha: sha(i), subject: i === 3 ? "make it | *slower*" : `commit ${i}` }));

function step(n: number, index: number, verdict: BisectStep["verdict"], delta: number): BisectStep {
  return {
    step: n,
    index,
    commit: path[index]!,
    verdict,
    rounds: 6,
    row: { id: "g-12345678: slow", name: "g.bench.ts › slow", delta, ci: [delta - 0.05, delta + 0.05] },
    wallMs: 1,
  };
}

function result(conclusion: BisectConclusion, steps: BisectStep[]): BisectResult {
  const good = { ref: "v1", ...path[0]! };
  const bad = { ref: "HEAD", ...path[5]! };
  return { good, bad, above: 0.1, direction: "slower", path, steps, conclusion, bundled: [sha(5), sha(0)], runDir: "/tmp/x", wallMs: 1234 };
}

describe("bisect report", () => {
  test("a step line: position, commit, verdict, the deciding row's numbers, rounds, subject", () => {
    expect(stepLine(step(1, 5, "bad", 1), 5)).toBe(
      `step 1  commit 5/5  ${sha(5).slice(0, 12)}  bad   +100.0% [+95.0%, +105.0%] (g.bench.ts › slow)  6 rounds  "commit 5"`,
    );
  });

  test("found: the commit, its numbers, and its parent shown good", () => {
    const steps = [step(1, 5, "bad", 1), step(2, 2, "good", 0), step(3, 3, "bad", 1)];
    expect(conclusionLines(result({ kind: "found", firstBad: 3, reverted: [] }, steps))).toEqual([
      `first bad commit: ${sha(3).slice(0, 12)} (commit 3/5) "make it | *slower*"`,
      "  more than 10% slower than --good: +100.0% [+95.0%, +105.0%] (g.bench.ts › slow) (step 3)",
      `  its parent ${sha(2).slice(0, 12)} (commit 2/5) "commit 2" is good: not more than 10% slower (step 2)`,
    ]);
  });

  test("a reverted slowdown and a range are said as such", () => {
    const steps = [step(1, 5, "bad", 1), step(2, 1, "bad", 1), step(3, 2, "good", 0), step(4, 3, "skip", 0.1)];
    const lines = conclusionLines(
      result({ kind: "range", after: 2, upTo: 4, skipped: [3], reverted: [{ bad: 1, firstBad: 1, goodAgain: 2 }] }, steps),
    );
    expect(lines[0]).toBe(
      `the first bad commit is one of ${sha(3).slice(0, 12)} (commit 3/5) "make it | *slower*" … ${sha(4).slice(0, 12)} (commit 4/5) "commit 4"`,
    );
    expect(lines.at(-1)).toBe(
      `  note: a slowdown introduced at ${sha(1).slice(0, 12)} (commit 1/5) "commit 1" was reverted: good again at ${sha(2).slice(0, 12)} (commit 2/5) "commit 2"; it is not the one --bad has`,
    );
  });

  test("nothing to bisect when --bad is not slower", () => {
    const lines = conclusionLines(result({ kind: "not-bad", verdict: "good" }, [step(1, 5, "good", 0.01)]));
    expect(lines[0]).toBe(
      `nothing to bisect: --bad HEAD (${sha(5).slice(0, 12)}) is not more than 10% slower than --good v1 (${sha(0).slice(0, 12)})`,
    );
  });

  test("markdown: a subject cannot break the table", () => {
    const md = renderBisectMarkdown(result({ kind: "found", firstBad: 3, reverted: [] }, [step(1, 5, "bad", 1), step(2, 3, "bad", 1)]));
    expect(md).toStartWith("<!-- xbench-bisect -->\n\n**xbench bisect** (--above 10%): first bad commit:");
    const row = md.split("\n").find((line) => line.startsWith("| 2 |"))!;
    expect(row.split(" | ")).toHaveLength(8);
    expect(row).toContain("make it &#124; &#42;slower&#42;");
  });
});
