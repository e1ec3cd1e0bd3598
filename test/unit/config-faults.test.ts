/**
 * The store under crashes and full disks: a lock is never left empty and one
 * whose owner is unreadable or dead is taken over at once; temp files are unique without the
 * pid alone and a dead writer's are removed; one corrupt backup per distinct content, across
 * processes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { corruptBackups } from "../../src/suites/config/corrupt.ts";
import { nodeIo, type StoreIo } from "../../src/suites/config/io.ts";
import { createConfigStore } from "../../src/suites/config/store.ts";
import { processStart } from "../../src/util/proc.ts";
import { firstWorkspaceOf, onDisk, smallFixture, type TestFixture } from "../support/config.ts";

let fx: TestFixture;
afterEach(() => fx?.remove());

const CHILD = join(import.meta.dir, "../fixtures/config/crash-child.ts");

/** Runs the child helper; `limitFileSize` runs it with no room to write (as on a full disk). */
function child(what: "edit" | "load", path: string, options: { limitFileSize?: boolean } = {}) {
  const argv = [process.execPath, CHILD, what, path].map((a) => `'${a}'`).join(" ");
  // RLIMIT_FSIZE 0 with SIGXFSZ ignored: every write that would grow a file fails (EFBIG),
  // while creating empty files still works, exactly what a full disk does to a small write.
  const script = options.limitFileSize ? `trap '' XFSZ; ulimit -f 0; exec ${argv}` : `exec ${argv}`;
  const r = spawnSync("sh", ["-c", script], { encoding: "utf8" });
  return { code: r.status, out: r.stdout.trim(), err: r.stderr };
}

/** A pid that belonged to a process which has exited (and was reaped). */
function deadPid(): number {
  return spawnSync("true").pid!;
}

async function editWorks(path: string, title: string): Promise<void> {
  const store = createConfigStore(path, { lockTimeoutMs: 2_000 });
  await store.edit((d) => void (firstWorkspaceOf(d).title = title));
  expect(firstWorkspaceOf(onDisk(path)).title).toBe(title);
}

describe("lock file (item 9)", () => {
  test("an edit that cannot write (full disk) leaves no lock file, and the next edit takes the lock at once", async () => {
    fx = smallFixture();
    const r = child("edit", fx.path, { limitFileSize: true });
    expect(r.code).toBe(1);
    expect(r.out).toBe("EFBIG");
    expect(readdirSync(fx.dir)).toEqual(["config.json"]);
    await editWorks(fx.path, "after the full disk");
  });

  test.each([
    ["empty (a lock from before this fix, left by a full disk)", ""],
    ["garbage", "not a pid\n"],
  ])("a lock file whose owner cannot be read, %s, is taken over at once", async (_, text) => {
    fx = smallFixture();
    writeFileSync(`${fx.path}.lock`, text);
    await editWorks(fx.path, "taken over");
    expect(readdirSync(fx.dir)).toEqual(["config.json"]);
  });

  test("a lock of a dead owner whose pid is now in use (our own, another start time) is taken over", async () => {
    fx = smallFixture();
    expect(processStart(process.pid)).toBeDefined();
    writeFileSync(`${fx.path}.lock`, `${process.pid} 1`);
    await editWorks(fx.path, "pid reused");
  });
});

describe("temp files (item 10)", () => {
  test("a dead writer's temp files are removed, and one with our own pid from before we started does not clash", async () => {
    fx = smallFixture();
    const stale = [`config.json.tmp-${deadPid()}-1`, `config.json.tmp-${process.pid}-1`, `config.json.lock.tmp-${deadPid()}-a1b2`];
    for (const name of stale) writeFileSync(join(fx.dir, name), "x".repeat(2 * 1024 * 1024));
    const past = new Date("2001-01-01T00:00:00Z");
    utimesSync(join(fx.dir, stale[1]!), past, past); // a previous process with our pid (a container restart)
    const live = `config.json.tmp-${process.ppid}-1`; // a live writer's: must stay
    writeFileSync(join(fx.dir, live), "");
    await editWorks(fx.path, "after the crash");
    expect(readdirSync(fx.dir).sort()).toEqual(["config.json", live]);
  });

  test("temp names are unique per save, not the pid and a counter a new process would repeat", async () => {
    fx = smallFixture();
    const names: string[] = [];
    const recording: StoreIo = { ...nodeIo, writeTemp: (temp, text, mode) => (names.push(temp), nodeIo.writeTemp(temp, text, mode)) };
    await createConfigStore(fx.path, { io: recording }).edit((d) => void (firstWorkspaceOf(d).title = "one"));
    await createConfigStore(fx.path, { io: recording }).edit((d) => void (firstWorkspaceOf(d).title = "two"));
    expect(names).toHaveLength(2);
    expect(names[0]).not.toBe(names[1]); // a new store (a new process with the same pid) picks a new name
    for (const name of names) expect(name).toMatch(new RegExp(`config\\.json\\.tmp-${process.pid}-[0-9a-f]{12}$`));
  });
});

describe("corrupt backups (item 11)", () => {
  test("one backup per distinct corrupt content, however many processes read it", () => {
    fx = smallFixture();
    const good = readFileSync(fx.path, "utf8");
    writeFileSync(fx.path, good.slice(0, 1000));
    for (let i = 0; i < 3; i++) expect(child("load", fx.path).out).toBe("ConfigReadError");
    expect(() => createConfigStore(fx.path).load()).toThrow(/corrupt/);
    expect(corruptBackups(fx.path)).toHaveLength(1);
    expect(readFileSync(corruptBackups(fx.path)[0]!, "utf8")).toBe(good.slice(0, 1000));

    writeFileSync(fx.path, good.slice(0, 2000)); // another corrupt version
    expect(child("load", fx.path).out).toBe("ConfigReadError");
    expect(child("load", fx.path).out).toBe("ConfigReadError");
    const backups = corruptBackups(fx.path);
    expect(backups).toHaveLength(2);
    expect(readFileSync(backups[1]!, "utf8")).toBe(good.slice(0, 2000));
    expect(readdirSync(fx.dir).filter((n) => n.includes(".tmp-"))).toEqual([]);
  });
});
