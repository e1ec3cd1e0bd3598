/**
 * A small function library with a history of 30 commits for `xbench history`'s method check
 * (docs/history.md): three modules (checksums, statistics, text), a bench file each, and commits
 * that edit the docs, the tests, or a module without changing what its benchmark costs. Three
 * commits change what a benchmark costs by a known ratio, each in its own row: the work of
 * each function is a loop whose number of passes the module sets, so a step from 100 to 110
 * passes is +10% of the benchmark's time, whatever the machine.
 */
import type { TestRepo } from "./repo.ts";

/** A module's source: `passes` passes of its kernel over a fixed input; `extra` is code that costs the benchmark nothing. */
const MODULES = {
  checksum: (passes: number, extra: string) => `/** Checksums of text. */
export const PASSES = ${passes};

/** A 31-multiplier rolling hash of the text, PASSES times (each pass seeded with the last). */
export function hash31(text: string): number {
  let hash = 7;
  for (let pass = 0; pass < PASSES; pass++) {
    for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  }
  return hash;
}
${extra}`,
  stats: (passes: number, extra: string) => `/** Summary statistics. */
export const PASSES = ${passes};

/** The variance of values, recomputed PASSES times (a stand-in for resampling). */
export function variance(values: readonly number[]): number {
  let total = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    let mean = 0;
    for (let i = 0; i < values.length; i++) mean += values[i]! + pass * 1e-9;
    mean /= values.length;
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += (values[i]! - mean) ** 2;
    total += sum / (values.length - 1);
  }
  return total / PASSES;
}
${extra}`,
  text: (passes: number, extra: string) => `/** Text helpers. */
export const PASSES = ${passes};

/** The number of words, counted PASSES times over (a stand-in for a tokenizer's passes). */
export function countWords(text: string): number {
  let words = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    let inWord = false;
    for (let i = 0; i < text.length; i++) {
      const space = text.charCodeAt(i) <= 32;
      if (!space && !inWord) words++;
      inWord = !space;
    }
  }
  return words / PASSES;
}
${extra}`,
};

export type ModuleName = keyof typeof MODULES;
export const MODULE_NAMES = Object.keys(MODULES) as ModuleName[];

const BENCHES: Record<ModuleName, string> = {
  checksum: `import { bench, run } from "mitata";
import { hash31 } from "../src/checksum.ts";

const TEXT = "the quick brown fox jumps over the lazy dog ".repeat(20);
bench("hash31", () => hash31(TEXT));
await run();
`,
  stats: `import { bench, run } from "mitata";
import { variance } from "../src/stats.ts";

const VALUES = Array.from({ length: 800 }, (_, i) => Math.sin(i) * 100);
bench("variance", () => variance(VALUES));
await run();
`,
  text: `import { bench, run } from "mitata";
import { countWords } from "../src/text.ts";

const TEXT = "lorem ipsum dolor sit amet, consectetur adipiscing elit ".repeat(16);
bench("countWords", () => countWords(TEXT));
await run();
`,
};

/** A commit of the history: what it changes and its subject. */
export interface FixtureCommit {
  subject: string;
  /** Passes of each module after this commit. */
  passes: Record<ModuleName, number>;
  /** Code that costs nothing, per module (a new helper no benchmark calls). */
  extra: Record<ModuleName, string>;
  /** Other files it writes (docs, tests). */
  files: Record<string, string>;
}

/** A known step: the commit (1-based index in the history, 0 being the first commit) that changes `module`'s cost by `ratio`. */
export interface KnownStep {
  index: number;
  module: ModuleName;
  ratio: number;
}

const BASE_PASSES = 100;

/**
 * The 30 commits (index 0 is the first): `steps` change a module's passes; every fifth commit
 * adds code no benchmark runs to a module (measured, a step of no change), the others edit the
 * changelog or a test (unchanged code, not measured).
 */
export function fixtureHistory(steps: readonly KnownStep[], count = 30): FixtureCommit[] {
  const passes: Record<ModuleName, number> = { checksum: BASE_PASSES, stats: BASE_PASSES, text: BASE_PASSES };
  const extra: Record<ModuleName, string> = { checksum: "", stats: "", text: "" };
  const commits: FixtureCommit[] = [];
  for (let i = 0; i < count; i++) {
    const files: Record<string, string> = {};
    let subject: string;
    const step = steps.find((s) => s.index === i);
    if (i === 0) {
      subject = "checksums, statistics and text helpers, with benchmarks";
      files["README.md"] = "# minilib\n\nChecksums, statistics and text helpers.\n";
      files["package.json"] = `${JSON.stringify({ name: "minilib", type: "module", private: true }, null, 2)}\n`;
      for (const name of MODULE_NAMES) files[`bench/${name}.bench.ts`] = BENCHES[name];
    } else if (step) {
      passes[step.module] = Math.round(BASE_PASSES * step.ratio);
      subject = `${step.module}: ${passes[step.module]} passes (was ${BASE_PASSES})`;
    } else if (i % 5 === 0) {
      // Code a benchmark bundles but never runs: measured (the module's text changed), costs nothing.
      const name = MODULE_NAMES[(i / 5) % MODULE_NAMES.length]!;
      extra[name] += `\nexport function helper${i}(x: number): number {\n  return x * ${i};\n}\n`;
      subject = `${name}: add helper${i}`;
    } else if (i % 2 === 1) {
      files["CHANGELOG.md"] = `# Changelog\n\n${Array.from({ length: i }, (_, k) => `- change ${k}`).join("\n")}\n`;
      subject = `docs: changelog up to change ${i - 1}`;
    } else {
      files[`test/case-${i}.test.ts`] =
        `import { hash31 } from "../src/checksum.ts";\nif (hash31("a") === ${i}) throw new Error("collision");\n`;
      subject = `test: case ${i}`;
    }
    commits.push({ subject, passes: { ...passes }, extra: { ...extra }, files });
  }
  return commits;
}

/** Writes and commits the history in `repo`; returns the commits' shas, oldest first. */
export function commitHistory(repo: TestRepo, commits: readonly FixtureCommit[]): string[] {
  return commits.map((commit) => {
    const modules = Object.fromEntries(
      MODULE_NAMES.map((name) => [`src/${name}.ts`, MODULES[name](commit.passes[name], commit.extra[name])]),
    );
    repo.write({ ...modules, ...commit.files });
    return repo.commit(commit.subject);
  });
}

/**
 * The three steps the method must find (docs/history.md): +10%, -5% and +3%, each in its own
 * row; the e2e check and bench/history-method.ts both measure them.
 */
export const KNOWN_STEPS: KnownStep[] = [
  { index: 8, module: "checksum", ratio: 1.1 },
  { index: 17, module: "stats", ratio: 0.95 },
  { index: 25, module: "text", ratio: 1.03 },
];
