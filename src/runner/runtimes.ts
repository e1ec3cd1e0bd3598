/**
 * How each runtime runs a bench process: its command line and the target Bun bundles for. A
 * new runtime is its name in RUNTIMES (model/result.ts) and an entry here; the type checker
 * asks for the entry.
 */
import { existsSync } from "node:fs";
import { join } from "pathe";
import type { Runtime } from "../model/result.ts";

interface RuntimeLaunch {
  /** The command line that runs `bundle`; `local(name)` is the side's own installed copy if it has one. */
  argv(bundle: string, local: (name: string) => string): string[];
  /** Bun.build's target for bundles this runtime loads. */
  bundleTarget: "bun" | "node";
}

const LAUNCH: Record<Runtime, RuntimeLaunch> = {
  node: { argv: (bundle) => [process.env.XBENCH_NODE || "node", bundle], bundleTarget: "node" },
  bun: { argv: (bundle, local) => [process.env.XBENCH_BUN || local("bun"), bundle], bundleTarget: "bun" },
  deno: { argv: (bundle, local) => [process.env.XBENCH_DENO || local("deno"), "run", "-A", "--quiet", bundle], bundleTarget: "node" },
};

/** The runtime's command line for a bundle, preferring the side's own installed copy. */
export function runtimeArgv(runtime: Runtime, sideRoot: string, bundle: string): string[] {
  const local = (name: string) => {
    const bin = join(sideRoot, "node_modules", ".bin", name);
    return existsSync(bin) ? bin : name;
  };
  return LAUNCH[runtime].argv(bundle, local);
}

/** Bun.build's target for the bundles of `runtime`. */
export function bundleTarget(runtime: Runtime): "bun" | "node" {
  return LAUNCH[runtime].bundleTarget;
}
