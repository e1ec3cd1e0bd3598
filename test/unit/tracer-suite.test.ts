import { describe, expect, test } from "bun:test";
import { parseBackends, parseIterations } from "../../src/commands/bench-tracer.ts";
import { planRounds } from "../../src/schedule/orderings.ts";
import { TARGET_FOR, launchFor, threadPath } from "../../src/suites/tracer/arms.ts";
import { runIterations, type Cell } from "../../src/suites/tracer/iterations.ts";
import { parseBatchTime } from "../../src/suites/tracer/launch.ts";
import type { ArmName } from "../../src/suites/tracer/model.ts";
import { summarizeRow } from "../../src/suites/tracer/rows.ts";
import { armsOf, cellsOf } from "../../src/suites/tracer/suite.ts";
import { reportsMissing } from "../../src/suites/tracer/validate.ts";

const ARMS3: ArmName[] = ["head", "base", "untracked"];

describe("tracer suite: orderings", () => {
  test("three arms cycle all 6 orderings; iterations round up to whole cycles", () => {
    const plan = planRounds({ arms: ARMS3, rounds: 7 });
    expect(plan.cycle).toBe(6);
    expect(plan.planned).toBe(12);
    const firstCycle = plan.orders.slice(0, 6).map((o) => o.join(","));
    expect(new Set(firstCycle).size).toBe(6);
  });

  test("without a base the two orderings alternate", () => {
    const plan = planRounds({ arms: ["head", "untracked"], rounds: 3 });
    expect(plan.planned).toBe(4);
    expect(new Set(plan.orders.slice(0, 2).map((o) => o.join(","))).size).toBe(2);
  });

  test("arms: head first, base only when given, untracked last", () => {
    expect(armsOf({ headHelperDir: "/h" }).map((a) => a.name)).toEqual(["head", "untracked"]);
    expect(armsOf({ headHelperDir: "/h", baseHelperDir: "/b" }).map((a) => a.name)).toEqual(ARMS3);
  });

  test("cells: launch then access per backend", () => {
    expect(cellsOf(["preload", "seccomp"])).toEqual([
      { backend: "preload", row: "launch" },
      { backend: "preload", row: "access" },
      { backend: "seccomp", row: "launch" },
      { backend: "seccomp", row: "access" },
    ]);
  });
});

describe("tracer suite: runIterations", () => {
  const cells: Cell[] = cellsOf(["preload"]);

  test("runs each cell's arms in the iteration's order; warm-up is run but not counted", async () => {
    const plan = planRounds({ arms: ARMS3, rounds: 6 });
    const calls: string[] = [];
    let value = 0;
    const result = await runIterations(
      cells,
      { orders: plan.orders as ArmName[][], passes: { launch: 1, access: 1 }, warmup: 2 },
      (cell, arm) => {
        calls.push(`${cell.row}:${arm}`);
        return ++value;
      },
    );
    // 2 warm-up + 6 counted iterations, 2 cells, 3 arms.
    expect(calls.length).toBe(8 * 2 * 3);
    const counted = calls.slice(2 * 2 * 3);
    for (let i = 0; i < 6; i++) {
      const order = plan.orders[i]!;
      expect(counted.slice(i * 6, i * 6 + 3)).toEqual(order.map((a) => `launch:${a}`));
      expect(counted.slice(i * 6 + 3, i * 6 + 6)).toEqual(order.map((a) => `access:${a}`));
    }
    for (const { samples } of result) {
      for (const arm of ARMS3) expect(samples[arm]!.length).toBe(6);
    }
    // Warm-up values (1..12) are thrown away.
    expect(Math.min(...result.flatMap((r) => ARMS3.flatMap((a) => r.samples[a]!)))).toBe(13);
  });

  test("passes repeat the ordering back to back; an arm's value is the median of its passes", async () => {
    const calls: string[] = [];
    const values: Record<string, number[]> = { head: [5, 1, 9], untracked: [2, 8, 4] };
    const result = await runIterations(
      [{ backend: "preload", row: "launch" }],
      { orders: [["untracked", "head"]], passes: { launch: 3, access: 1 }, warmup: 0 },
      (_, arm) => {
        calls.push(arm);
        return values[arm]!.shift()!;
      },
    );
    expect(calls).toEqual(["untracked", "head", "untracked", "head", "untracked", "head"]);
    expect(result[0]!.samples).toEqual({ untracked: [4], head: [5] });
  });

  test("passes must be whole numbers >= 1", async () => {
    expect(runIterations(cells, { orders: [["head"]], passes: { launch: 0, access: 1 }, warmup: 0 }, () => 1)).rejects.toThrow(/passes/);
  });

  test("reports progress with warm-up marked", async () => {
    const seen: Array<[number, number, boolean]> = [];
    await runIterations(
      cells,
      {
        orders: [
          ["head", "untracked"],
          ["untracked", "head"],
        ],
        passes: { launch: 1, access: 1 },
        warmup: 1,
      },
      () => 1,
      {
        onIteration: (done, total, counted) => seen.push([done, total, counted]),
      },
    );
    expect(seen).toEqual([
      [1, 3, false],
      [2, 3, true],
      [3, 3, true],
    ]);
  });
});

