/**
 * The stand-ins that register a bench file's benchmarks (docs/bench-apis.md): what each API's
 * declarations become as rows. The registry is the real one; each test reads what it added.
 */
import { describe as group, expect, mock, test } from "bun:test";
import * as registry from "../../src/runner/child/registry.ts";

mock.module("xbench-internal:registry", () => registry);
const vitest = await import("../../src/runner/child/vitest.ts");

/** The row labels a declaration adds, as side.ts names them (groups joined with ›, repeats numbered). */
async function rowsOf(declare: () => void | Promise<void>): Promise<string[]> {
  const before = (await registry.registeredBenchmarks()).length;
  await declare();
  const added = (await registry.registeredBenchmarks()).slice(before);
  const picked = added.some((r) => r.only) ? added.filter((r) => r.only) : added;
  return registry.distinctLabels(picked.map((r) => [...r.groups, r.name].join(" › ")));
}

const noop = () => {};

group("repeated labels", () => {
  test("a repeated label is numbered in file order; a number already taken is passed over", () => {
    expect(registry.distinctLabels(["a", "b", "a", "a"])).toEqual(["a", "b", "a #2", "a #3"]);
    expect(registry.distinctLabels(["a", "a #2", "a"])).toEqual(["a", "a #2", "a #3"]);
    expect(registry.distinctLabels(["x", "y"])).toEqual(["x", "y"]);
  });
});

