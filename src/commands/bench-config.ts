import { defineCommand } from "../args/define.ts";
import { usageError } from "../errors.ts";
import { log } from "../output/log.ts";
import { checkOutputTargets, prettyJson, writeReport } from "../output/writer.ts";
import { withCleanup } from "../util/scope.ts";
import { countParsesPerSave, fixtureRoot } from "../suites/config/harness.ts";
import { renderConfigSuite, type ConfigSuiteResult } from "../suites/config/report.ts";
import { PARSES_PER_EDIT, type SnapshotPolicy } from "../suites/config/store.ts";
import * as mitata from "mitata";
import { defineConfigSuite, measureReaderOverhead, runRegistered } from "../suites/config/suite.ts";

const MAX_WORKSPACES = 100_000;

/** "50,500,5000,4712" → [50, 500, 5000, 4712]; anything else is a one-line usage error. */
export function parseSizes(text: string): number[] {
  const parts = text.split(",").map((s) => s.trim());
  const sizes = parts.map((s) => (/^\d+$/.test(s) ? Number(s) : Number.NaN));
  if (parts.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_WORKSPACES)) {
    throw usageError(`--sizes takes workspace counts from 1 to ${MAX_WORKSPACES}, comma-separated (like 50,500,5000,4712), not "${text}"`);
  }
  return [...new Set(sizes)];
}

function runtimeName(): string {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun) return `bun ${versions.bun}`;
  if (versions.deno) return `deno ${versions.deno}`;
  return `node ${process.versions.node}`;
}

export const benchConfigCommand = defineCommand({
  meta: {
    name: "config",
    description: "The config-snapshot store suite at thousands of workspaces",
  },
  args: {
    sizes: { type: "string", description: "Workspace counts", default: "50,500,5000,4712", parse: parseSizes },
    json: { type: "string", path: "file", description: "Write results as JSON to FILE, - for stdout" },
  },
  examples: ["xbench bench config", "xbench bench config --sizes 50,500 --json results.json"],
  async run({ flags }) {
    const { sizes } = flags;
    const targets = { json: flags.json };
    checkOutputTargets(targets);
    const policy: SnapshotPolicy = "publish-written";

    // Fixtures go to a temp folder removed on every exit path: return, throw, Ctrl-C, SIGTERM.
    const fixtures = fixtureRoot("xbench-bench-config-");
    return withCleanup(
      (signal) => log.warn(`${signal}: stopping, removing ${fixtures.root}`),
      async (cleanup) => {
        cleanup.add(fixtures.remove);
        log.info(`writing fixtures (${sizes.join(", ")} workspaces) to ${fixtures.root}`);
        // Metrics are measured below, beside the designs' counts: nothing to register globally.
        const suite = defineConfigSuite({ sizes, root: fixtures.root, policy }, { bench: mitata.bench, metric: () => {} });
        log.info("timing rows (mitata, in-process)");
        const rows = await runRegistered(mitata.run);
        log.info("counting parses per save");
        const metrics: ConfigSuiteResult["metrics"] = [];
        for (const m of suite.metrics) metrics.push({ label: m.label, unit: "count", value: await m.measure() });
        const designs: ConfigSuiteResult["designs"] = [];
        for (const fx of suite.fixtures) {
          const parsesPerSave = {} as Record<SnapshotPolicy, number>;
          for (const design of Object.keys(PARSES_PER_EDIT) as SnapshotPolicy[]) {
            parsesPerSave[design] = (await countParsesPerSave(fx.path, fx.lastId, design, 2)).parsesPerSave;
          }
          designs.push({ size: fx.size, parsesPerSave });
        }
        const largest = suite.fixtures.find((f) => f.size === 4712) ?? suite.fixtures.reduce((a, b) => (b.size > a.size ? b : a));
        log.info(`reader overhead at ${largest.size} workspaces (interleaved pairs)`);
        const readerOverhead = await measureReaderOverhead(largest, 16, policy);

        const result: ConfigSuiteResult = {
          schema: "xbench.bench-config/1",
          runtime: runtimeName(),
          policy,
          sizes,
          fixtures: suite.fixtures.map((f) => ({ size: f.size, bytes: f.bytes })),
          rows,
          metrics,
          designs,
          readerOverhead,
        };
        writeReport({ table: renderConfigSuite(result), json: prettyJson(result) }, targets);
        return rows.some((r) => r.error) ? 1 : 0;
      },
    );
  },
});
