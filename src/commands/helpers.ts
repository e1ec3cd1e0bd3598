import { defineCommand } from "../args/define.ts";
import { helperDir } from "../helpers/index.ts";

/** Hidden: extracts the native helpers (if embedded), checks every one's hash, and prints their folder. */
export const helpersCommand = defineCommand({
  meta: {
    name: "helpers",
    description: "Print the folder of the native helpers, extracting them first",
    hidden: true,
  },
  examples: ["xbench helpers"],
  run() {
    process.stdout.write(`${helperDir(true)}\n`);
    return 0;
  },
});
