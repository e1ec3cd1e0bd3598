import pkg from "../package.json" with { type: "json" };

/**
 * The version, and nothing else: `xbench --version` loads this module alone (no node:fs, which
 * costs Bun a few milliseconds of start-up). What a build records is in build-info.ts.
 */
export const VERSION: string = pkg.version;
