/**
 * Bisect's pieces around the search (docs/bisect.md): the commits it prepares as sides, named
 * as compare names its own, each step's plan, and the verdict a step's rows give.
 */
import { describe, expect, test } from "bun:test";
import { judgeStep, stepPlan } from "../../src/compare/bisect/bisect.ts";
import { bisectCommit, compareCommits } from "../../src/compare/sides/prepare.ts";
import type { RunPlan } from "../../src/compare/run/store.ts";
import type { Row } from "../../src/model/result.ts";
import { decideGate } from "../../src/report/gate.ts";

const BASE = "a".repeat(40);
const HEAD = "b".repeat(40);

describe("the commits prepared as sides", () => {
  test("a compare's are base and head, head the working tree itself unless --head REF", () => {
    const revision = { ref: "x", dirty: false };
    const plan = { base: { ...revision, sha: BASE }, head: { ...revision, sha: HEAD } };
    expect(compareCommits(plan)).toEqual([
      { side: "base", sha: BASE, name: "base" },
      { side: "head", sha: HEAD, name: "head", workingTree: true },
    ]);
    expect(compareCommits({ ...plan, head: { ...plan.head, headRef: "main" } })[1]).toEqual({ side: "head", sha: HEAD, name: "head" });
  });

  test("bisect's each get a folder of their own, commit-<sha>, whichever side they play", () => {
    expect(bisectCommit("base", BASE)).toEqual({ side: "base", sha: BASE, name: `commit-${BASE.slice(0, 12)}` });
    expect(bisectCommit("head", HEAD).name).toBe(`commit-${HEAD.slice(0, 12)}`);
    expect(bisectCommit("head", BASE).name).toBe(bisectCommit("base", BASE).name);
  });
});

test("a step's plan: bisect's settings with the commit as head, good as base, a seed and start of its own", () => {
  const compare = { repo: "/r", files: ["g.bench.ts"], base: { ref: "v1", sha: BASE, dirty: false }, seed: 1 } as unknown as RunPlan;
  const commit = { sha: HEAD, subject: "commit 7" };
  const plan = stepPlan(compare, commit, 6, 42, new Date("2026-12-01T00:00:00Z"));
  expect(plan).toMatchObject({ repo: "/r", files: ["g.bench.ts"], base: compare.base, seed: 42, startedAt: "2026-12-01T00:00:00.000Z" });
  expect(plan.head).toEqual({ ref: HEAD.slice(0, 12), sha: HEAD, dirty: false, headRef: HEAD });
  expect(plan.sampling).toEqual({ requested: 6, minRounds: 6, maxRounds: 6 });
});

describe("a step's verdict", () => {
  /** A row of g.bench.ts: measured with interval `ci` (fractions), or failed on `failedOn`. */
  const row = (label: string, ci?: [number, number], failedOn?: "base" | "head"): Row => ({
    id: `g-1a2b3c4d: ${label}`,
    file: "g.bench.ts",
    label,
    unit: "ns",
    base: [],
    head: [],
    ...(ci
      ? {
          status: "ok",
          stats: {
            n: 6,
            delta: (ci[0] + ci[1]) / 2,
            ci,
            verdict: "~",
            baseMedian: 1,
            headMedian: 1,
            ratioMedian: 0,
            ratioQ1: 0,
            ratioQ3: 0,
          },
        }
      : { status: "failed", error: { side: failedOn ?? "head", message: "boom" } }),
  });
  const judge = (rows: Row[], direction: "slower" | "faster" = "slower", atBad = false) =>
    judgeStep(rows, decideGate(rows, { on: "above", above: 0.1 }), direction, atBad);

  test("bad when a row lies wholly past the line, shown by that row under compare's name", () => {
    expect(judge([row("fast", [-0.01, 0.01]), row("slow", [0.8, 1.2])])).toEqual({
      verdict: "bad",
      row: { id: "g-1a2b3c4d: slow", name: "g.bench.ts › slow", delta: 1, ci: [0.8, 1.2] },
    });
  });

  test("good when every row is within it; a search for a speed-up shows the row as measured, not as the gate read it", () => {
    expect(judge([row("a", [-0.02, 0.03])])).toMatchObject({ verdict: "good" });
    // The rows come mirrored for the gate: -50% faster reads as +50% "above"; the row shown is -50% again.
    expect(judge([row("quick", [0.4, 0.6])], "faster")).toMatchObject({ verdict: "bad", row: { delta: -0.5, ci: [-0.6, -0.4] } });
  });

  test("a row that failed on the commit makes a passing step a skip, with the failure", () => {
    const judged = judge([row("a", [-0.02, 0.03]), row("b", undefined, "head")]);
    expect(judged).toMatchObject({ verdict: "skip", notMeasured: 'g.bench.ts on head ("b"): boom' });
  });

  test("nothing measured: a skip between good and bad, no answer against --good or at --bad", () => {
    expect(judge([row("a", undefined, "head")])).toMatchObject({ verdict: "skip", notMeasured: expect.stringContaining("boom") });
    expect(judge([row("a", undefined, "head")], "slower", true)).toEqual({ measuredNothing: expect.stringContaining("on head") });
    expect(judge([row("a", undefined, "base")])).toEqual({ measuredNothing: expect.stringContaining("on base") });
  });
});
