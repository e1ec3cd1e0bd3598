import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { requireBinary, tempDir, xbench } from "../support/xbench.ts";

/** `xbench bench config` from the compiled binary: the suite runs in-process. */
describe("xbench bench config", () => {
  test("bad --sizes: one line of error, exit 2", () => {
    for (const sizes of ["5x", "0", "50,,500", "-3"]) {
      const r = xbench(["bench", "config", `--sizes=${sizes}`]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toStartWith("xbench: --sizes takes workspace counts");
      expect(r.stdout).toBe("");
    }
  });

  test("--json - prints only JSON: every row, parses per save 1 (keep-matching 2, clear-always 2 to 4); temp files removed", () => {
    const tmp = tempDir();
    try {
      const r = xbench(["bench", "config", "--sizes", "50", "--json", "-"], { env: { ...process.env, TMPDIR: tmp.dir } });
      expect(r.code).toBe(0);
      const result = JSON.parse(r.stdout);
      expect(result.schema).toBe("xbench.bench-config/1");
      expect(result.rows.map((row: { label: string }) => row.label)).toEqual([
        "loadConfig, fresh store (50)",
        "loadConfig, snapshot hit (50)",
        "findWorkspace(last id) (50)",
        "allWorkspaceMetadata (50)",
        "editConfig, same-value edit (50)",
        "editConfig, then loadConfig (50)",
        "editConfig, reader on every event-loop turn (50)",
      ]);
      expect(result.metrics).toEqual([{ label: "parses per save (50)", unit: "count", value: 1 }]);
      const { "clear-always": naive, ...others } = result.designs[0].parsesPerSave;
      expect(others).toEqual({ "keep-matching": 2, "publish-written": 1 });
      // 4 where the save's write and sync each last past a turn; fewer on a very fast disk (src/suites/config/README.md)
      expect(naive).toBeGreaterThanOrEqual(2);
      expect(naive).toBeLessThanOrEqual(4);
      expect(result.readerOverhead.ratio).toBeGreaterThan(0);
      expect(r.stderr).toContain("parses per save (50)"); // the table moved to stderr
      expect(readdirSync(tmp.dir)).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  }, 120_000);

  test("Ctrl-C removes the fixtures and exits 130", async () => {
    const tmp = tempDir();
    try {
      const child = spawn(requireBinary(), ["bench", "config", "--sizes", "500"], {
        env: { ...process.env, TMPDIR: tmp.dir },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      const code = await new Promise<number | null>((resolve) => {
        child.stderr!.on("data", (d) => {
          stderr += d;
          if (stderr.includes("timing rows")) child.kill("SIGINT");
        });
        child.on("close", (c) => resolve(c));
      });
      expect(code).toBe(130);
      expect(readdirSync(tmp.dir)).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  }, 60_000);
});
