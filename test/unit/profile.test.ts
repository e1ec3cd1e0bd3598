/**
 * The pure parts of `compare --profile` (docs/profile.md) on small hand-made profiles and
 * source maps: VLQ and source-map decoding, the cpuprofile check, attribution of samples to a
 * side, matching functions across sides, the per-row table, and merging profiles.
 */
import { describe, expect, test } from "bun:test";
import { refineStatus, rowProfile } from "../../src/profile/aggregate.ts";
import { attributeProcess, originalName, resolveFunction, type SideBundle } from "../../src/profile/attribute.ts";
import { cpuProfileProblem, mergeProfiles, parseCpuProfile, type CpuProfile, type ProfileNode } from "../../src/profile/cpuprofile.ts";
import { decodeSourceMap, decodeVlq, originalPosition } from "../../src/profile/sourcemap.ts";
import { readArgs as parseArgs } from "../../src/args/read.ts";
import { compareCommand } from "../../src/commands/compare.ts";
import { rowsToProfile } from "../../src/compare/profile-run.ts";
import { mixedResult } from "../support/report-fixtures.ts";

describe("source maps", () => {
  test("VLQ: one digit, signs, continuation digits", () => {
    expect(decodeVlq("A")).toEqual([0]);
    expect(decodeVlq("C")).toEqual([1]);
    expect(decodeVlq("D")).toEqual([-1]);
    expect(decodeVlq("gB")).toEqual([16]);
    expect(decodeVlq("AAgBC")).toEqual([0, 0, 16, 1]);
    expect(decodeVlq("2HwrB")).toEqual([123, 696]);
    expect(decodeVlq("w3C")).toEqual([1400]);
    expect(() => decodeVlq("g")).toThrow(/cut off/);
    expect(() => decodeVlq("A*")).toThrow(/base64/);
  });

  test("segments are relative across lines except the generated column; a position maps to the segment at or before it", () => {
    // Line 0: col 0 → a.ts 0:0, col 9 → a.ts 0:16; line 1: col 2 → b.ts 4:2; line 2: nothing.
    const map = decodeSourceMap({ version: 3, sources: ["a.ts", "b.ts"], mappings: "AAAA,SAAgB;ECId;", sourcesContent: ["x", "y"] });
    expect(map.lines[0]).toEqual([
      { column: 0, source: 0, line: 0, originalColumn: 0 },
      { column: 9, source: 0, line: 0, originalColumn: 16 },
    ]);
    expect(map.lines[1]).toEqual([{ column: 2, source: 1, line: 4, originalColumn: 2 }]);
    expect(originalPosition(map, 0, 12)).toEqual({ source: "a.ts", line: 0, column: 16 });
    expect(originalPosition(map, 0, 3)).toEqual({ source: "a.ts", line: 0, column: 0 });
    expect(originalPosition(map, 1, 0)).toEqual({ source: "b.ts", line: 4, column: 2 });
    expect(originalPosition(map, 2, 0)).toBeUndefined();
    expect(originalPosition(map, 9, 0)).toBeUndefined();
  });

  test("not a version 3 map: an error", () => {
    expect(() => decodeSourceMap({ version: 2, sources: [], mappings: "" })).toThrow(/version 3/);
  });
});

const frame = (functionName: string, url: string, lineNumber = 0, columnNumber = 0) => ({
  functionName,
  scriptId: 1,
  url,
  lineNumber,
  columnNumber,
});

function profileOf(nodes: ProfileNode[], samples: number[]): CpuProfile {
  return { nodes, startTime: 1000, endTime: 1000 + 100 * samples.length, samples, timeDeltas: samples.map(() => 100) };
}

describe("cpuprofile", () => {
  const good = profileOf(
    [
      { id: 1, callFrame: frame("(root)", ""), children: [2] },
      { id: 2, callFrame: frame("f", "file:///a.js") },
    ],
    [2, 2],
  );

  test("Chrome's shape parses; what is out of shape says what", () => {
    expect(parseCpuProfile(JSON.stringify(good)).samples).toEqual([2, 2]);
    expect(cpuProfileProblem({ ...good, timeDeltas: [1] })).toBe("2 samples but 1 timeDeltas");
    expect(cpuProfileProblem({ ...good, samples: [2, 9] })).toContain("node 9");
    expect(cpuProfileProblem({ ...good, nodes: [{ id: 1 }] })).toContain("callFrame");
    expect(() => parseCpuProfile("{", "x.cpuprofile")).toThrow(/^x\.cpuprofile: not JSON/);
  });
});

