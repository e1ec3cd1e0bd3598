/**
 * Output on a full disk and a closed or full stdout (docs/reliability.md): a report file is
 * replaced whole or not at all, the one-line error names the file (and for a compare, the run
 * folder's intact copy); a reader that stops early is no failure, a full stdout is one line.
 * The full disk is a tmpfs of 16 KiB (root only); without it those tests are skipped, and say so.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV, repoPerTest } from "../support/compare.ts";
import { mixedResult, slowerResult } from "../support/report-fixtures.ts";
import { workFiles } from "../support/repo.ts";
import { requireBinary, tempDir, xbench } from "../support/xbench.ts";

const { dir: own, cleanup: removeOwn } = tempDir("xbench-full-disk-");
const full = join(own, "full");
mkdirSync(full);

/** Mounts the 16 KiB tmpfs; the reason it could not, else undefined. */
function mountFull(): string | undefined {
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", full], { encoding: "utf8" });
  if (r.error) return r.error.message;
  return r.status === 0 ? undefined : r.stderr.trim() || `mount exited ${r.status}`;
}
const noMount = mountFull();
if (noMount) console.warn(`skipped: the full-disk tests need a 16 KiB tmpfs, and mount failed: ${noMount}`);
afterAll(() => {
  if (!noMount) spawnSync("umount", [full]);
  removeOwn();
});

/** Empties the tmpfs, then fills what is left after `files`, so the next byte written fails with ENOSPC. */
function fillUp(files: Record<string, string>): void {
  for (const name of readdirSync(full)) rmSync(join(full, name), { force: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(full, name), text);
  try {
    writeFileSync(join(full, `filler-${Date.now()}`), Buffer.alloc(64 * 1024));
  } catch {
    // full, as wanted
  }
}

/** A result file of many rows: its markdown is far more than a pipe holds. */
function bigResult(result = mixedResult(), name = "big.json"): string {
  const rows = Array.from({ length: 300 }, (_, i) => result.rows.map((row) => ({ ...row, id: `${row.id}-${i}` }))).flat();
  const file = join(own, name);
  writeFileSync(file, JSON.stringify({ ...result, rows }));
  return file;
}

const leftoverTemps = () => readdirSync(full).filter((name) => name.endsWith(".tmp"));

describe("a full disk", () => {
  const repoWith = repoPerTest();

  test.skipIf(!!noMount)("report --html and --json over good files: exit 1, one line naming the file, the old files whole", () => {
    const source = join(own, "mixed.json");
    writeFileSync(source, JSON.stringify(mixedResult()));
    const html = join(full, "prev.html");
    const json = join(full, "prev.json");
    fillUp({ "prev.html": "<p>the previous report</p>\n", "prev.json": '{"previous":true}\n' });
    for (const [flag, file, before] of [
      ["--html", html, "<p>the previous report</p>\n"],
      ["--json", json, '{"previous":true}\n'],
    ] as const) {
      const r = xbench(["report", source, flag, file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`xbench: cannot write ${file}: no space left on device (ENOSPC); the previous file is unchanged\n`);
      expect(readFileSync(file, "utf8")).toBe(before);
    }
    expect(leftoverTemps()).toEqual([]);
  });

  test.skipIf(!!noMount)(
    "compare --json on a full disk: exit 1, the message names the file and the run folder's intact copy",
    () => {
      const repo = repoWith(workFiles("t.bench.ts", [{ label: "a", work: 2000 }]));
      const target = join(full, "r.json");
      fillUp({ "r.json": '{"previous":true}\n' });
      const { dir: tmp, cleanup } = tempDir("xbench-full-disk-tmp-");
      try {
        const r = xbench(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--json", target], {
          cwd: repo.dir,
          env: { ...COMPARE_ENV, TMPDIR: tmp },
          timeout: 300_000,
        });
        expect(r.code).toBe(1);
        const match = r.stderr.match(
          /^xbench: cannot write (\S+): no space left on device \(ENOSPC\); the previous file is unchanged; the result is saved in (\S+)$/m,
        );
        expect(match?.[1]).toBe(target);
        const saved = JSON.parse(readFileSync(match![2]!, "utf8")) as { rows: unknown[] };
        expect(saved.rows).toHaveLength(1);
        expect(readFileSync(target, "utf8")).toBe('{"previous":true}\n');
        expect(leftoverTemps()).toEqual([]);
      } finally {
        cleanup();
      }
    },
    300_000,
  );
});

describe("a full TMPDIR", () => {
  const repoWith = repoPerTest();

  test.skipIf(!!noMount)(
    "compare: one line naming the file it could not write and TMPDIR, exit 1, no worktree left",
    () => {
      const repo = repoWith(workFiles("t.bench.ts", [{ label: "a", work: 2000 }]));
      fillUp({});
      const r = xbench(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20"], {
        cwd: repo.dir,
        env: { ...COMPARE_ENV, TMPDIR: full },
        timeout: 300_000,
      });
      expect(r.code).toBe(1);
      const errors = r.stderr.split("\n").filter((line) => line.startsWith("xbench: "));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(
          `^xbench: cannot write ${full}/xbench-compare-\\w+/\\S+: no space left on device \\(ENOSPC\\); free some space in TMPDIR \\(${full}\\), or set TMPDIR to a folder with room$`,
        ),
      );
      expect(repo.worktrees()).toHaveLength(1);
      expect(readdirSync(full).filter((name) => name.startsWith("xbench-"))).toEqual([]);
    },
    300_000,
  );
});

