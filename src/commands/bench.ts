import { defineCommand } from "../args/spec.ts";

export const benchCommand = defineCommand({
  name: "bench",
  description: "Run a built-in suite",
  subcommands: {
    config: () => import("./bench-config.ts").then((m) => m.benchConfigCommand),
    tracer: () => import("./bench-tracer.ts").then((m) => m.benchTracerCommand),
  },
  examples: ["xbench bench config", "xbench bench tracer --iterations 24"],
});