group("vitest", () => {
  const { bench, describe } = vitest;

  test("describe.each in array and object forms, names formatted as vitest formats them", async () => {
    const rows = await rowsOf(() => {
      describe.each([
        [1, "a"],
        [2, "b"],
      ])("pair %i %s (%#/%$)", (n, s) => {
        bench(`n=${n} s=${s}`, noop);
      });
      describe.each([{ size: 10, kind: "ascii" }])("$kind of $size", ({ size }: { size: number }) => {
        bench(`size ${size}`, noop);
      });
      describe.each(["x", "y"])("word %s", (w: string) => bench(w, noop));
      describe.for([[3, 4]])("for %d+%d", ([a, b]: number[]) => bench(String(a! + b!), noop));
    });
    expect(rows).toEqual([
      "pair 1 a (0/1) › n=1 s=a",
      "pair 2 b (1/2) › n=2 s=b",
      "'ascii' of 10 › size 10",
      "word x › x",
      "word y › y",
      "for 3+4 › 7",
    ]);
  });

  test("describe.each as a tagged template: a table whose header names the fields", async () => {
    const rows = await rowsOf(() => {
      describe.each`
        a    | b      | label
        ${1} | ${"x"} | ${"one"}
        ${2} | ${"y"} | ${"two"}
      `("$label: $a, $b", ({ a }: { a: number }) => bench(`a${a}`, noop));
    });
    expect(rows).toEqual(["'one': 1, 'x' › a1", "'two': 2, 'y' › a2"]);
  });

  test("printf directives and $var as vitest renders them", () => {
    expect(vitest.formatTitle("%s|%d|%i|%f|%j|%o|%%", ["s", "7", 7.9, "1.5", { a: 1 }, [1, "x"]], 0)).toBe(
      "s|7|7|1.5|{\"a\":1}|[ 1, 'x' ]|%",
    );
    expect(vitest.formatTitle("%s and %s", [1], 0)).toBe("1 and %s");
    expect(vitest.formatTitle("$0 then $1", ["a", 2], 0)).toBe("'a' then 2");
    expect(vitest.formatTitle("$a.b", [{ a: { b: 3 } }], 0)).toBe("3");
    expect(vitest.formatTitle("keep $x", [5], 0)).toBe("keep $x");
  });

  test("skip, only, todo, skipIf and runIf on bench and describe, chained in any order", async () => {
    const skippedBefore = registry.skippedBenchmarks().length;
    const rows = await rowsOf(() => {
      bench("kept", noop);
      bench.skip("skipped", noop);
      bench.todo("later");
      bench.skipIf(true)("skipIf true", noop);
      bench.skipIf(false)("skipIf false", noop);
      bench.runIf(false)("runIf false", noop);
      bench.skipIf(false).skip("skipIf then skip", noop);
      bench.runIf(true).todo("runIf then todo", noop);
      describe.skip("off", () => bench("inside off", noop));
      describe.skipIf(true)("off too", () => bench("inside", noop));
      describe.runIf(true).concurrent("on", () => bench("inside on", noop));
      describe.skip.each([1])("off each %s", () => bench("x", noop));
      describe("by option", { skip: true }, () => bench("x", noop));
    });
    expect(rows).toEqual(["kept", "skipIf false", "on › inside on"]);
    // What vitest bench lists as skipped (`↓ name [skipped]`): the benchmarks skipped themselves, not those of a skipped describe.
    expect(
      registry
        .skippedBenchmarks()
        .slice(skippedBefore)
        .map((entry) => [...entry.groups, entry.name].join(" › ")),
    ).toEqual(["skipped", "later", "skipIf true", "runIf false", "skipIf then skip", "runIf then todo"]);
    const only = await rowsOf(() => {
      bench("not picked", noop);
      bench.skipIf(false).only("picked", noop);
      // biome-ignore lint/suspicious/noFocusedTests: vitest's describe.only, as a bench file writes it
      describe.only.each([1])("group %s", () => bench("in only group", noop));
    });
    expect(only).toEqual(["picked", "group 1 › in only group"]);
  });

  test("describe blocks built in a loop, and repeated names, are rows of their own", async () => {
    const rows = await rowsOf(() => {
      for (const size of [10, 100]) {
        describe(`size ${size}`, () => {
          bench("parse", noop);
          bench("parse", noop);
        });
      }
      bench(function namedFn() {}, noop);
    });
    expect(rows).toEqual(["size 10 › parse", "size 10 › parse #2", "size 100 › parse", "size 100 › parse #2", "namedFn"]);
  });

  test("hooks as vitest bench runs them: the file's beforeAll/afterAll and the setup/teardown options; no describe or per-test hooks", async () => {
    const ran: string[] = [];
    const log = (what: string) => () => void ran.push(what);
    const before = (await registry.registeredBenchmarks()).length;
    vitest.beforeAll(log("file beforeAll"));
    vitest.afterAll(log("file afterAll"));
    (vitest.beforeEach as unknown as (fn: () => void) => void)(log("file beforeEach"));
    describe("g", () => {
      vitest.beforeAll(log("g beforeAll"));
      vitest.afterAll(log("g afterAll"));
      bench("x", noop, {
        setup: log("setup"),
        teardown: log("teardown"),
        beforeAll: log("option beforeAll"),
        beforeEach: log("option beforeEach"),
      });
    });
    const [entry] = (await registry.registeredBenchmarks()).slice(before);
    for (const hook of entry!.around.before) await hook();
    expect(entry!.around.eachBefore).toBeUndefined();
    for (const hook of entry!.around.after) await hook();
    // The file's afterAll waits for its last benchmark: earlier tests registered more in this module.
    expect(ran).toEqual(["file beforeAll", "setup", "teardown"]);
  });

  test("test, it, expect and vi in a bench file do nothing, in every form, and never block an await", async () => {
    // Called as a bench file calls them: any chain of properties and calls.
    // biome-ignore lint/suspicious/noExplicitAny: the inert stand-in takes every shape
    const { test: t, it, expect: e, vi } = vitest as unknown as Record<"test" | "it" | "expect" | "vi", any>;
    const rows = await rowsOf(async () => {
      t("a test", () => {
        throw new Error("must not run");
      });
      it.each([1, 2])("case %s", () => {
        throw new Error("must not run");
      });
      t.skipIf(true).concurrent("x", noop);
      e(1).toBe(2);
      await e(Promise.resolve(1)).resolves.toBe(1);
      vi.fn()();
      bench("still here", noop);
    });
    expect(rows).toEqual(["still here"]);
  });
});

