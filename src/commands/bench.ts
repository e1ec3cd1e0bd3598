import { defineCommand } from "../args/define.ts";

export const benchCommand = defineCommand({
  meta: {
    name: "bench",
    description: "Run a built-in suite",
  },
  subCommands: {
    config: () => import("./bench-config.ts").then((m) => m.benchConfigCommand),
    tracer: () => import("./bench-tracer.ts").then((m) => m.benchTracerCommand),
  },
  examples: ["xbench bench config", "xbench bench tracer --iterations 24"],
});
