/**
 * The runtime of a compare that was given no `--runtime`: the one the project's own tool runs
 * its bench files with (docs/compare.md, "Runtimes"). `deno bench` runs `Deno.bench` files, a
 * file written for Deno or Bun runs there, and a package.json bench script names its runtime
 * (`"bench": "bun bench/index.ts"`); vitest, mitata, tinybench and Benchmark.js suites run
 * under node. Every file must agree for the run to leave node: a runtime is one per run, and
 * when the files disagree the choice (node) says which of them their tool would run elsewhere.
 * Pure: the files' sources and the scripts' runs in, a runtime and why out.
 */
import type { Runtime } from "../../model/result.ts";
import { runtimeSignals } from "./diagnose.ts";
import type { ScriptRun } from "./scripts.ts";

export interface RuntimeChoice {
  runtime: Runtime;
  /** Why, for the run's header: what made the runtime the project's, or which files' tool would use another. */
  because?: string;
}

/** The runtime a file's own tool runs it with, and why; undefined where that is node or cannot be told. */
function toolRuntime(file: string, source: string | undefined, runs: readonly ScriptRun[]): { runtime: Runtime; why: string } | undefined {
  if (source !== undefined) {
    if (/\bDeno\s*\.\s*bench\b/.test(source)) return { runtime: "deno", why: "calls Deno.bench, which deno bench runs" };
    const strong = runtimeSignals(source).find((signal) => !signal.weak);
    if (strong) return { runtime: strong.runtime, why: `${strong.why}` };
  }
  const own = runs.filter((run) => run.file === file);
  const runtimes = [...new Set(own.map((run) => run.runtime))];
  if (runtimes.length !== 1 || runtimes[0] === "node") return undefined;
  return { runtime: runtimes[0]!, why: `is run with ${runtimes[0]} by package.json's "${own[0]!.script}" script (${own[0]!.command})` };
}

/**
 * `files`' runtime: the one their tools agree on, else node. `because` says, for the header,
 * what made the runtime the project's, or which files' own tool would run them elsewhere.
 */
export function chooseRuntime(
  files: readonly string[],
  source: (file: string) => string | undefined,
  runs: readonly ScriptRun[],
): RuntimeChoice {
  const tools = files.map((file) => ({ file, tool: toolRuntime(file, source(file), runs) }));
  const first = tools[0]?.tool;
  if (first && tools.every(({ tool }) => tool?.runtime === first.runtime)) {
    const sameWhy = tools.every(({ tool }) => tool!.why === first.why);
    const what =
      files.length === 1
        ? `${files[0]} ${first.why}`
        : sameWhy
          ? `every bench file ${first.why}`
          : `every bench file is ${first.runtime}'s: ${tools.map(({ file, tool }) => `${file} ${tool!.why}`).join(", ")}`;
    return { runtime: first.runtime, because: `${what}; --runtime node measures under node` };
  }
  const elsewhere = tools.filter(({ tool }) => tool !== undefined);
  if (elsewhere.length === 0) return { runtime: "node" };
  const { file, tool } = elsewhere[0]!;
  const [which, them, why] =
    elsewhere.length === 1
      ? [file, "it", `it ${tool!.why}`]
      : [`${elsewhere.length} of the ${files.length} bench files`, "them", `${file} ${tool!.why}`];
  return {
    runtime: "node",
    because: `the default; the project's own tool would run ${which} under ${tool!.runtime} (${why}): --runtime ${tool!.runtime} measures ${them} there`,
  };
}
