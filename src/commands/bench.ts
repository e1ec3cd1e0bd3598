import { defineCommand } from "citty";

export const benchCommand = defineCommand({
  meta: { name: "bench", description: "Run a built-in suite" },
  subCommands: {
    config: () => import("./bench-config.ts").then((m) => m.benchConfigCommand),
    tracer: () => import("./bench-tracer.ts").then((m) => m.benchTracerCommand),
  },
});
