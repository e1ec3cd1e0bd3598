/**
 * The rounds' scheduler (src/compare/rounds/rounds.ts measureRounds), in-process on a fake
 * bench-process runner and a fake clock (test/support/fake-rounds.ts): the stop rule, whole
 * cycles of the orderings, rows that stop on their own width, `--jobs`, the wall budget
 * (`--max-time`), shared processes and `--resume`, each as docs/compare.md states it.
 */
import { describe, expect, test } from "bun:test";
import { samplingRule } from "../../src/compare/plan.ts";
import { shareFiles } from "../../src/compare/rounds/shared.ts";
import { halfWidth } from "../../src/report/row-stats.ts";
import type { RoundRecord } from "../../src/compare/run/store.ts";
import { SIDES } from "../../src/model/side.ts";
import { orderAt } from "../../src/schedule/orderings.ts";
import { fakeRounds, type FakeCall, type FakeFile } from "../support/fake-rounds.ts";

const one = (rows: FakeFile["rows"], loadMs?: number): FakeFile[] => [{ file: "a.bench.ts", rows, ...(loadMs ? { loadMs } : {}) }];
const NAMES = ["a.bench.ts", "b.bench.ts", "c.bench.ts"];
const three = (noise = 0.01): FakeFile[] => NAMES.map((file) => ({ file, rows: [{ label: "x", noise }] }));

/** The rounds each row of the run was measured in, by label. */
function roundsOf(records: readonly RoundRecord[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const record of records) {
    for (const label of new Set((record.rows ?? []).map((r) => r.label))) out.set(label, [...(out.get(label) ?? []), record.round]);
  }
  return out;
}

/** What a record says of a process, without what it measured: to compare the processes of two runs. */
const shape = (r: RoundRecord) => ({ round: r.round, file: r.file, job: r.job, sides: r.sides });

