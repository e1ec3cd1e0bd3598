import { defineCommand } from "citty";
import { notBuiltYet } from "../cli/errors.ts";

export const benchConfigCommand = defineCommand({
  meta: { name: "config", description: "The config-snapshot store suite at thousands of workspaces" },
  args: {
    sizes: { type: "string", description: "Workspace counts", default: "50,500,5000,4712" },
    json: { type: "string", description: "Write results as JSON to FILE, - for stdout" },
  },
  run() {
    notBuiltYet("xbench bench config");
  },
});
