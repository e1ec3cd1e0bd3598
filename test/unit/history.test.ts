/** `xbench history`'s pure parts: steps from recorded compares, chains and gaps, moves, the row filter, tree unions, the page. */
import { describe, expect, test } from "bun:test";
import { buildHistory, chainSteps, rowMatches, type PathCommit } from "../../src/history/chain.ts";
import { ENTRY_SCHEMA, newerEntry, parseEntry, type HistoryEntry } from "../../src/history/entry.ts";
import { renderHistoryHtml } from "../../src/history/html.ts";
import { mktreeInput, pushFailure, unionFiles } from "../../src/history/store.ts";
import { renderHistoryTerminal } from "../../src/history/terminal.ts";
import type { CompareResult, Row } from "../../src/model/result.ts";

const sha = (n: number) => n.toString(16).padStart(40, "0");
const commit = (n: number): PathCommit => ({ sha: sha(n), subject: `commit ${n}` });

function timed(id: string, delta: number, halfWidth: number): Row {
  const ci: [number, number] = [delta - halfWidth, delta + halfWidth];
  const stats = {
    n: 10,
    delta,
    ci,
    verdict: "~" as const,
    baseMedian: 1,
    headMedian: 1,
    ratioMedian: 0,
    ratioQ1: 0,
    ratioQ3: 0,
    level: 0.95,
  };
  return { id, file: "m.bench.ts", label: id, unit: "ns", status: "ok", base: [], head: [], stats };
}

function entry(n: number, rows: Row[], recordedAt = "2026-01-01T00:00:00.000Z"): HistoryEntry {
  const result = { level: 0.95, rows } as unknown as CompareResult;
  return { schema: ENTRY_SCHEMA, schemaVersion: 1, commit: sha(n), parent: sha(n - 1), recordedAt, result };
}

const unchanged = (id: string): Row => ({ id, file: "m.bench.ts", label: id, unit: "ns", status: "unchanged", base: [], head: [] });

describe("buildHistory", () => {
  const path = [1, 2, 3, 4, 5].map(commit);
  const entries = new Map<string, HistoryEntry>([
    [sha(1), entry(1, [timed("a", 0.1, 0.01), timed("b", 0.001, 0.01)])],
    [sha(2), entry(2, [unchanged("a"), unchanged("b")])],
    // 3 is not recorded; 4 failed
    [
      sha(4),
      { schema: ENTRY_SCHEMA, schemaVersion: 1, commit: sha(4), parent: sha(3), recordedAt: "2026-01-01T00:00:00Z", error: "build failed" },
    ],
    [sha(5), entry(5, [timed("a", -0.05, 0.01), timed("b", 0.002, 0.004)])],
  ]);
  const report = buildHistory({ start: commit(0), path, entries, minEffect: 0.005 });
  const a = report.rows.find((r) => r.id === "a")!;

  test("commits not recorded or failed are named so, and are gaps of every row", () => {
    expect(report.commits.map((c) => c.status)).toEqual(["recorded", "recorded", "not recorded", "failed", "recorded"]);
    expect(a.gaps).toEqual([sha(3), sha(4)]);
    expect(a.steps[2]!.gap).toBe("not recorded");
    expect(a.steps[3]!.gap).toBe("failed: build failed");
  });

  test("the cumulative holds over the steps after the last gap only, and says from where", () => {
    expect(a.cumulative!.from).toBe(sha(4));
    expect(a.cumulative!.to).toBe(sha(5));
    expect(a.cumulative!.steps).toBe(1);
    // One noisy step: its own interval, not a normal approximation of it.
    expect(a.cumulative!.delta).toBeCloseTo(-0.05, 10);
    expect(a.cumulative!.ci[0]).toBeCloseTo(-0.06, 10);
    expect(a.cumulative!.ci[1]).toBeCloseTo(-0.04, 10);
  });

  test("the trend is null at gaps and starts again after them", () => {
    expect(a.trend[0]).toEqual({ log: 0, se: 0 });
    expect(a.trend[1]!.log).toBeCloseTo(Math.log(1.1), 10);
    expect(a.trend[2]!.log).toBeCloseTo(Math.log(1.1), 10); // unchanged code: exactly no change
    expect(a.trend[3]).toBeNull();
    expect(a.trend[4]).toBeNull();
    expect(a.trend[5]!.log).toBeCloseTo(Math.log(0.95), 10);
  });

  test("a commit moved a row when its own interval lies beyond ±min-effect; b's small steps did not", () => {
    expect(a.moved.map((m) => m.sha)).toEqual([sha(1), sha(5)]);
    expect(a.moved[0]!.subject).toBe("commit 1");
    expect(report.rows.find((r) => r.id === "b")!.moved).toEqual([]);
  });

  test("the terminal names gaps, cumulatives and moves", () => {
    const text = renderHistoryTerminal(report);
    expect(text).toContain("3 recorded, 1 not recorded, 1 failed");
    expect(text).toContain(`gap ${sha(4).slice(0, 12)} commit 4 (failed: build failed)`);
    expect(text).toContain(`m.bench.ts › a  -5.0% [-6.0%, -4.0%] over 1 step since ${sha(4).slice(0, 12)}; 2 gaps`);
    expect(text).toContain(`moved by ${sha(1).slice(0, 12)} +10.0% [+9.0%, +11.0%]  commit 1`);
  });

  test("the page marks each move at its commit and each gap, and escapes names", () => {
    const html = renderHistoryHtml({ ...report, rows: report.rows.map((r) => ({ ...r, name: `${r.name}<x>` })) });
    expect(html).toContain(`class="move slower" data-sha="${sha(1)}"`);
    expect(html).toContain(`class="move faster" data-sha="${sha(5)}"`);
    expect(html).toContain(`class="gap" data-sha="${sha(3)}"`);
    expect(html).not.toContain("<x>");
    expect(html).toContain("default-src 'none'");
  });
});