group("tinybench", () => {
  test("the current major's and 2.x's API: rows in order, a repeated add replaces, todo registers nothing, run resolves", async () => {
    const { Bench, medianAbsoluteDeviation, nToMs, hrtimeNowTimestampProvider } = await import("../../src/runner/child/tinybench.ts");
    let bench!: InstanceType<typeof Bench>;
    const rows = await rowsOf(async () => {
      bench = new Bench({ name: "qs", time: 100 });
      bench.add("parse", noop).add("stringify", noop).add("parse", noop, { beforeEach: noop });
      bench.todo("someday");
      await bench.warmup();
      await bench.run();
      await bench.runConcurrently();
      bench.runSync();
    });
    expect(rows).toEqual(["qs › stringify", "qs › parse"]);
    expect(bench.tasks.map((t) => t.name)).toEqual(["stringify", "parse"]);
    expect(bench.todos.map((t) => t.name)).toEqual(["someday"]);
    expect(bench.table()).toHaveLength(2);
    expect(Number.isNaN(bench.results[0]!.mean)).toBe(true);
    // Options a script may print, with the current major's defaults where none was given.
    const options = bench as unknown as Record<string, unknown>;
    expect([options.time, options.iterations, options.throws, bench.getTask("parse")!.detectedResolution]).toEqual([
      100,
      64,
      false,
      undefined,
    ]);
    expect([medianAbsoluteDeviation([1, 2, 3, 4, 100]), nToMs(2e6), typeof hrtimeNowTimestampProvider.fn()]).toEqual([1, 2, "number"]);
  });
});

/** What the test calls on a Benchmark.js suite. */
interface Suite {
  add(name: string, fn: unknown): Suite;
  on(type: string, listener: () => unknown): Suite;
  run(options?: object): Suite;
  length: number;
  slice(start: number, end: number): unknown[];
  map(key: string): unknown[];
  pluck(key: string): unknown[];
  reverse(): Suite;
}

group("Benchmark.js", () => {
  test("two benchmarks of one name are two rows; deferred, Suite as an array, and 1.x's helpers", async () => {
    // CommonJS, like the package it stands in for.
    const Benchmark = require("../../src/runner/child/benchmarkjs.ts") as {
      Suite: new (name: string) => Suite;
      each: (c: unknown, f: (v: unknown) => unknown) => unknown;
      interpolate: (t: string, o: object) => string;
      forOwn: (o: object, f: (v: unknown, k: string) => unknown) => unknown;
    };
    let suite!: InstanceType<typeof Benchmark.Suite>;
    let completed = 0;
    const rows = await rowsOf(() => {
      suite = new Benchmark.Suite("escape");
      suite
        .add("plain", () => "a".replace("a", "b"))
        .add("plain", { minSamples: 100, fn: () => "a".replace("a", "b") })
        .add("deferred", { defer: true, fn: (d: { resolve(): void }) => setTimeout(() => d.resolve(), 0) })
        .on("complete", () => completed++)
        .run({ async: true });
    });
    expect(rows).toEqual(["escape › plain", "escape › plain #2", "escape › deferred"]);
    expect(completed).toBe(1);
    expect(suite.length).toBe(3);
    expect(suite.slice(0, 1)).toHaveLength(1);
    expect((suite.map("name") as string[]).join()).toBe("plain,plain,deferred");
    suite.reverse();
    expect(suite.pluck("name")).toEqual(["deferred", "plain", "plain"]);
    const seen: unknown[] = [];
    Benchmark.each([1, 2], (v) => seen.push(v));
    Benchmark.forOwn({ a: 3 }, (v) => seen.push(v));
    expect(seen).toEqual([1, 2, 3]);
    expect(Benchmark.interpolate("#{a}-#{b}", { a: 1 })).toBe("1-#{b}");
    const deferred = (await registry.registeredBenchmarks()).find((r) => r.name === "deferred")!;
    await deferred.fn();
  });
});
