import { writeFileSync } from "node:fs";
import { defineCommand } from "../args/define.ts";
import { XbenchError } from "../errors.ts";

interface SpawnSyncResult {
  exitCode: number | null;
  signalCode?: string | null;
  resourceUsage?: { maxRSS: number };
}
type BunSpawn = { spawnSync(argv: string[], options: Record<string, unknown>): SpawnSyncResult };

/**
 * Hidden: times one launch of a command and reads its peak RSS, for the command rows of
 * bench files where the native xbench-exec-stats is missing (no helpers for this platform;
 * node and deno cannot read a child's rusage). The peak includes the launch itself: a command
 * smaller than this process's pre-exec image reports that image.
 */
export const execStatsCommand = defineCommand({
  meta: {
    name: "exec-stats",
    description: "Time one launch of a command and read its peak RSS",
    hidden: true,
  },
  args: {
    out: { type: "string", description: "Write {wallNs, maxRssBytes, exitCode, signal} JSON here", required: true },
  },
  passthrough: { example: "true" },
  examples: ["xbench exec-stats --out stats.json -- true"],
  run({ flags, command: argv }) {
    const bun = (globalThis as { Bun?: BunSpawn }).Bun;
    if (!bun) throw new XbenchError("exec-stats needs the xbench binary (Bun)");
    const start = process.hrtime.bigint();
    let result: SpawnSyncResult;
    try {
      result = bun.spawnSync(argv, { stdin: "ignore", stdout: "ignore", stderr: "inherit" });
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      writeFileSync(flags.out, JSON.stringify({ error: `${argv[0]}: ${code === "ENOENT" ? "command not found" : message}` }));
      return code === "ENOENT" ? 127 : 126;
    }
    const wallNs = Number(process.hrtime.bigint() - start);
    const stats = {
      wallNs,
      maxRssBytes: result.resourceUsage?.maxRSS ?? 0,
      exitCode: result.exitCode,
      signal: result.signalCode ?? null,
    };
    writeFileSync(flags.out, JSON.stringify(stats));
  },
});
