/** What a build records about itself, and `xbench --version --verbose`, which prints it. */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "pathe";
import { VERSION } from "./version.ts";

/** What build.ts records about a build: the compiled binary carries it, the npm build has it in build-info.json. */
export interface BuildInfo {
  commit?: string;
  /** ISO date of the build. */
  date?: string;
  /** The release target (`linux-x64`, ...), or `npm` for the npm build. */
  target?: string;
  /** The Bun that compiled the binary (and runs inside it). */
  bun?: string;
}

/** The file build.ts writes beside the npm build; the CLI's chunks sit one folder down. */
export const BUILD_INFO_FILE = "build-info.json";

export function buildInfo(): BuildInfo {
  const baked = (globalThis as { __XBENCH_BUILD__?: BuildInfo }).__XBENCH_BUILD__;
  if (baked) return baked;
  const here = dirname(fileURLToPath(import.meta.url));
  for (const file of [join(here, BUILD_INFO_FILE), join(here, "..", BUILD_INFO_FILE)]) {
    try {
      if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as BuildInfo;
    } catch {
      // A damaged file says no more than a missing one.
    }
  }
  return {};
}

/** The runtime executing xbench right now: a compiled binary and `bun` say bun, else node or deno. */
function runtimeNow(): string {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun) return `bun ${versions.bun}`;
  if (versions.deno) return `deno ${versions.deno}`;
  return `node ${process.versions.node}`;
}

/** `xbench --version --verbose`: one `key value` line each, like `gh version` and `deno --version`. */
export function verboseVersion(info: BuildInfo = buildInfo()): string {
  const lines: Array<[string, string | undefined]> = [
    ["commit", info.commit ?? "unknown (run from source)"],
    ["built", info.date ?? "unknown"],
    ["target", info.target ?? "source"],
    ["bun", info.bun], // only a compiled binary has a Bun inside
    ["runtime", `${runtimeNow()} (${process.platform}-${process.arch})`],
  ];
  const shown = lines.filter((line): line is [string, string] => line[1] !== undefined);
  return [`xbench ${VERSION}`, ...shown.map(([key, value]) => `${key.padEnd(9)}${value}`)].join("\n");
}
