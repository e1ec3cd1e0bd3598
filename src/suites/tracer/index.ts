/** The tracing-overhead suite (docs/suites.md): `xbench bench tracer` and `compare --suite tracer`. */
import { XbenchError } from "../../errors.ts";
import { helperDir, hostPlatform } from "../../helpers/index.ts";
import { BACKENDS, type Backend, type TracerResult } from "./model.ts";
import { readTraceLog } from "./read-log.ts";
import { DEFAULT_ITERATIONS, runTracerSuite, type TracerSuiteOptions } from "./suite.ts";

export { buildBaseHelpers } from "./build-base.ts";
export { MARKDOWN_MARKER, renderMarkdown, renderTerminal, type Revisions } from "./report.ts";
export { DEFAULT_ITERATIONS, PASSES, WARMUP_ITERATIONS, runTracerSuite, type TracerSuiteOptions } from "./suite.ts";
export { readTraceLog } from "./read-log.ts";
export { BACKENDS, TRACER_SCHEMA_ID, TRACER_SCHEMA_VERSION, type Backend, type TracerResult, type TracerRow } from "./model.ts";

/** What a caller chooses; everything else comes from this build (head helpers, the tracer's log reader). */
export interface TracerBenchOptions extends Pick<TracerSuiteOptions, "baseHelperDir" | "onStep" | "onIteration"> {
  /** Head's helpers; this build's own by default. */
  headHelperDir?: string;
  iterations?: number;
  backends?: Backend[];
}

/**
 * The suite with this build's helpers (or `headHelperDir`) as head, `baseHelperDir` (e.g. from buildBaseHelpers)
 * as base, and the defaults of `xbench bench tracer`.
 */
export async function runTracerBench(options: TracerBenchOptions = {}): Promise<TracerResult> {
  requireLinuxBackends();
  return runTracerSuite({
    headHelperDir: options.headHelperDir ?? helperDir(),
    baseHelperDir: options.baseHelperDir,
    iterations: options.iterations ?? DEFAULT_ITERATIONS,
    backends: options.backends ?? [...BACKENDS],
    readLog: readTraceLog,
    onStep: options.onStep,
    onIteration: options.onIteration,
  });
}

/**
 * The suite times the Linux backends (preload, seccomp) through the supervisor; elsewhere it
 * says so in one line instead of failing on a missing supervisor.
 */
export function requireLinuxBackends(platform: NodeJS.Platform = process.platform): void {
  if (platform !== "linux")
    throw new XbenchError(`the tracer suite times the Linux backends (preload, seccomp); not available on ${hostPlatform()}`, {
      kind: "usage",
    });
}
