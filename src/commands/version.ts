import { defineCommand } from "../args/define.ts";
import { verboseVersion } from "../build-info.ts";

/** `xbench version`: the same as `xbench --version --verbose`, as `gh version` is. */
export const versionCommand = defineCommand({
  meta: {
    name: "version",
    description: "Print the version, commit, build date, target and Bun version",
  },
  run() {
    process.stdout.write(`${verboseVersion()}\n`);
    return 0;
  },
});