const BASE_URL = "file:///w/base/node_modules/.cache/xbench/run-base-0/side.js";
const HEAD_URL = "file:///w/head/node_modules/.cache/xbench/run-head-0/side.js";
const LIB = "export function parse(text: string) {\n  return text;\n}\nexport function render2() {}\nfunction render(x) {}\n";

/**
 * A side's bundle whose map sends generated line 0 to src/lib.ts line 0, line 1 to line 3,
 * line 2 to line 4, and line 3 to xbench's shim (a virtual module, not the user's).
 */
function sideBundle(side: "base" | "head", url: string): SideBundle {
  const map = decodeSourceMap({
    version: 3,
    sources: ["../../../../src/lib.ts", "xbench:shim"],
    sourcesContent: [LIB, "shim"],
    mappings: "AAAA;AAGA;AACA;ACHA",
  });
  return { side, url, map, mapDir: `/w/${side}/node_modules/.cache/xbench/run-${side}-0`, root: `/w/${side}` };
}
const BUNDLES = [sideBundle("base", BASE_URL), sideBundle("head", HEAD_URL)];

describe("attribution", () => {
  test("a frame of a side's bundle is the user's function at its original file and line; a stand-in's frame is none", () => {
    expect(resolveFunction(frame("parse", BASE_URL, 0, 16), BUNDLES[0]!)).toEqual({ name: "parse", file: "src/lib.ts", line: 1 });
    expect(resolveFunction(frame("render3", BASE_URL, 2, 9), BUNDLES[0]!)).toEqual({ name: "render", file: "src/lib.ts", line: 5 });
    expect(resolveFunction(frame("sample", BASE_URL, 3, 0), BUNDLES[0]!)).toBeUndefined();
  });

  test("a frame that names a project file of a side's checkout (bun applies the map itself) is that side's, at the profile's position", () => {
    expect(resolveFunction(frame("validate", "file:///w/head/src/lib.ts", 6, 17), BUNDLES[1]!)).toEqual({
      name: "validate",
      file: "src/lib.ts",
      line: 7,
    });
    expect(resolveFunction(frame("validate", "file:///w/head/src/lib.ts", 6, 17), BUNDLES[0]!)).toBeUndefined();
    expect(resolveFunction(frame("dep", "file:///w/head/node_modules/dep/index.js"), BUNDLES[1]!)).toBeUndefined();
    const nodes: ProfileNode[] = [
      { id: 1, callFrame: frame("(root)", ""), children: [2, 3] },
      { id: 2, callFrame: frame("parse", "file:///w/base/src/lib.ts") },
      { id: 3, callFrame: frame("parse", "file:///w/head/src/lib.ts") },
    ];
    expect(attributeProcess(profileOf(nodes, [2, 3, 3]), BUNDLES).sampleSides).toEqual(["base", "head", "head"]);
  });

  test("a name the bundler suffixed loses the suffix only when the original line has the bare name", () => {
    expect(originalName("parse2", "export function parse(text) {")).toBe("parse");
    expect(originalName("render2", "export function render2() {}")).toBe("render2");
    expect(originalName("v8", "const v8 = () => 1;")).toBe("v8");
    expect(originalName("", "() => 1")).toBe("(anonymous)");
  });

  test("each sample goes to the side whose bundle holds the nearest frame of its stack; the driver's own samples to neither", () => {
    // root → driver loop → base parse → a builtin; driver loop → head parse; driver loop → head shim code.
    const nodes: ProfileNode[] = [
      { id: 1, callFrame: frame("(root)", ""), children: [2, 7] },
      { id: 2, callFrame: frame("loop", "file:///w/head/node_modules/.cache/xbench/run-driver/driver.js"), children: [3, 5, 6] },
      { id: 3, callFrame: frame("parse", BASE_URL, 0, 16), children: [4] },
      { id: 4, callFrame: frame("charCodeAt", "") },
      { id: 5, callFrame: frame("parse", HEAD_URL, 0, 16) },
      { id: 6, callFrame: frame("sample", HEAD_URL, 3, 0) },
      { id: 7, callFrame: frame("(garbage collector)", "") },
    ];
    const attribution = attributeProcess(profileOf(nodes, [3, 3, 4, 5, 6, 2, 7]), BUNDLES);
    expect(attribution.sampleSides).toEqual(["base", "base", "base", "head", "head", undefined, undefined]);
    expect(attribution.sides.base.samples).toBe(3);
    expect(attribution.sides.head.samples).toBe(2);
    expect([...attribution.sides.base.functions.values()]).toEqual([{ name: "parse", file: "src/lib.ts", line: 1, self: 2 }]);
    expect([...attribution.sides.head.functions.values()]).toEqual([{ name: "parse", file: "src/lib.ts", line: 1, self: 1 }]);
  });
});

