/**
 * What a project's package.json scripts say about its benchmarks: the files its `bench` and
 * `benchmark` scripts run (`"bench": "node benchmark.js"`) and the runtime each runs them with
 * (docs/compare.md, "Bench files"). Pure: package.json's text and the tree's files in, the
 * scripts' runs out. A command is read, never run: a program and its first file argument.
 */
import type { Runtime } from "../../model/result.ts";

/** One file a script runs, with the runtime it runs it on. */
export interface ScriptRun {
  /** The script's name in package.json (`bench`, `bench:node`). */
  script: string;
  /** The command as package.json has it. */
  command: string;
  /** Repo-relative path of the file, as the tree lists it. */
  file: string;
  runtime: Runtime;
}

/** Script names that hold benchmarks: `bench`, `benchmark(s)`, and their `:variant`s. */
const BENCH_SCRIPT = /^bench(?:mark)?s?(?::.*)?$/;

/** A JavaScript or TypeScript module, as a runtime takes it on its command line. */
const MODULE = /\.[cm]?[jt]sx?$/;

/** Runners that start node on the file they are given (`tsx bench.ts`). */
const NODE_RUNNERS = new Set(["node", "tsx", "ts-node", "esno", "esr", "vite-node", "jiti"]);

/** Options of node, bun and deno that take the next word as their value. */
const TAKES_VALUE = new Set([
  "-r",
  "--require",
  "--import",
  "--loader",
  "--experimental-loader",
  "--env-file",
  "--config",
  "-c",
  "--preload",
]);

/** Launchers that run the command after them (`npx tsx x.ts`, `cross-env A=1 node x.js`). */
const LAUNCHERS: Record<string, number> = { npx: 1, bunx: 1, "cross-env": 1, time: 1 };

/** The words of one command, quotes taken off (a script's commands are simple enough for this). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** The file a path names in the tree: itself, or a folder's index module. */
function inTree(path: string, files: ReadonlySet<string>): string | undefined {
  const clean = path.replace(/^\.\//, "").replace(/\/$/, "");
  if (files.has(clean)) return clean;
  for (const ext of ["ts", "mts", "js", "mjs", "cjs"]) if (files.has(`${clean}/index.${ext}`)) return `${clean}/index.${ext}`;
  return undefined;
}

/** The runtime and module one command runs (`node --expose-gc bench.js` → node, bench.js). */
export function commandRun(command: string): { runtime: Runtime; module: string } | undefined {
  let argv = words(command).filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w));
  while (argv.length > 0 && LAUNCHERS[argv[0]!] !== undefined)
    argv = argv.slice(LAUNCHERS[argv[0]!]).filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w));
  const [program, ...rest] = argv;
  if (program === undefined) return undefined;
  let runtime: Runtime;
  let args = rest;
  if (NODE_RUNNERS.has(program)) runtime = "node";
  else if (program === "bun") {
    runtime = "bun";
    if (args[0] === "run") args = args.slice(1);
  } else if (program === "deno" && args[0] === "run") {
    runtime = "deno";
    args = args.slice(1);
  } else return undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith("-")) {
      if (TAKES_VALUE.has(arg)) i++;
      continue;
    }
    return { runtime, module: arg };
  }
  return undefined;
}

/**
 * The files package.json's bench scripts run, in script order, each with its runtime. A
 * command of several steps (`tsc && node dist/bench.js`) counts every step that runs a file
 * of the tree.
 */
export function benchScriptRuns(packageJson: string | undefined, files: readonly string[]): ScriptRun[] {
  let scripts: unknown;
  try {
    scripts = (JSON.parse(packageJson ?? "{}") as { scripts?: unknown })?.scripts;
  } catch {
    return [];
  }
  if (!scripts || typeof scripts !== "object") return [];
  const tree = new Set(files);
  const runs: ScriptRun[] = [];
  for (const [script, command] of Object.entries(scripts as Record<string, unknown>)) {
    if (!BENCH_SCRIPT.test(script) || typeof command !== "string") continue;
    for (const step of command.split(/&&|\|\||;|\|/)) {
      const run = commandRun(step.trim());
      if (!run) continue;
      const file = inTree(run.module, tree);
      if (file && MODULE.test(file)) runs.push({ script, command, file, runtime: run.runtime });
    }
  }
  return runs;
}