describe("a full disk under the run folder while measuring", () => {
  const repoWith = repoPerTest();

  test.skipIf(!!noMount)(
    "one line naming the file it could not write and how to resume, never a benchmark failure; freed, --resume measures what is missing",
    async () => {
      const repo = repoWith(workFiles("t.bench.ts", [{ label: "a", work: 2000 }]));
      // The run folder on a small disk of its own, filled once the run has measured a few rounds.
      const runs = join(repo.dir, ".git", "xbench");
      mkdirSync(runs);
      const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", runs], { encoding: "utf8" });
      expect(mounted.status).toBe(0);
      try {
        const child = spawn(requireBinary(), ["compare", "--base", "HEAD", "--rounds", "12", "--time", "150"], {
          cwd: repo.dir,
          env: COMPARE_ENV,
          stdio: ["ignore", "ignore", "pipe"],
        });
        let stderr = "";
        child.stderr!.on("data", (d) => (stderr += d));
        const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
        const folder = () => /run folder (\S+)/.exec(stderr)?.[1];
        const rounds = () =>
          folder() && existsSync(join(folder()!, "rounds.ndjson")) ? readFileSync(join(folder()!, "rounds.ndjson"), "utf8") : "";
        const deadline = Date.now() + 120_000;
        while (rounds().split("\n").filter(Boolean).length < 3 && Date.now() < deadline) await Bun.sleep(20);
        const filler = join(runs, "filler");
        try {
          writeFileSync(filler, Buffer.alloc(1024 * 1024));
        } catch {
          // full, as wanted
        }
        const code = await exited;
        const runDir = folder()!;
        expect(stderr).not.toContain("exited 1");
        expect(stderr).not.toContain("failed");
        const errors = stderr.split("\n").filter((line) => line.startsWith("xbench: "));
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatch(
          new RegExp(
            `^xbench: cannot write ${runDir}/\\S+: no space left on device \\(ENOSPC\\)\\. Measured rounds are saved; free some space, then continue with: xbench compare --resume ${runDir}$`,
          ),
        );
        expect(code).toBe(1);
        const saved = rounds();
        expect(saved).not.toContain("ENOSPC");

        rmSync(filler);
        const resumed = xbench(["compare", "--resume", runDir, "--json", "-"], { cwd: repo.dir, env: COMPARE_ENV, timeout: 300_000 });
        expect(resumed.code).toBe(0);
        const result = JSON.parse(resumed.stdout) as { rounds: { completed: number }; rows: Array<{ status: string }> };
        expect(result.rounds.completed).toBe(12);
        expect(result.rows.map((row) => row.status)).toEqual(["ok"]);
      } finally {
        spawnSync("umount", ["-l", runs]);
      }
    },
    300_000,
  );
});

describe("stdout closed or full", () => {
  /** `xbench ARGS | head -1` in bash with pipefail: xbench's own status and its stderr. */
  function intoHead(args: string[]): { code: number | null; first: string; stderr: string } {
    const quoted = [requireBinary(), ...args].map((a) => `'${a}'`).join(" ");
    const err = join(own, `stderr-${Date.now()}`);
    const r = spawnSync("bash", ["-c", `set -o pipefail; ${quoted} 2>'${err}' | head -1`], { encoding: "utf8" });
    return { code: r.status, first: r.stdout, stderr: existsSync(err) ? readFileSync(err, "utf8") : "" };
  }

  test("a reader that stops after one line: exit 0, nothing on stderr", () => {
    const r = intoHead(["report", bigResult(), "--format", "md"]);
    expect(r.first).toBe("<!-- xbench-compare -->\n");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  test("a reader that stops early keeps the run's own status: a failed gate is still 1", () => {
    const r = intoHead(["report", bigResult(slowerResult(), "slower.json"), "--format", "md", "--fail-on", "slower"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
  });

  test("stdout on a full device: one line, exit 1", () => {
    const r = spawnSync("bash", ["-c", `'${requireBinary()}' report '${bigResult()}' --format md > /dev/full`], { encoding: "utf8" });
    expect(r.stderr).toBe("xbench: cannot write to stdout: no space left on device (ENOSPC)\n");
    expect(r.status).toBe(1);
  });

  // --version and --version --verbose print before the full CLI loads (cli/fast.ts), by a path of their own.
  for (const args of [["--version"], ["--version", "--verbose"]]) {
    test(`${args.join(" ")} on a full device: one line, exit 1; into a reader that has gone: exit 0, nothing on stderr`, () => {
      const full = spawnSync("bash", ["-c", `'${requireBinary()}' ${args.join(" ")} > /dev/full`], { encoding: "utf8" });
      expect(full.stderr).toBe("xbench: cannot write to stdout: no space left on device (ENOSPC)\n");
      expect(full.status).toBe(1);
      // The reader (`true`) has exited before xbench starts: its write meets a closed pipe.
      const gone = spawnSync("bash", ["-c", `set -o pipefail; { sleep 0.5; '${requireBinary()}' ${args.join(" ")}; } | true`], {
        encoding: "utf8",
      });
      expect(gone.stderr).toBe("");
      expect(gone.status).toBe(0);
    });
  }
});