/** A process whose sides' samples are split among functions as given (counts per name, all in src/lib.ts). */
function process(base: Record<string, number>, head: Record<string, number>, extra = { base: 0, head: 0 }) {
  const side = (counts: Record<string, number>, other: number) => ({
    samples: Object.values(counts).reduce((a, b) => a + b, 0) + other,
    functions: new Map(
      Object.entries(counts).map(([name, self]) => [`${name}\u0000src/lib.ts`, { name, file: "src/lib.ts", line: 1, self }]),
    ),
  });
  return { sides: { base: side(base, extra.base), head: side(head, extra.head) }, sampleSides: [] };
}

describe("the per-function table", () => {
  test("functions match by name and file; one side's only are new or removed; sorted by the size of the change", () => {
    // parse moves a little either way from process to process, with render or paint taking up the rest.
    const wobble = [3, -2, 1, -3, 2, -1];
    const processes = wobble.map((w) =>
      process({ parse: 300 + w, validate: 300, render: 300 - w }, { parse: 300 - w, validate: 400, paint: 300 + w }),
    );
    const table = rowProfile(processes, { base: 900, head: 1000 });
    expect(table.processes).toBe(6);
    const byName = Object.fromEntries(table.functions.map((f) => [f.name, f]));
    expect(
      table.functions
        .map((f) => f.name)
        .slice(0, 2)
        .sort(),
    ).toEqual(["paint", "render"]);
    expect(byName.render!.status).toBe("removed");
    expect(byName.paint!.status).toBe("new");
    expect(byName.render!.change).toBeLessThan(0);
    expect(byName.paint!.change).toBeGreaterThan(0);
    expect(byName.paint!.base).toBe(0);
    // validate: 300/900 of 900 ns on base, 400/1000 of 1000 ns on head: +100 ns in every process.
    expect(byName.validate!.status).toBe("both");
    expect(byName.validate!.base).toBeCloseTo(300);
    expect(byName.validate!.head).toBeCloseTo(400);
    expect(byName.validate!.change).toBeCloseTo(100);
    expect(byName.validate!.ci[0]).toBeCloseTo(100);
    expect(byName.validate!.share).toBeCloseTo(0.4);
    expect(byName.parse!.ci[0]).toBeLessThan(0);
    expect(byName.parse!.ci[1]).toBeGreaterThan(0);
  });

  test("other: each side's time outside the listed functions", () => {
    const table = rowProfile(
      Array.from({ length: 6 }, () => process({ f: 50 }, { f: 50 }, { base: 50, head: 150 })),
      { base: 100, head: 200 },
    );
    expect(table.other.base).toBeCloseTo(50);
    expect(table.other.head).toBeCloseTo(150);
    expect(table.functions[0]!.change).toBeCloseTo(0);
  });

  test("below 6 processes the 95% interval is unbounded", () => {
    const table = rowProfile([process({ f: 1 }, { f: 2 })], { base: 10, head: 10 });
    expect(table.functions[0]!.ci).toEqual([-Infinity, Infinity]);
  });
});

