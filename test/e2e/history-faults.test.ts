/**
 * `xbench history record` and `xbench history` when things go wrong (docs/reliability.md,
 * docs/history.md): a failure of xbench's own never replaces a recorded entry, a git that cannot
 * store the entry keeps the measured rounds for `history record --resume`, Ctrl-C says how to
 * continue the record, and each unusable repository, ref, remote or entry is one line naming it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { COMPARE_ENV } from "../support/compare.ts";
import { waitFor } from "../support/procs.ts";
import { createRepo, workFiles, type TestRepo } from "../support/repo.ts";
import { requireBinary, startXbench, tempDir, xbench } from "../support/xbench.ts";

const SETTINGS = ["--rounds", "6", "--time", "20"];
let undo: Array<() => void> = [];
afterEach(() => {
  for (const step of undo.reverse()) step();
  undo = [];
});

/** A repository whose second commit makes `spin` do more work: a record of it measures rounds. */
function measuredCommit(): { repo: TestRepo; shas: string[] } {
  const repo = createRepo();
  undo.push(repo.cleanup);
  repo.write(workFiles("w.bench.ts", [{ label: "spin", work: 2000 }]));
  const first = repo.commit("bench");
  repo.write(workFiles("w.bench.ts", [{ label: "spin", work: 2200 }]));
  return { repo, shas: [first, repo.commit("more work")] };
}

function scratch(prefix: string): string {
  const { dir, cleanup } = tempDir(prefix);
  undo.push(cleanup);
  return dir;
}

const run = (cwd: string, args: string[]) => xbench(args, { cwd, env: COMPARE_ENV, timeout: 300_000 });
const errorLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("xbench: "));
const stored = (repo: TestRepo, sha: string) => JSON.parse(repo.git("cat-file", "blob", `refs/xbench/history:${sha}.json`));
const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean).length;

