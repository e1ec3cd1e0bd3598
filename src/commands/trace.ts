import { defineCommand } from "citty";
import { notBuiltYet } from "../cli/errors.ts";

export const traceCommand = defineCommand({
  meta: { name: "trace", description: "Run a command and record every file its process tree touches" },
  args: {
    backend: { type: "enum", options: ["auto", "preload", "seccomp"], description: "Tracing backend", default: "auto" },
    format: { type: "enum", options: ["summary", "json", "ndjson"], description: "Output format", default: "summary" },
    output: { type: "string", alias: "o", description: "Write accesses to FILE instead of stderr" },
    command: { type: "positional", required: false, description: "-- CMD [ARGS...]" },
  },
  run() {
    notBuiltYet("xbench trace");
  },
});