describe("tracer suite: row statistics", () => {
  const cell: Cell = { backend: "seccomp", row: "access" };
  const workload = { threads: 2, opens: 2048 };

  test("change is the median of per-iteration head/base - 1 with type-7 quartiles", () => {
    const base = [100, 100, 100, 100, 100];
    const head = [101, 110, 99, 104, 102]; // ratios - 1: .01 .10 -.01 .04 .02
    const untracked = [50, 50, 50, 50, 50];
    const row = summarizeRow(cell, workload, { head, base, untracked });
    expect(row.change!.median).toBeCloseTo(0.02, 12);
    expect(row.change!.q1).toBeCloseTo(0.01, 12);
    expect(row.change!.q3).toBeCloseTo(0.04, 12);
    expect(row.overhead.head.median).toBeCloseTo(1.04, 12);
    expect(row.overhead.base!.median).toBeCloseTo(1, 12);
    expect(row.medians).toEqual({ head: 102, base: 100, untracked: 50 });
  });

  test("pairs by iteration, not by sorted values", () => {
    // Medians are equal, but head is 10% slower in every iteration.
    const base = [100, 200, 300];
    const head = [110, 220, 330];
    const row = summarizeRow(cell, workload, { head, base, untracked: [100, 100, 100] });
    expect(row.change!.median).toBeCloseTo(0.1, 12);
    expect(row.change!.q1).toBeCloseTo(0.1, 12);
  });

  test("without a base: overhead only, no change", () => {
    const row = summarizeRow(cell, workload, { head: [3, 3], untracked: [2, 2] });
    expect(row.change).toBeUndefined();
    expect(row.medians.base).toBeUndefined();
    expect(row.overhead.head.median).toBeCloseTo(0.5, 12);
  });

  test("a non-positive value is a one-line error naming the row", () => {
    expect(() => summarizeRow(cell, workload, { head: [1, 0], untracked: [1, 1] })).toThrow(/seccomp access/);
  });
});

describe("tracer suite: commands and parsing", () => {
  const paths = { targetDir: "/h", missingPath: "/tmp/x/missing", logFile: "/tmp/x/head.log" };

  test("untracked runs the target directly; tracked arms run it under their own supervisor", () => {
    expect(launchFor({ name: "untracked" }, "preload", { threads: 2, opens: 0 }, paths)).toEqual({
      file: `/h/${TARGET_FOR.preload}`,
      args: ["2", "0", "/tmp/x/missing"],
    });
    expect(launchFor({ name: "base", helperDir: "/b" }, "seccomp", { threads: 2, opens: 2048 }, paths)).toEqual({
      file: "/b/xbench-supervisor",
      args: ["--backend", "seccomp", "--log", "/tmp/x/head.log", "--", "/h/xbench-target-static", "2", "2048", "/tmp/x/missing"],
    });
  });

  test("preload traces the dynamic target, seccomp the static one", () => {
    expect(TARGET_FOR).toEqual({ preload: "xbench-target", seccomp: "xbench-target-static" });
  });

  test("the validation path is thread 0's and must be logged as missing", () => {
    const path = threadPath("/tmp/x/missing", 0);
    expect(path).toBe("/tmp/x/missing-0");
    expect(reportsMissing([{ path, modes: ["missing"] }], path)).toBe(true);
    expect(reportsMissing([{ path, modes: ["read"] }], path)).toBe(false);
    expect(reportsMissing([{ path: "/tmp/x/missing-1", modes: ["missing"] }], path)).toBe(false);
  });

  test("the target's answer is one positive whole number", () => {
    expect(parseBatchTime("16245\n", "x")).toBe(16245);
    expect(() => parseBatchTime("", "x")).toThrow(/instead of a batch time/);
    expect(() => parseBatchTime("0\n", "x")).toThrow();
    expect(() => parseBatchTime("12 13\n", "x")).toThrow();
  });

  test("--iterations and --backends", () => {
    expect(parseIterations("7")).toBe(7);
    expect(() => parseIterations("0")).toThrow(/whole number/);
    expect(() => parseIterations("2.5")).toThrow(/whole number/);
    expect(parseBackends("seccomp,preload,seccomp")).toEqual(["seccomp", "preload"]);
    expect(() => parseBackends("ptrace")).toThrow(/unknown backend ptrace/);
    expect(() => parseBackends(",")).toThrow(/at least one/);
  });
});