describe("the stop rule", () => {
  test("a run stops once every row's interval is within --target, after the minimum 6 rounds", async () => {
    const fake = fakeRounds({
      files: one([
        { label: "x", noise: 0.0005 },
        { label: "y", noise: 0.0005 },
      ]),
      rule: samplingRule({}),
    });
    const result = await fake.run();
    expect(result).toMatchObject({ rounds: 6, stoppedBy: "target" });
    expect(fake.events.filter((e) => e.type === "stopped")).toEqual([{ type: "stopped", by: "target", rounds: 6 }]);
    expect(fake.ctx.analyze(6).every((row) => row.stats !== undefined)).toBe(true);
    expect(fake.calls.length).toBe(6);
  });

  test("a run that needs more rounds stops at the end of the first cycle after which every interval is within the target", async () => {
    const rule = samplingRule({});
    const fake = fakeRounds({
      files: one([
        { label: "narrow", noise: 0.0005 },
        { label: "wide", noise: 0.02 },
      ]),
      rule,
    });
    const { rounds, stoppedBy } = await fake.run();
    expect(stoppedBy).toBe("target");
    expect(rounds).toBeGreaterThan(8);
    const widest = (n: number) => Math.max(...fake.ctx.analyze(n).map(halfWidth));
    expect(widest(rounds)).toBeLessThanOrEqual(rule.targetHalfWidth!);
    expect(widest(rounds - 2)).toBeGreaterThan(rule.targetHalfWidth!);
  });

  test("with --rounds N and --target, N is the minimum: rows within the target at once still get N rounds", async () => {
    const fake = fakeRounds({ files: one([{ label: "x", noise: 0.0005 }]), rule: samplingRule({ rounds: 10, targetHalfWidth: 0.5 }) });
    expect(await fake.run()).toMatchObject({ rounds: 10, stoppedBy: "target" });
    expect(roundsOf(fake.store.records).get("x")).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test("rounds come in whole cycles of AB and BA, each cycle in the order the plan's seed draws for it", async () => {
    const rule = samplingRule({});
    const sidesOf = async (seed: number) => {
      const fake = fakeRounds({ files: one([{ label: "wide", noise: 0.02 }]), rule, seed });
      const { rounds } = await fake.run();
      expect(rounds).toBeGreaterThan(6);
      expect(rounds % 2).toBe(0);
      expect(fake.store.records.map((r) => r.round)).toEqual(Array.from({ length: rounds }, (_, i) => i));
      const sides = fake.store.records.map((r) => r.sides.join(""));
      for (let r = 0; r < rounds; r += 2) expect([sides[r], sides[r + 1]].sort()).toEqual(["basehead", "headbase"]);
      fake.store.records.forEach((record) => {
        expect(record.sides).toEqual(orderAt(SIDES, seed, record.round) as typeof record.sides);
      });
      return sides;
    };
    const [first, second] = [await sidesOf(1), await sidesOf(2)];
    expect(first.slice(0, 12)).not.toEqual(second.slice(0, 12));
  });
});

describe("rows stop on their own width", () => {
  test("after the minimum a row within the target is no longer measured while a wide one goes on", async () => {
    const files: FakeFile[] = [
      {
        file: "a.bench.ts",
        rows: [
          { label: "narrow", noise: 0.0005 },
          { label: "wide", noise: 0.02 },
        ],
      },
      { file: "b.bench.ts", rows: [{ label: "done", noise: 0.0005 }] },
    ];
    const fake = fakeRounds({ files, rule: samplingRule({}) });
    const { rounds, stoppedBy } = await fake.run();
    expect(stoppedBy).toBe("target");
    const measured = roundsOf(fake.store.records);
    expect(measured.get("narrow")).toEqual([0, 1, 2, 3, 4, 5]);
    expect(measured.get("done")).toEqual([0, 1, 2, 3, 4, 5]);
    expect(measured.get("wide")).toEqual(Array.from({ length: rounds }, (_, i) => i));
    // Later processes are told the labels still open; a file with none open runs no process.
    const later = fake.calls.slice(-(rounds - 6));
    expect(later.every((c: FakeCall) => c.files[0] === "a.bench.ts" && c.rows[0]!.labels?.join() === "wide")).toBe(true);
    // The first cycle measures everything (the rows are not known yet), the next ones the rows by name.
    expect(fake.calls.slice(0, 4).map((c) => c.rows[0]!.labels?.join())).toEqual([undefined, undefined, undefined, undefined]);
    const rows = fake.ctx.analyze(rounds);
    expect(rows.find((r) => r.label === "narrow")!.stats!.n).toBe(6);
    expect(rows.find((r) => r.label === "wide")!.stats!.n).toBe(rounds);
  });
});

describe("--jobs", () => {
  for (const jobs of [1, 2, 3]) {
    test(`--jobs ${jobs}: never more than ${jobs} bench process(es) at once, and ${jobs} when a cycle has the work`, async () => {
      const fake = fakeRounds({ files: three(), rule: samplingRule({ rounds: 6 }), jobs });
      expect(await fake.run()).toMatchObject({ rounds: 6, stoppedBy: "rounds" });
      expect(fake.calls.length).toBe(18);
      expect(fake.maxRunning()).toBe(jobs);
      expect(Math.max(...fake.calls.map((c) => c.running))).toBe(jobs);
    });
  }

  test("two processes at once overlap on the clock and take about half the wall time of one at a time", async () => {
    const serial = fakeRounds({ files: three(), rule: samplingRule({ rounds: 6 }), jobs: 1 });
    const parallel = fakeRounds({ files: three(), rule: samplingRule({ rounds: 6 }), jobs: 2 });
    const [s, p] = [await serial.run(), await parallel.run()];
    for (let i = 1; i < serial.calls.length; i++) expect(serial.calls[i]!.startMs).toBe(serial.calls[i - 1]!.endMs);
    expect(parallel.calls.some((c, i) => i > 0 && c.startMs < parallel.calls[i - 1]!.endMs)).toBe(true);
    expect(p.measuredS / s.measuredS).toBeCloseTo(0.5, 1);
  });
});

describe("the wall budget (--max-time)", () => {
  // A load of 500 ms makes a process cost at least 0.56 s however short its rows sample: a cycle
  // is then 1.1 s, 12% of a 9.5 s budget, and the cycle due at 9 s starts before the budget is
  // spent but would end 6.6% past it.
  for (const { loadMs, maxTimeS } of [
    { loadMs: 50, maxTimeS: 10 },
    { loadMs: 500, maxTimeS: 9.5 },
  ]) {
    test(`no cycle starts that would end more than 5% past --max-time; the run stops on time (load ${loadMs} ms, ${maxTimeS} s)`, async () => {
      const fake = fakeRounds({ files: one([{ label: "wide", noise: 0.1 }], loadMs), rule: samplingRule({ maxTimeS }) });
      const { rounds, stoppedBy, measuredS } = await fake.run();
      expect(stoppedBy).toBe("time");
      expect(rounds).toBeGreaterThan(6);
      expect(rounds % 2).toBe(0);
      expect(measuredS).toBeLessThanOrEqual(1.05 * maxTimeS);
      expect(Math.max(...fake.calls.map((c) => c.endMs))).toBeLessThanOrEqual(1.05 * maxTimeS * 1000);
      // It used the budget: what was left when it stopped is less than the cycle it did not start.
      expect(measuredS).toBeGreaterThan(0.9 * maxTimeS);
    });
  }

  test("a minimum that cannot fit is said before round 1 and runs anyway: 6 rounds, then the stop on time", async () => {
    const fake = fakeRounds({ files: one([{ label: "wide", noise: 0.1 }], 500), rule: samplingRule({ maxTimeS: 1 }) });
    const { rounds, stoppedBy, measuredS } = await fake.run();
    expect({ rounds, stoppedBy }).toEqual({ rounds: 6, stoppedBy: "time" });
    expect(measuredS).toBeGreaterThan(1);
    const said = fake.events.map((e) => e.type);
    expect(said.indexOf("over-budget")).toBeGreaterThanOrEqual(0);
    expect(said.indexOf("over-budget")).toBeLessThan(said.indexOf("round"));
    // Each row samples for less first, down to 25 ms a side.
    expect(fake.events.find((e) => e.type === "budget")).toMatchObject({ sideMs: 25, fromMs: 200 });
    expect(fake.store.plan.budget.sideNs).toBe(25e6);
  });
});

describe("files that share a process", () => {
  test("a round's duet files run in one process, in an order drawn from the plan's seed per round", async () => {
    const seed = 3;
    const fake = fakeRounds({ files: three(), rule: samplingRule({ rounds: 6 }), filesPerProcess: 16, seed });
    await fake.run();
    expect(fake.calls.length).toBe(6);
    fake.calls.forEach((call, round) => {
      expect(call.files).toEqual(shareFiles(NAMES, 16, seed, round)[0]!);
    });
    expect(new Set(fake.calls.map((c) => c.files.join())).size).toBeGreaterThan(1);
    expect(fake.store.records.length).toBe(18);
  });

  test("the file a crash cut short fails alone; the files the process had not reached run in the same round, alone", async () => {
    // The file the crash cuts short is the middle one of round 0's process, so one file is not reached.
    const crashAt = shareFiles(NAMES, 16, 1, 0)[0]![1]!;
    const fake = fakeRounds({ files: three(), rule: samplingRule({ rounds: 6 }), filesPerProcess: 16, seed: 1, crashAt });
    await fake.run();
    const [shared, alone] = [fake.calls[0]!, fake.calls[1]!];
    expect(shared.files.length).toBe(3);
    expect(alone.files).toEqual([shared.files[2]!]);
    const round0 = fake.store.records.filter((r) => r.round === 0);
    expect(round0.map((r) => r.file).sort()).toEqual(NAMES);
    expect(round0.find((r) => r.file === crashAt)!.error).toContain("SIGSEGV");
    expect(round0.filter((r) => r.file !== crashAt).every((r) => r.error === undefined && r.rows!.length === 2)).toBe(true);
    // A failed row is not measured again: the crashed file ends with its first cycle, the others get their 6 rounds.
    expect(fake.store.records.filter((r) => r.file === crashAt).map((r) => r.round)).toEqual([0, 1]);
    for (const file of NAMES.filter((f) => f !== crashAt))
      expect(fake.store.records.filter((r) => r.file === file).map((r) => r.round)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe("--resume", () => {
  const files = three().slice(0, 2);
  for (const kept of [5, 8]) {
    test(`with ${kept} processes in the run folder, only the others run, each round with the sides an uninterrupted run gives it`, async () => {
      const whole = fakeRounds({ files, rule: samplingRule({ rounds: 10 }), seed: 9 });
      await whole.run();
      expect(whole.store.records.length).toBe(20);
      const resumed = fakeRounds({ files, rule: samplingRule({ rounds: 10 }), seed: 9, records: whole.store.records.slice(0, kept) });
      expect(await resumed.run()).toMatchObject({ rounds: 10, stoppedBy: "rounds" });
      const rest = whole.store.records.slice(kept).map(shape);
      expect(resumed.calls.map((c) => ({ file: c.files[0], sides: c.order }))).toEqual(rest.map((r) => ({ file: r.file, sides: r.sides })));
      expect(resumed.store.records.slice(kept).map(shape)).toEqual(rest);
      expect(resumed.store.records.map(shape)).toEqual(whole.store.records.map(shape));
    });
  }

  test("a resumed run's wall budget counts the time the run folder's rounds took", async () => {
    const maxTimeS = 10;
    const rule = samplingRule({ maxTimeS });
    const first = fakeRounds({ files: one([{ label: "wide", noise: 0.1 }]), rule });
    await first.run();
    const kept = first.store.records.filter((r) => r.phaseMs! <= 6000);
    const resumed = fakeRounds({ files: one([{ label: "wide", noise: 0.1 }]), rule, records: kept });
    const beforeS = Math.max(...kept.map((r) => r.phaseMs!)) / 1000;
    expect(beforeS).toBeGreaterThan(5);
    const { stoppedBy, measuredS } = await resumed.run();
    expect(stoppedBy).toBe("time");
    expect(measuredS).toBeLessThanOrEqual(1.05 * maxTimeS);
    // This invocation took only what the first one left.
    expect(Math.max(...resumed.calls.map((c) => c.endMs)) / 1000).toBeLessThanOrEqual(1.05 * maxTimeS - beforeS + 0.001);
  });
});
