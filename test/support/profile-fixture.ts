/**
 * The fixture of `compare --profile`'s end-to-end test and of bench/profile-cost.ts: a package
 * whose benchmark runs three stages, parse, validate and render, each a loop of its own kind
 * of work and about the same cost, big enough to show in a profile as itself.
 */

/** Steps per stage; validate's steps are dearer, so fewer of them cost about as much. */
export interface Steps {
  parse: number;
  validate: number;
  render: number;
}

export const EVEN_STEPS: Steps = { parse: 6000, validate: 1200, render: 6000 };

/** The module of the three stages; `renderName` renames the render stage's function (a rename on head). */
export function pipelineModule(steps: Steps, renderName = "render"): string {
  return [
    "function parse(text: string, steps: number): number[] {",
    "  const out: number[] = [];",
    "  for (let i = 0; i < steps; i++) out.push(text.charCodeAt(i % text.length) * (i & 7));",
    "  return out;",
    "}",
    "",
    "function validate(values: number[], steps: number): number {",
    "  let bad = 0;",
    "  for (let i = 0; i < steps; i++) {",
    "    const v = values[i % values.length]!;",
    "    if ((v * 2654435761) % 97 === 13 || Math.sqrt(v + i) > 1e9) bad++;",
    "  }",
    "  return bad;",
    "}",
    "",
    `function ${renderName}(values: number[], steps: number): string {`,
    "  let hash = 7;",
    "  for (let i = 0; i < steps; i++) hash = (hash * 31 + values[i % values.length]! + (i >>> 3)) | 0;",
    "  return hash.toString(36);",
    "}",
    "",
    `export const STEPS = ${JSON.stringify(steps)};`,
    "// The bench file is head's on both sides: it calls the stages through this table.",
    `export const stages = { parse, validate, render: ${renderName} };`,
    "",
  ].join("\n");
}

/** The bench file: one row per entry of `rows`, label → how many times the stages' steps. */
function pipelineBench(rows: Record<string, number>): string {
  return [
    'import { bench, run } from "mitata";',
    'import { STEPS, stages } from "../src/pipeline.ts";',
    "",
    'const text = "the quick brown fox jumps over the lazy dog ".repeat(20);',
    ...Object.entries(rows).map(([label, scale]) =>
      [
        `bench(${JSON.stringify(label)}, () => {`,
        `  const values = stages.parse(text, STEPS.parse * ${scale});`,
        `  return stages.validate(values, STEPS.validate * ${scale}) + stages.render(values, STEPS.render * ${scale}).length;`,
        "});",
      ].join("\n"),
    ),
    "",
    "await run();",
    "",
  ].join("\n");
}

/** The package as committed (base): `rows` as in pipelineBench, stages of EVEN_STEPS. */
export function pipelinePackage(rows: Record<string, number> = { pipeline: 1 }): Record<string, string> {
  return {
    "package.json": JSON.stringify({ name: "pipeline", version: "1.0.0", type: "module" }),
    "src/pipeline.ts": pipelineModule(EVEN_STEPS),
    "bench/pipeline.bench.ts": pipelineBench(rows),
  };
}

/** Head's module with validate `factor` times the work (1.3: about 30% slower). */
export function slowerValidate(factor = 1.3): Record<string, string> {
  return { "src/pipeline.ts": pipelineModule({ ...EVEN_STEPS, validate: Math.round(EVEN_STEPS.validate * factor) }) };
}
