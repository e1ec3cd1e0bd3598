import { defineCommand } from "citty";
import { notBuiltYet } from "../cli/errors.ts";

export const benchTracerCommand = defineCommand({
  meta: { name: "tracer", description: "Tracking overhead of the tracer: launch and access rows per backend" },
  args: {
    "base-helper": { type: "string", description: "Folder with another build of the helpers (the base arm)" },
    iterations: { type: "string", description: "Iterations (rounded up to whole cycles of orderings)" },
    backends: { type: "string", description: "Backends to measure", default: "preload,seccomp" },
    json: { type: "string", description: "Write results as JSON to FILE, - for stdout" },
    markdown: { type: "string", description: "Write the markdown report to FILE" },
  },
  run() {
    notBuiltYet("xbench bench tracer");
  },
});
