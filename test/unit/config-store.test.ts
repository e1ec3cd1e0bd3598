/** The store's other promises: mode kept, FIFO and cross-process edits, publishing, lookup, fixture. */
import { afterEach, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateConfig, serializeConfig } from "../../src/suites/config/fixture.ts";
import { freezeIfJsonPlain } from "../../src/suites/config/frozen.ts";
import { LockTimeoutError } from "../../src/suites/config/lock.ts";
import { createConfigStore } from "../../src/suites/config/store.ts";
import type { Config } from "../../src/suites/config/types.ts";
import { firstWorkspaceOf, onDisk, smallFixture, type TestFixture } from "../support/config.ts";

let fx: TestFixture;
afterEach(() => fx?.remove());

describe("saving", () => {
  test("keeps the file mode and leaves no temp or lock file", async () => {
    fx = smallFixture();
    chmodSync(fx.path, 0o640);
    const store = createConfigStore(fx.path);
    await store.edit((d) => void (firstWorkspaceOf(d).title = "mode"));
    expect(statSync(fx.path).mode & 0o777).toBe(0o640);
    expect(readdirSync(fx.dir)).toEqual(["config.json"]);
  });

  test("runs concurrent edits of one store in call order, each on the previous result", async () => {
    fx = smallFixture();
    const store = createConfigStore(fx.path);
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        store.edit(async (d) => {
          order.push(n);
          await new Promise((r) => setTimeout(r, 5 - n));
          firstWorkspaceOf(d).title = `${firstWorkspaceOf(d).title}+${n}`;
        }),
      ),
    );
    expect(order).toEqual([1, 2, 3, 4]);
    expect(firstWorkspaceOf(onDisk(fx.path)).title).toEndWith("+1+2+3+4");
  });

  test("serializes edits across processes with the lock file (no lost update)", async () => {
    fx = smallFixture();
    const child = (tag: string) =>
      new Promise<number | null>((resolve) => {
        const p = spawn(process.execPath, [join(import.meta.dir, "../fixtures/config/lock-child.ts"), fx.path, tag, "15"], {
          stdio: "inherit",
        });
        p.on("close", resolve);
      });
    expect(await Promise.all([child("a"), child("b")])).toEqual([0, 0]);
    const ids = onDisk(fx.path).projects[0]![1].workspaces.map((w) => w.id);
    expect(ids.filter((id) => /^[ab]-\d+$/.test(id)).length).toBe(30);
  });
});

describe("freezing", () => {
  test("freezeIfJsonPlain accepts exactly what JSON.parse can produce", () => {
    expect(freezeIfJsonPlain(JSON.parse('{"a":[1,"x",null,true,{"b":-1.5}]}'))).toBe(true);
    for (const bad of [
      { a: undefined },
      { a: NaN },
      { a: -0 },
      { a: new Date() },
      { a: new Map() },
      // biome-ignore lint/suspicious/noSparseArray: a hole is one of the values that are not JSON
      [1, , 2],
      { a: () => 1 },
      Object.create(null),
    ]) {
      expect(freezeIfJsonPlain(bad)).toBe(false);
    }
    const getter = Object.defineProperty({}, "a", { get: () => 1, enumerable: true });
    const hidden = Object.defineProperty({}, "a", { value: 1, enumerable: false });
    expect(freezeIfJsonPlain(getter)).toBe(false);
    expect(freezeIfJsonPlain(hidden)).toBe(false);
    expect(freezeIfJsonPlain({ [Symbol("s")]: 1 })).toBe(false);
  });
});

describe("lookup and fixture", () => {
  test("finds a workspace by id from the snapshot and lists metadata", () => {
    fx = smallFixture(500);
    const store = createConfigStore(fx.path);
    const found = store.findWorkspace(fx.lastId);
    expect(found?.workspace.id).toBe(fx.lastId);
    expect(store.findWorkspace("nope")).toBeNull();
    expect(store.counters.parses).toBe(1);
    const all = store.allWorkspaceMetadata();
    expect(all.length).toBe(500);
    expect(all.filter((m) => m.archived).length).toBeGreaterThan(250);
  });

  test("the seeded fixture is deterministic and live-shaped: 19 projects, 57% archived, ~8.5 MB at 4712", () => {
    const a = serializeConfig(generateConfig({ workspaces: 4712 }));
    expect(serializeConfig(generateConfig({ workspaces: 4712 }))).toBe(a);
    const config = JSON.parse(a) as Config;
    const rows = config.projects.flatMap(([, p]) => p.workspaces);
    expect(config.projects.length).toBe(19);
    expect(rows.length).toBe(4712);
    expect(rows.filter((w) => w.archivedAt).length).toBe(Math.round(0.57 * 4712));
    expect(Buffer.byteLength(a) / 1e6).toBeGreaterThan(8);
    expect(Buffer.byteLength(a) / 1e6).toBeLessThan(9);
    expect(rows.some((w) => (w.lastError?.length ?? 0) > 4000)).toBe(true);
    expect(rows.every((w) => Object.keys(w.aiSettingsByAgent ?? {}).length >= 2)).toBe(true);
  });
});

describe("lock file", () => {
  test("takes over a lock whose owner is dead, and waits for a live one", async () => {
    fx = smallFixture();
    writeFileSync(`${fx.path}.lock`, "4194303"); // above Linux's default pid_max: no such process
    const store = createConfigStore(fx.path, { lockTimeoutMs: 2_000 });
    await store.edit((d) => void (firstWorkspaceOf(d).title = "after takeover"));
    expect(firstWorkspaceOf(onDisk(fx.path)).title).toBe("after takeover");
    expect(readdirSync(fx.dir)).toEqual(["config.json"]);

    writeFileSync(`${fx.path}.lock`, String(process.pid)); // alive: must not be taken over
    const waiting = createConfigStore(fx.path, { lockTimeoutMs: 200 });
    await expect(waiting.edit(() => {})).rejects.toBeInstanceOf(LockTimeoutError);
    expect(readFileSync(`${fx.path}.lock`, "utf8")).toBe(String(process.pid));
  });
});
