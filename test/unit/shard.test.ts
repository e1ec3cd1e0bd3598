/**
 * Sharding by bench file: every shard computes the same assignment from the same inventory,
 * balanced by rows to measure; merging checks that the shards belong to one compare and
 * pools no row across machines.
 */
import { describe, expect, test } from "bun:test";
import { assignShards, mergeShards, parseShard, resultSettings } from "../../src/compare/shard.ts";
import type { RunSettings } from "../../src/compare/run/store.ts";
import type { CompareResult } from "../../src/model/result.ts";
import { XbenchError } from "../../src/errors.ts";

const files = Array.from({ length: 24 }, (_, i) => ({ file: `bench/m${i}.bench.ts`, weight: i % 5 === 0 ? 9 : 3 }));
/** Weights 24 down to 1: dealt in turn (in this order or sorted), shard 1 ends 18 rows heavier than shard 4. */
const graded = Array.from({ length: 24 }, (_, i) => ({ file: `bench/g${i}.bench.ts`, weight: 24 - i }));

/** Rows to measure per shard. */
function loads(list: typeof files, count: number): number[] {
  const assigned = assignShards(list, count);
  return Array.from({ length: count }, (_, s) => list.filter((f) => assigned.get(f.file) === s + 1).reduce((sum, f) => sum + f.weight, 0));
}

describe("--shard I/N", () => {
  test("parses I/N and refuses anything else in one line", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    for (const bad of ["0/4", "5/4", "2", "a/b", "2/0", "1/999"]) expect(() => parseShard(bad)).toThrow(/^--shard must be I\/N/);
  });

  test("every file in exactly one shard; the same answer in any order", () => {
    const a = assignShards(files, 4);
    const b = assignShards([...files].reverse(), 4);
    expect([...a.entries()].sort()).toEqual([...b.entries()].sort());
    expect(a.size).toBe(24);
  });

  test("balanced by rows: the shards differ by at most the lightest file, where dealing files in turn is 6 and 18 apart", () => {
    for (const list of [files, graded]) {
      const load = loads(list, 4);
      expect(load.reduce((sum, l) => sum + l, 0)).toBe(list.reduce((sum, f) => sum + f.weight, 0));
      expect(Math.max(...load) - Math.min(...load)).toBeLessThanOrEqual(Math.min(...list.map((f) => f.weight)));
    }
  });
});

function shardResult(index: number, count: number, ids: string[], overrides: Partial<CompareResult> = {}): CompareResult {
  return {
    schema: "xbench-compare",
    schemaVersion: 3,
    xbenchVersion: "0.1.0",
    runtime: "node",
    rounds: { requested: 6, planned: 6, completed: 6, cycle: 2 },
    base: { ref: "HEAD", sha: "a".repeat(40), dirty: false },
    head: { ref: "working tree", sha: "a".repeat(40), dirty: false },
    loadavg: { start: [0.5, 0.5, 0.5], end: [0.6, 0.6, 0.6] },
    startedAt: "2026-12-01T00:00:00.000Z",
    finishedAt: "2026-12-01T00:01:00.000Z",
    holm: false,
    shard: { index, count },
    rows: ids.map((id) => ({ id, file: id.split(":")[0]!, label: id, unit: "ns", status: "unchanged", base: [], head: [] })),
    ...overrides,
  } as CompareResult;
}

describe("report --merge", () => {
  test("a compare records the settings shards must share, by the flags that set them", () => {
    const plan = {
      runtime: "node",
      install: false,
      timeoutS: 60,
      holm: false,
      isolate: true,
      budget: { batchNs: 1e6, sideNs: 40e6, warmupNs: 1e6, minBatches: 3 },
    };
    // A --time given is recorded; the times xbench fits to each shard's own files are not.
    expect(resultSettings({ ...plan, budgetFixed: true } as RunSettings).timeMs).toBe(40);
    expect(resultSettings({ ...plan, build: "make", filter: "parse" } as RunSettings)).toEqual({
      isolate: true,
      timeoutS: 60,
      all: false,
      install: false,
      build: "make",
      filter: "parse",
    });
  });

  test("the shards' rows side by side, each shard's extent kept", () => {
    const merged = mergeShards([
      { source: "s2.json", result: shardResult(2, 2, ["b: x"]) },
      { source: "s1.json", result: shardResult(1, 2, ["a: x", "a: y"]) },
    ]);
    expect(merged.rows.map((r) => r.id)).toEqual(["a: x", "a: y", "b: x"]);
    expect(merged.shard).toBeUndefined();
    expect(merged.shards!.map((s) => [s.index, s.rows])).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  test("a missing, duplicated or mismatched shard, or a row in two shards, is a one-line error", () => {
    const one = { source: "s1.json", result: shardResult(1, 3, ["a: x"]) };
    const two = { source: "s2.json", result: shardResult(2, 3, ["b: x"]) };
    const message = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(XbenchError);
        return (error as Error).message;
      }
      throw new Error("no error");
    };
    expect(message(() => mergeShards([one, two]))).toBe("shard 3/3 missing");
    expect(message(() => mergeShards([one, one]))).toBe("shard 1/3 given twice: s1.json and s1.json");
    const other = { source: "s3.json", result: shardResult(3, 3, ["c: x"], { head: { ref: "x", sha: "b".repeat(40), dirty: false } }) };
    expect(message(() => mergeShards([one, two, other]))).toBe(
      `s3.json differs from s1.json in head commit: ${"b".repeat(40)} vs ${"a".repeat(40)}`,
    );
    const overlap = { source: "s3.json", result: shardResult(3, 3, ["a: x"]) };
    expect(message(() => mergeShards([one, two, overlap]))).toBe('row "a: x" is in two shards: s1.json and s3.json');
    const settings = { isolate: false, timeMs: 20, timeoutS: 600, all: false, install: false };
    const ruled = (index: number, overrides: Partial<CompareResult>) => ({
      source: `s${index}.json`,
      result: shardResult(index, 2, [`f${index}: x`], { settings, ...overrides }),
    });
    // Settings that change what a row is: each shard measured its rows under its own, so one table would mix them.
    const mismatches: Array<[Partial<CompareResult>, string]> = [
      [{ holm: true }, "--holm: true vs false"],
      [{ minEffect: 0.02 }, "--min-effect: 2% vs none"],
      [{ settings: { ...settings, isolate: true } }, "--isolate: true vs false"],
      [{ settings: { ...settings, timeMs: 100 } }, "--time: 100 vs 20"],
      [{ settings: { ...settings, timeoutS: 20 } }, "--timeout: 20 vs 600"],
      [{ settings: { ...settings, build: "make" } }, "--build: make vs none"],
      [{ rounds: { requested: 12, planned: 12, completed: 12, cycle: 2 } }, "--rounds: 12 vs 6"],
    ];
    for (const [overrides, what] of mismatches) {
      expect(message(() => mergeShards([ruled(1, {}), ruled(2, overrides)]))).toBe(`s2.json differs from s1.json in ${what}`);
    }
    expect(mergeShards([ruled(1, {}), ruled(2, {})]).rows).toHaveLength(2);
    const { shard: _, ...plain } = shardResult(1, 1, ["a: x"]);
    expect(message(() => mergeShards([{ source: "r.json", result: plain as CompareResult }]))).toBe(
      "r.json is not a shard's result (compare --shard I/N writes one)",
    );
  });
});