describe("merged profiles", () => {
  test("parts one after another: ids apart, the other side's samples on (other), time kept", () => {
    const nodes: ProfileNode[] = [
      { id: 1, callFrame: frame("(root)", ""), children: [2, 3] },
      { id: 2, callFrame: frame("mine", BASE_URL) },
      { id: 3, callFrame: frame("theirs", HEAD_URL) },
    ];
    const one = profileOf(nodes, [2, 3, 2]);
    const merged = mergeProfiles([
      { profile: one, keep: [true, false, true] },
      { profile: one, keep: [false, false, true] },
    ]);
    expect(cpuProfileProblem(merged)).toBeUndefined();
    expect(merged.samples.length).toBe(6);
    expect(merged.timeDeltas.length).toBe(6);
    const ids = merged.nodes.map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
    const name = (id: number) => merged.nodes.find((n) => n.id === id)!.callFrame.functionName;
    expect(merged.samples.map(name)).toEqual(["mine", "(other)", "mine", "(other)", "(other)", "mine"]);
    // The other side's function is not in the tree; the time line is the two processes' in a row.
    expect(merged.nodes.some((n) => n.callFrame.functionName === "theirs")).toBe(false);
    expect(merged.timeDeltas).toEqual([100, 100, 100, 100, 100, 100]);
    expect(merged.endTime).toBe(600);
  });
});

describe("which rows, and the flag", () => {
  test("--profile takes the timed duet rows with a verdict of slower or faster; all takes every timed duet row", () => {
    const rows = mixedResult().rows.map((row) => ({ ...row, mode: "duet" as const }));
    const changed = rowsToProfile(rows, "verdict");
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((row) => row.stats!.verdict === "slower" || row.stats!.verdict === "faster")).toBe(true);
    const all = rowsToProfile(rows, "all");
    expect(all.length).toBeGreaterThan(changed.length);
    expect(all.every((row) => row.unit === "ns" && row.status === "ok")).toBe(true);
    expect(
      rowsToProfile(
        rows.map((row) => ({ ...row, mode: "isolated" as const })),
        "all",
      ),
    ).toEqual([]);
  });

  test("--profile, --profile all, --profile=all; a filter after --profile stays the filter; anything else is a usage error", () => {
    const parse = (args: string[]) => {
      const parsed = parseArgs(compareCommand, args);
      return { profile: parsed.flags.profile, positionals: parsed.positionals };
    };
    expect(parse(["--base", "HEAD"])).toEqual({ profile: undefined, positionals: [] });
    expect(parse(["--profile"])).toEqual({ profile: "verdict", positionals: [] });
    expect(parse(["--profile", "all"])).toEqual({ profile: "all", positionals: [] });
    expect(parse(["--profile=all"])).toEqual({ profile: "all", positionals: [] });
    expect(parse(["--profile", "parse"])).toEqual({ profile: "verdict", positionals: ["parse"] });
    expect(parse(["parse", "--profile", "all"])).toEqual({ profile: "all", positionals: ["parse"] });
    expect(() => parse(["--profile=some"])).toThrow(/--profile must be one of verdict, all/);
  });
});

describe("a function that ran on one side only", () => {
  const fn = (status: "new" | "removed", name = "render") => ({
    name,
    file: "src/pipeline.ts",
    line: 16,
    status,
    base: 1,
    head: 0,
    change: -1,
    ci: [-2, 0] as [number, number],
    share: 0.2,
  });
  test("is removed when the other side's file no longer has it, not called when it does", () => {
    const head = "export function paint(x) { return x; }\n";
    const withRender = `${head}export function render(x) { return paint(x); }\n`;
    expect(refineStatus(fn("removed"), () => head).status).toBe("removed");
    expect(refineStatus(fn("removed"), () => withRender).status).toBe("not called on head");
    expect(refineStatus(fn("removed"), () => undefined).status).toBe("removed"); // the file is gone
    expect(refineStatus(fn("new"), (side) => (side === "base" ? withRender : head)).status).toBe("not called on base");
    // A name inside a longer one is not the function: renderAll is not render.
    expect(refineStatus(fn("removed"), () => "export const renderAll = 1;\n").status).toBe("removed");
    expect(refineStatus(fn("removed", "$get"), () => "const $get = () => 1;\n").status).toBe("not called on head");
    // A rename leaves the old name as a property holding the new function, and calls through it: not a definition.
    const renamed = "function paint(v) { return v; }\nexport const stages = { render: paint };\nstages.render(values);\n";
    expect(refineStatus(fn("removed"), () => renamed).status).toBe("removed");
    for (const defined of ["const render = function (x) {}", "render: (x) => x", "class render {}", "  render(x) {\n", "render = x => x"])
      expect(refineStatus(fn("removed"), () => defined).status).toBe("not called on head");
  });
});
