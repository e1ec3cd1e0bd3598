/**
 * How each runtime runs a bench process: its command line and the target Bun bundles for. A
 * new runtime is its name in RUNTIMES (model/result.ts) and an entry here; the type checker
 * asks for the entry.
 */
import { existsSync, realpathSync } from "node:fs";
import { join } from "pathe";
import { usageError } from "../errors.ts";
import type { Runtime } from "../model/result.ts";
import { lastLines } from "../util/text.ts";
import { onPath } from "./bun.ts";
import { isBunPlaceholder, packagedBun } from "./bun-package.ts";
import { runToEnd } from "./spawn.ts";

/** A runtime's executable and what it needs in its environment. */
export interface RuntimeCommand {
  file: string;
  env: Record<string, string>;
}

/** The command line of a bench process: `argv` to run with `env` added to the parent's. */
export interface RuntimeLaunch {
  argv: string[];
  env: Record<string, string>;
}

interface RuntimeEntry {
  /** The executable; `local(name)` is the side's own installed copy, if it has one. */
  command(local: (name: string) => string | undefined): RuntimeCommand;
  /** Arguments before the bundle; `root` is the folder the process runs in. */
  args(root: string): string[];
  /** Bun.build's target for bundles this runtime loads. */
  bundleTarget: "bun" | "node";
  /**
   * What a counted bench process adds (docs/counting.md, "Runtime flags"): arguments after
   * `args`, before the bundle, and environment. The JIT and the collector on the main thread,
   * so that counts repeat, and a forced collection the sampler can call between windows.
   */
  counting: { args: string[]; env: Record<string, string> };
}

/** Set beside BUN_BE_BUN so the bench process can drop both before it starts anything. */
const BE_BUN_MARK = "XBENCH_BE_BUN";

/**
 * The side's own bun, else a bun on PATH, else the Bun running xbench (the compiled binary is
 * one: BUN_BE_BUN=1 makes it the bun CLI), else the bun xbench's npm package depends on, else
 * plain `bun`, which the start-up check reports.
 */
function bunCommand(local: (name: string) => string | undefined): RuntimeCommand {
  if (process.env.XBENCH_BUN) return { file: process.env.XBENCH_BUN, env: {} };
  const own = local("bun");
  if (own && !isBunPlaceholder(own)) return { file: own, env: {} };
  const found = onPath("bun");
  if (found && !isBunPlaceholder(found)) return { file: found, env: {} };
  if (process.versions.bun) return { file: process.execPath, env: { BUN_BE_BUN: "1", [BE_BUN_MARK]: "1" } };
  return { file: packagedBun() ?? "bun", env: {} };
}

/** deno.json or deno.jsonc in the root, which `deno run` there would read. */
function denoConfig(root: string): string | undefined {
  return ["deno.json", "deno.jsonc"].map((name) => join(root, name)).find((file) => existsSync(file));
}

/**
 * Node from PATH, passing over the `node` that `bun --bun` (and `bunx --bun`) puts first on
 * the PATH of what it runs: a link to bun itself, which is not node and takes none of its flags.
 */
function nodeCommand(): RuntimeCommand {
  if (process.env.XBENCH_NODE) return { file: process.env.XBENCH_NODE, env: {} };
  if (!process.versions.bun) return { file: "node", env: {} };
  let passedOver = false;
  for (const folder of (process.env.PATH ?? "").split(":")) {
    const file = join(folder, "node");
    if (!folder || !existsSync(file)) continue;
    if (/\/bun-node-[^/]*$/.test(folder) || /(^|\/)bunx?(\.exe)?$/.test(realpathSync(file))) {
      passedOver = true;
      continue;
    }
    // Named as typed where PATH finds it first anyway, so that messages read `node`.
    return { file: passedOver ? file : "node", env: {} };
  }
  return { file: "node", env: {} };
}

const LAUNCH: Record<Runtime, RuntimeEntry> = {
  node: { command: nodeCommand, args: () => [], bundleTarget: "node", counting: { args: ["--single-threaded", "--expose-gc"], env: {} } },
  // Bun.gc(true) needs no flag.
  bun: { command: bunCommand, args: () => [], bundleTarget: "bun", counting: { args: [], env: {} } },
  deno: {
    command: (local) => ({ file: process.env.XBENCH_DENO || local("deno") || "deno", env: {} }),
    // Deno finds its configuration from the main module; the driver may sit outside the project
    // (no node_modules to put it in), so the project's deno.json is named.
    args: (root) => {
      const config = denoConfig(root);
      return ["run", "-A", "--quiet", ...(config ? ["--config", config] : [])];
    },
    bundleTarget: "node",
    counting: { args: ["--v8-flags=--single-threaded,--expose-gc"], env: {} },
  },
};

/** The side's own copy of an executable, in its node_modules/.bin. */
function localIn(root: string): (name: string) => string | undefined {
  return (name) => {
    const bin = join(root, "node_modules", ".bin", name);
    return existsSync(bin) ? bin : undefined;
  };
}

/** The runtime's executable for a side, preferring the side's own installed copy. */
export function runtimeCommand(runtime: Runtime, root: string): RuntimeCommand {
  return LAUNCH[runtime].command(localIn(root));
}

/** The command line that runs `bundle` under `runtime` in `root`; `counting`: with the runtime's counting flags. */
export function runtimeLaunch(runtime: Runtime, root: string, bundle: string, counting = false): RuntimeLaunch {
  const { file, env } = runtimeCommand(runtime, root);
  const extra = counting ? LAUNCH[runtime].counting : { args: [], env: {} };
  return { argv: [file, ...LAUNCH[runtime].args(root), ...extra.args, bundle], env: { ...env, ...extra.env } };
}

/** The runtime flags of a counted bench process, as a report states them (`node --single-threaded --expose-gc`). */
export function countingFlags(runtime: Runtime): string {
  const { args, env } = LAUNCH[runtime].counting;
  return [...Object.entries(env).map(([k, v]) => `${k}=${v}`), runtime, ...args].join(" ");
}

/**
 * Starts the runtime once (`--version`) so that one that is missing or broken is one line
 * before any round, not a failed row per process. `chosen`: why the run took this runtime
 * without `--runtime` (the project's own tool's), said in that line.
 */
export async function checkRuntime(runtime: Runtime, root: string, chosen?: string): Promise<void> {
  const { file, env } = runtimeCommand(runtime, root);
  const done = await runToEnd([file, "--version"], { cwd: root, env: { ...process.env, ...env } });
  if (done.code === 0 && !done.error) return;
  const missing = done.error !== undefined && /ENOENT|command not found|No such file/.test(done.error);
  const why = missing
    ? "command not found"
    : (done.error?.replace(/^cannot start [^:]*: /, "") ??
      (lastLines(done.stderr, 1) || `\`${file} --version\` exited ${done.code ?? done.signal}`));
  const hint = missing ? ` (install it in the project or put it on PATH, or set XBENCH_${runtime.toUpperCase()})` : "";
  const flag = chosen ? `runtime ${runtime} (${chosen})` : `--runtime ${runtime}`;
  throw usageError(`${flag}: cannot start ${file}: ${why}${hint}`);
}

/** Bun.build's target for the bundles of `runtime`. */
export function bundleTarget(runtime: Runtime): "bun" | "node" {
  return LAUNCH[runtime].bundleTarget;
}
