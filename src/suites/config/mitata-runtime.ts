import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readAsset } from "../../runner/assets.ts";
import type { MitataRun, SuiteApi } from "./suite.ts";

/** What `xbench bench config` needs from mitata. */
export interface MitataModule {
  bench: SuiteApi["bench"];
  run: MitataRun;
}

/**
 * Loads mitata at run time from the copy xbench carries for bench processes (read from
 * node_modules in a checkout, from the binary's embedded assets when compiled). A static
 * `import "mitata"` cannot be compiled: build.ts embeds the same files with `type: "file"`.
 * The two sources are written side by side in `dir` (main.mjs imports ./lib.mjs).
 */
export async function loadMitata(dir: string): Promise<MitataModule> {
  writeFileSync(join(dir, "lib.mjs"), readAsset("mitataLib"));
  writeFileSync(join(dir, "main.mjs"), readAsset("mitataMain"));
  return (await import(pathToFileURL(join(dir, "main.mjs")).href)) as MitataModule;
}
