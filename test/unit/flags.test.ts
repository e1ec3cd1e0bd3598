/** Flag values as users type them: units, percent signs, paths made absolute once. */
import { describe, expect, test } from "bun:test";
import { readArgs as parseArgs } from "../../src/args/read.ts";
import { parseDuration, parsePercent } from "../../src/args/values.ts";
import { bisectCommand } from "../../src/commands/bisect.ts";
import { compareCommand } from "../../src/commands/compare.ts";
import { traceCommand } from "../../src/commands/trace.ts";
import { sameCode } from "../../src/compare/plan.ts";
import { didYouMean } from "../../src/util/suggest.ts";

describe("values with units", () => {
  test("durations in the flag's own unit, with or without one typed", () => {
    expect(parseDuration("max-time", "90", "s")).toBe(90);
    expect(parseDuration("max-time", "90s", "s")).toBe(90);
    expect(parseDuration("max-time", "2m", "s")).toBe(120);
    expect(parseDuration("max-time", "1.5h", "s")).toBe(5400);
    expect(parseDuration("max-time", "500ms", "s")).toBe(0.5);
    expect(parseDuration("time", "200", "ms")).toBe(200);
    expect(parseDuration("time", "0.2s", "ms")).toBe(200);
    // Exponents as numbers are typed elsewhere: `--timeout 1e9` is a billion seconds.
    expect(parseDuration("timeout", "1e9", "s")).toBe(1e9);
    expect(parseDuration("time", "1.5e2ms", "ms")).toBe(150);
    for (const bad of ["0", "2x", "-1m", "m", "", "e3", "1e"]) {
      expect(() => parseDuration("max-time", bad, "s")).toThrow(
        `--max-time must be a positive number of seconds, or with a unit: 500ms, 90s, 2m, 1h (got ${bad})`,
      );
    }
  });

  test("percentages with or without the sign", () => {
    expect(parsePercent("target", "0.5%")).toBe(0.5);
    expect(parsePercent("target", "0.5")).toBe(0.5);
    expect(() => parsePercent("target", "0%")).toThrow("--target must be a positive number (got 0)");
  });
});

describe("paths on the command line", () => {
  test("--json, --markdown, --resume, bisect's outputs and trace -o are absolute once parsed; - stays stdout", () => {
    const cwd = "/somewhere/else";
    const argv = ["--json", "out/r.json", "--markdown=r.md", "--resume", "../runs/x", "--base", "main", "--bench", "b.ts"];
    const compare = parseArgs(compareCommand, argv, cwd).flags;
    expect(compare).toMatchObject({
      json: "/somewhere/else/out/r.json",
      markdown: "/somewhere/else/r.md",
      resume: "/somewhere/runs/x",
      base: "main",
      bench: ["b.ts"],
    });
    const bisect = parseArgs(bisectCommand, ["--json", "-", "--markdown", "/abs/b.md"], cwd).flags;
    expect(bisect).toMatchObject({ json: "-", markdown: "/abs/b.md" });
    expect(parseArgs(traceCommand, ["-o", "t.json", "--", "true"], cwd).flags.output).toBe("/somewhere/else/t.json");
    expect(parseArgs(traceCommand, ["--output=t.json", "--", "true"], cwd).flags.output).toBe("/somewhere/else/t.json");
  });
});

describe("did you mean, for refs and paths", () => {
  test("the closest name, or nothing", () => {
    expect(didYouMean("mian", ["main", "feature/x", "v1.0.0"])).toBe(" (did you mean main?)");
    expect(didYouMean("test/bench/idx.ts", ["test/bench/index.ts", "src/a.ts"], 3)).toBe(" (did you mean test/bench/index.ts?)");
    expect(didYouMean("zzz", ["main"])).toBe("");
  });
});

describe("an A/A run with a dirty tree", () => {
  const paths = (changed: string[], untracked: string[] = []) => ({ changed, untracked });
  test("the same commit, dirty only by untracked files and the bench files themselves, is the same code", () => {
    expect(sameCode("a", "a", paths([], ["wrap.bench.ts", "notes.txt"]), ["wrap.bench.ts"])).toBe(true);
    expect(sameCode("a", "a", paths(["x.bench.ts"]), ["x.bench.ts"])).toBe(true);
    expect(sameCode("a", "a", paths(["src/lib.ts"]), ["x.bench.ts"])).toBe(false);
    expect(sameCode("a", "b", paths([]), [])).toBe(false);
  });
});
