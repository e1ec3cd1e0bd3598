import { defineCommand } from "citty";
import { afterDoubleDash } from "./flags.ts";
import { usageError } from "../errors.ts";
import { runTrace, TRACE_BACKENDS, TRACE_FORMATS, type TraceFlags } from "./trace-run.ts";

export const traceCommand = defineCommand({
  meta: {
    name: "trace",
    description: "Run a command and record every file its process tree touches (macOS: experimental, not yet run on a Mac)",
  },
  args: {
    backend: {
      type: "enum",
      options: [...TRACE_BACKENDS],
      description: "Tracing backend (macOS: auto and preload interpose through dyld; seccomp is Linux only)",
      default: "auto",
    },
    format: { type: "enum", options: [...TRACE_FORMATS], description: "Output format", default: "summary" },
    output: {
      type: "string",
      alias: "o",
      description: "Write the access list to FILE (else json/ndjson go to stderr; summary is counts only)",
    },
    command: { type: "positional", required: false, description: "-- CMD [ARGS...]" },
  },
  async run({ rawArgs, args }) {
    const argv = afterDoubleDash(rawArgs);
    if (argv.length === 0) throw usageError("trace needs a command after --, e.g. xbench trace -- make", true);
    const flags = { backend: args.backend, format: args.format, ...(args.output ? { output: args.output } : {}) } as TraceFlags;
    return runTrace(flags, argv);
  },
});
