import { defineCommand } from "../args/define.ts";
import { VERSION } from "../version.ts";

export const rootCommand = defineCommand({
  meta: {
    name: "xbench",
    description: "Interleaved base/head benchmarks with paired verdicts, and a file-access tracer",
    version: VERSION,
  },
  subCommands: {
    compare: () => import("./compare.ts").then((m) => m.compareCommand),
    history: () => import("./history.ts").then((m) => m.historyCommand),
    bisect: () => import("./bisect.ts").then((m) => m.bisectCommand),
    trace: () => import("./trace.ts").then((m) => m.traceCommand),
    bench: () => import("./bench.ts").then((m) => m.benchCommand),
    report: () => import("./report.ts").then((m) => m.reportCommand),
    helpers: () => import("./helpers.ts").then((m) => m.helpersCommand),
    version: () => import("./version.ts").then((m) => m.versionCommand),
    "exec-stats": () => import("./exec-stats.ts").then((m) => m.execStatsCommand),
  },
  examples: [
    "xbench compare --base main          # this branch against main, a verdict per benchmark",
    "xbench trace -- make -j4            # every file make reads, writes or executes",
    "xbench bench config                 # a built-in suite",
  ],
});