describe("a history measured in time, then in counts", () => {
  const counted = (id: string, delta: number): Row => ({ ...timed(id, delta, 0.0005), unit: "instructions" });
  const path = [1, 2, 3].map(commit);
  const entries = new Map<string, HistoryEntry>([
    [sha(1), entry(1, [timed("a", 0.1, 0.01)])],
    [sha(2), entry(2, [counted("a", 0.02)])],
    [sha(3), entry(3, [counted("a", 0.01)])],
  ]);
  const a = buildHistory({ start: commit(0), path, entries, minEffect: 0.001 }).rows[0]!;

  test("is read in the unit of its latest entry: a step in another unit is a gap, never chained", () => {
    expect(a.steps.map((step) => step.kind)).toEqual(["gap", "measured", "measured"]);
    expect(a.steps[0]!.gap).toBe("timed, not counted in instructions");
    expect(a.cumulative!.steps).toBe(2);
    expect(a.cumulative!.delta).toBeCloseTo(1.02 * 1.01 - 1, 10);
  });
});

describe("chainSteps", () => {
  test("variances add: two steps of standard error s give a sum of standard error s√2", () => {
    const step = (n: number) => ({
      sha: sha(n),
      kind: "measured" as const,
      log: 0.01,
      se: 0.02,
      delta: Math.expm1(0.01),
      ci: [0, 0] as [number, number],
    });
    const { cumulative } = chainSteps(sha(0), [step(1), step(2)]);
    expect(cumulative!.log).toBeCloseTo(0.02, 12);
    expect(cumulative!.se).toBeCloseTo(0.02 * Math.SQRT2, 12);
    expect(Math.log1p(cumulative!.ci[1]) - 0.02).toBeCloseTo(1.959964 * 0.02 * Math.SQRT2, 5);
  });
  test("a chain whose last step is a gap keeps the run before it, ending where it ended", () => {
    const measured = {
      sha: sha(1),
      kind: "measured" as const,
      log: 0.1,
      se: 0.01,
      delta: Math.expm1(0.1),
      ci: [0.08, 0.12] as [number, number],
    };
    const { cumulative } = chainSteps(sha(0), [measured, { sha: sha(2), kind: "gap", gap: "not recorded" }]);
    expect(cumulative!.to).toBe(sha(1));
  });
});