describe("nothing recorded is lost", () => {
  test("xbench failing on its own (ulimit -f 1) keeps the measured entry and says nothing was recorded", () => {
    const { repo, shas } = measuredCommit();
    expect(run(repo.dir, ["history", "record", ...SETTINGS]).code).toBe(0);
    const before = stored(repo, shas[1]!);
    expect(before.result).toBeDefined();
    const quoted = [requireBinary(), "history", "record", ...SETTINGS].map((a) => `'${a}'`).join(" ");
    const r = spawnSync("bash", ["-c", `ulimit -f 1; exec ${quoted}`], {
      cwd: repo.dir,
      env: COMPARE_ENV,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(r.status).toBe(1);
    const errors = errorLines(r.stderr);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toStartWith(`xbench: nothing recorded for ${shas[1]!.slice(0, 12)}: `);
    expect(stored(repo, shas[1]!)).toEqual(before);
  }, 300_000);

  test.skipIf(process.getuid?.() !== 0)(
    "a full .git/objects: nothing recorded, said in one line; freed, history record --resume stores the measured rounds without measuring again",
    () => {
      const { repo, shas } = measuredCommit();
      const objects = join(repo.dir, ".git", "objects");
      renameSync(objects, `${objects}.orig`);
      mkdirSync(objects);
      expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", objects]).status).toBe(0);
      undo.push(() => spawnSync("umount", ["-l", objects]));
      cpSync(`${objects}.orig`, objects, { recursive: true });
      const filler = join(objects, "filler");
      try {
        writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024));
      } catch {
        // full, as wanted
      }
      const r = run(repo.dir, ["history", "record", ...SETTINGS]);
      expect(r.code).toBe(1);
      const errors = errorLines(r.stderr);
      expect(errors).toHaveLength(1);
      const said = new RegExp(
        `^xbench: nothing recorded for ${shas[1]!.slice(0, 12)}: git hash-object failed: .*\\. The measured rounds are saved; once git can write again, store them with: xbench history record --resume (\\S+)$`,
      ).exec(errors[0]!);
      expect(said).not.toBeNull();
      const runDir = said![1]!;
      const measured = lines(join(runDir, "rounds.ndjson"));
      expect(measured).toBeGreaterThanOrEqual(6);
      expect(repo.git("for-each-ref", "refs/xbench")).toBe("");

      rmSync(filler);
      const resumed = run(repo.dir, ["history", "record", "--resume", runDir]);
      expect(resumed.code).toBe(0);
      expect(resumed.stderr).toContain("recorded in refs/xbench/history");
      expect(lines(join(runDir, "rounds.ndjson"))).toBe(measured);
      const entry = stored(repo, shas[1]!);
      expect(entry.parent).toBe(shas[0]);
      expect(entry.result.rows[0].status).toBe("ok");
    },
    300_000,
  );

  test("Ctrl-C of a record says to continue with history record --resume, which stores the entry", async () => {
    const { repo, shas } = measuredCommit();
    const recording = startXbench(["history", "record", "--rounds", "12", "--time", "150"], { cwd: repo.dir, env: COMPARE_ENV });
    undo.push(recording.kill);
    expect(await waitFor(() => /round 2\//.test(recording.stderr()), 120_000)).toBe(true);
    process.kill(-recording.pid, "SIGINT");
    expect(await recording.exited).toBe(130);
    const stderr = recording.stderr();
    const hint = /SIGINT: stopped\. Measured rounds are saved; continue with: xbench history record --resume (\S+)/.exec(stderr);
    expect(hint).not.toBeNull();
    expect(stderr).not.toContain("compare --resume");
    expect(repo.git("for-each-ref", "refs/xbench")).toBe("");
    const resumed = run(repo.dir, ["history", "record", "--resume", hint![1]!]);
    expect(resumed.code).toBe(0);
    expect(stored(repo, shas[1]!).result.rounds.completed).toBe(12);
    // A compare's run folder is no record's.
    const compared = run(repo.dir, ["compare", "--base", "HEAD", ...SETTINGS]);
    const compareDir = /run folder (\S+)/.exec(compared.stderr)![1]!;
    const wrong = run(repo.dir, ["history", "record", "--resume", compareDir]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      `xbench: ${compareDir} is a compare's run folder, not a history record's: continue it with xbench compare --resume ${compareDir}\n`,
    );
  }, 300_000);
});

describe("one line naming what is wrong", () => {
  test("a shallow clone whose commit's parent was not fetched says so and how to fetch it", () => {
    const { repo, shas } = measuredCommit();
    const clone = join(scratch("xbench-history-shallow-"), "clone");
    spawnSync("git", ["clone", "-q", "--depth", "1", `file://${repo.dir}`, clone]);
    const r = run(clone, ["history", "record", ...SETTINGS]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `xbench: ${shas[1]!.slice(0, 12)}'s parent is not in this clone (it is shallow, cut at ${shas[1]!.slice(0, 12)}): fetch it with git fetch --deepen=1, or all of the history with git fetch --unshallow\n`,
    );
  });

  test("a corrupt entry is a gap with one warning, the rest of the history shown", () => {
    const { repo, shas } = measuredCommit();
    repo.write({ "README.md": "docs\n" });
    const third = repo.commit("docs");
    expect(run(repo.dir, ["history", "record", "--commit", shas[1]!, ...SETTINGS]).code).toBe(0);
    expect(run(repo.dir, ["history", "record", ...SETTINGS]).code).toBe(0);
    // The entry of the middle commit replaced by text that is not JSON, with git's plumbing.
    const bad = spawnSync("git", ["hash-object", "-w", "--stdin"], { cwd: repo.dir, input: "{ torn", encoding: "utf8" }).stdout.trim();
    const listing = repo
      .git("ls-tree", "refs/xbench/history")
      .split("\n")
      .map((line) => (line.endsWith(`${shas[1]}.json`) ? line.replace(/blob [0-9a-f]+/, `blob ${bad}`) : line));
    const tree = spawnSync("git", ["mktree"], { cwd: repo.dir, input: `${listing.join("\n")}\n`, encoding: "utf8" }).stdout.trim();
    const commit = repo.git("commit-tree", tree, "-p", "refs/xbench/history", "-m", "corrupt");
    repo.git("update-ref", "refs/xbench/history", commit);
    const r = run(repo.dir, ["history", "--json", "-"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`refs/xbench/history:${shas[1]}.json: not JSON: read as a gap`);
    const report = JSON.parse(r.stdout) as { commits?: Array<{ sha: string }> };
    expect(JSON.stringify(report)).toContain(third);
  }, 300_000);

  test("a history ref that names a blob is one line, for reading and recording, before anything is measured", () => {
    const { repo } = measuredCommit();
    const blob = spawnSync("git", ["hash-object", "-w", "--stdin"], {
      cwd: repo.dir,
      input: "not a history",
      encoding: "utf8",
    }).stdout.trim();
    repo.git("update-ref", "refs/xbench/history", blob);
    const line = `xbench: refs/xbench/history names a blob (${blob.slice(0, 12)}), not a commit: it is no history xbench wrote; move it aside with git update-ref -d refs/xbench/history\n`;
    const read = run(repo.dir, ["history"]);
    expect(read.code).toBe(1);
    expect(read.stderr).toBe(line);
    const record = run(repo.dir, ["history", "record", ...SETTINGS]);
    expect(record.code).toBe(1);
    expect(record.stderr).toBe(line);
  });

  test("--push to a remote that does not exist, and to one whose hook refuses the push, each say so", () => {
    const { repo } = measuredCommit();
    const missing = run(repo.dir, ["history", "record", "--push", "nowhere", ...SETTINGS]);
    expect(missing.code).toBe(1);
    expect(errorLines(missing.stderr)).toEqual(["xbench: git fetch nowhere failed: 'nowhere' does not appear to be a git repository"]);

    const bare = join(scratch("xbench-history-hook-"), "remote.git");
    spawnSync("git", ["init", "-q", "--bare", bare]);
    const hook = join(bare, "hooks", "pre-receive");
    writeFileSync(hook, "#!/bin/sh\necho 'benchmarks are not welcome here' >&2\nexit 1\n");
    chmodSync(hook, 0o755);
    repo.git("remote", "add", "origin", bare);
    const refused = run(repo.dir, ["history", "record", "--push", "origin", ...SETTINGS]);
    expect(refused.code).toBe(1);
    const errors = errorLines(refused.stderr);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBe(
      "xbench: git push origin failed: [remote rejected] refs/xbench/history -> refs/xbench/history (pre-receive hook declined)",
    );
    expect(existsSync(join(bare, "refs", "xbench", "history"))).toBe(false);
  }, 300_000);
});
