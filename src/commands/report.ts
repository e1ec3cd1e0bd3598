import { defineCommand } from "citty";
import { notBuiltYet } from "../cli/errors.ts";

export const reportCommand = defineCommand({
  meta: { name: "report", description: "Re-render a saved result file" },
  args: {
    file: { type: "positional", description: "Result JSON written by compare --json" },
    format: { type: "enum", options: ["term", "md", "json"], description: "Output format", default: "term" },
  },
  run() {
    notBuiltYet("xbench report");
  },
});