describe("rowMatches", () => {
  const row = { id: "parse-1a2b3c4d: small", file: "src/parse.bench.ts", label: "small", name: "parse.bench.ts › small" };
  test("a substring of the name, id, file or label", () => {
    expect(rowMatches(row, "parse")).toBe(true);
    expect(rowMatches(row, "large")).toBe(false);
  });
  test("a glob, as compare's filter reads one", () => {
    expect(rowMatches(row, "*.bench.ts › sm*")).toBe(true);
    expect(rowMatches(row, "src/**/*.bench.ts")).toBe(true);
    expect(rowMatches(row, "lib/*")).toBe(false);
  });
});

describe("stored entries", () => {
  test("of two recordings of one commit the later wins, whichever side it is on", () => {
    const early = entry(1, [], "2026-01-01T00:00:00.000Z");
    const late = entry(1, [], "2026-01-02T00:00:00.000Z");
    expect(newerEntry(early, late)).toBe(late);
    expect(newerEntry(late, early)).toBe(late);
  });
  test("the union of two trees keeps every name once, sorted; a name in both goes to the pick", () => {
    const ours = [
      { name: "b.json", blob: "1" },
      { name: "a.json", blob: "2" },
    ];
    const theirs = [
      { name: "c.json", blob: "3" },
      { name: "a.json", blob: "4" },
    ];
    const union = unionFiles(ours, theirs, (x, y) => (x.blob > y.blob ? x : y));
    expect(union).toEqual([
      { name: "a.json", blob: "4" },
      { name: "b.json", blob: "1" },
      { name: "c.json", blob: "3" },
    ]);
    expect(mktreeInput(union.slice(0, 1))).toBe("100644 blob 4\ta.json\n");
  });
  test("a file that is not an entry, or from a newer xbench, is one line naming it", () => {
    expect(() => parseEntry("{", "refs/xbench/history:x.json")).toThrow("refs/xbench/history:x.json: not JSON");
    expect(() => parseEntry("{}", "x.json")).toThrow("x.json: not an xbench history entry");
    const newer = JSON.stringify({ ...entry(1, []), result: undefined, schemaVersion: 99 });
    expect(() => parseEntry(newer, "x.json")).toThrow("written by a newer xbench");
  });
});

describe("why a push of the history failed", () => {
  const to = "To /tmp/xbench-history-remote-x/remote.git\n";
  const failed = "error: failed to push some refs to '/tmp/xbench-history-remote-x/remote.git'\n";

  test("another recorder's push first, or being written as this one arrived: a race, retried", () => {
    const fetchFirst = `${to} ! [rejected]        refs/xbench/history -> refs/xbench/history (fetch first)\n${failed}hint: Updates were rejected because the remote contains work that you do not\n`;
    expect(pushFailure(fetchFirst)).toEqual({ kind: "race" });
    // Two pushes at once into one bare repository: the second finds the ref locked or moved.
    const locked = `remote: error: cannot lock ref 'refs/xbench/history': is at 1111111111111111111111111111111111111111 but expected 0000000000000000000000000000000000000000\n${to} ! [remote rejected] refs/xbench/history -> refs/xbench/history (failed to update ref)\n${failed}`;
    expect(pushFailure(locked)).toEqual({ kind: "race" });
    expect(
      pushFailure(
        `${to} ! [remote rejected] refs/xbench/history -> refs/xbench/history (cannot lock ref 'refs/xbench/history': reference already exists)\n${failed}`,
      ),
    ).toEqual({
      kind: "race",
    });
  });

  test("a remote that refuses the push: its words, not retried", () => {
    const hook = `remote: recording is not allowed here\n${to} ! [remote rejected] refs/xbench/history -> refs/xbench/history (pre-receive hook declined)\n${failed}`;
    expect(pushFailure(hook)).toEqual({
      kind: "refused",
      why: "[remote rejected] refs/xbench/history -> refs/xbench/history (pre-receive hook declined)",
    });
    expect(
      pushFailure(
        "remote: Permission to o/r.git denied to someone.\nfatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 403\n",
      ),
    ).toMatchObject({
      kind: "refused",
    });
    expect(pushFailure("fatal: '/nope' does not appear to be a git repository\nfatal: Could not read from remote repository.\n")).toEqual({
      kind: "other",
    });
  });
});
