/**
 * The config-snapshot suite (docs/suites.md): fresh load, snapshot hit, lookup,
 * metadata, and three kinds of edit at 50, 500, 5000 and 4712 workspaces, plus the exact
 * `parses per save (N)` metric of the edit with a reader on every event-loop turn.
 *
 *   bun bench/config.bench.ts                 (mitata's own table)
 *   XBENCH_CONFIG_SIZES=4712 bun bench/config.bench.ts
 *   xbench compare --base main config         (base against head)
 *
 * `metric` comes from ../src/index.ts (what the bare "xbench" maps to under compare): a plain
 * `bun bench/config.bench.ts` then needs no npm build. Both share one global registry.
 */
import { bench, run } from "mitata";
import { metric } from "../src/index.ts";
import { fixtureRoot } from "../src/suites/config/harness.ts";
import { DEFAULT_SIZES, defineConfigSuite } from "../src/suites/config/suite.ts";

const sizes = (process.env.XBENCH_CONFIG_SIZES ?? DEFAULT_SIZES.join(","))
  .split(",")
  .map((s) => Number.parseInt(s, 10))
  .filter((n) => n > 0);
const fixtures = fixtureRoot("xbench-config-bench-");
// Fixtures live in a temp folder: removed on exit, whatever ends the process.
process.on("exit", fixtures.remove);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    fixtures.remove();
    process.exit(signal === "SIGINT" ? 130 : 143);
  });
}

defineConfigSuite({ sizes, root: fixtures.root }, { bench, metric });
await run();
