/**
 * Invariant 1: with a reader on every event-loop turn, one edit parses the file as few
 * times as its design allows: the edit's own fresh read, plus (keep-matching) one read that
 * publishes the saved file. The store's default design publishes the object it saved and
 * gets 1; keep-matching gets exactly 2; the naive one 4 when a reader's turn falls
 * inside the save's write and inside its sync, fewer on a disk fast enough that none does.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { countParsesPerSave } from "../../src/suites/config/harness.ts";
import { createConfigStore } from "../../src/suites/config/store.ts";
import type { Config } from "../../src/suites/config/types.ts";
import { nodeIo } from "../../src/suites/config/io.ts";
import { firstWorkspace, firstWorkspaceOf, ioWith, nextTurn, onDisk, smallFixture, type TestFixture } from "../support/config.ts";

let fx: TestFixture;
afterEach(() => fx?.remove());

describe("parses per edit with a reader on every event-loop turn", () => {
  test("the store (publish-written) parses config.json once per edit", async () => {
    fx = smallFixture();
    expect(createConfigStore(fx.path).policy).toBe("publish-written");
    const count = await countParsesPerSave(fx.path, fx.lastId, "publish-written", 5);
    expect(count).toMatchObject({ saves: 5, parses: 5, parsesPerSave: 1 });
  });

  test("the keep-matching design parses config.json exactly twice per edit", async () => {
    fx = smallFixture();
    const count = await countParsesPerSave(fx.path, fx.lastId, "keep-matching", 5);
    expect(count).toMatchObject({ saves: 5, parses: 10, parsesPerSave: 2 });
  });

  // The naive store's extra parses happen only when a reader's turn falls inside the write
  // and inside the sync; on a fast disk Bun may finish both within one loop turn (CI saw
  // 19 of 20 once). A write and a sync that each span a turn make the count exact.
  test("the naive design (clear on every read-in-edit and save) parses 4 times per edit when the write and the sync each span a turn", async () => {
    fx = smallFixture();
    const io = ioWith({
      writeTemp: async (...args) => {
        await nextTurn();
        return nodeIo.writeTemp(...args);
      },
      syncDir: async (dir) => {
        await nextTurn();
        return nodeIo.syncDir(dir);
      },
    });
    const count = await countParsesPerSave(fx.path, fx.lastId, "clear-always", 5, { io });
    expect(count).toMatchObject({ saves: 5, parses: 20, parsesPerSave: 4 });
  });

  test("the naive design on the real disk parses 2 to 4 times per edit, never fewer than keep-matching", async () => {
    fx = smallFixture();
    const count = await countParsesPerSave(fx.path, fx.lastId, "clear-always", 5);
    expect(count.saves).toBe(5);
    expect(count.parses).toBeGreaterThanOrEqual(10);
    expect(count.parses).toBeLessThanOrEqual(20);
  });
});

/** Why publishing the saved object is safe: it is frozen and equal to what a parse of the file gives. */
describe("publishing the saved object", () => {
  test("the published snapshot is frozen and equal to a parse of the file on disk", async () => {
    fx = smallFixture();
    const store = createConfigStore(fx.path);
    store.load();
    let draft: Config | undefined;
    await store.edit((d) => {
      draft = d;
      firstWorkspaceOf(d).title = "published";
    });
    const parses = store.counters.parses;
    const snapshot = store.load();
    expect(store.counters.parses).toBe(parses); // served without a parse
    expect(snapshot).toBe(draft!);
    expect(Object.isFrozen(firstWorkspace(snapshot))).toBe(true);
    expect(snapshot).toEqual(onDisk(fx.path));
    expect(() => {
      firstWorkspaceOf(draft!).title = "changed after commit";
    }).toThrow(TypeError);
  });

  test("a draft that is not plain JSON is not published; a reader parses the file instead", async () => {
    fx = smallFixture();
    const store = createConfigStore(fx.path);
    store.load();
    await store.edit((d) => {
      (firstWorkspaceOf(d) as Record<string, unknown>).touchedAt = new Date(0); // JSON writes a string
      (firstWorkspaceOf(d) as Record<string, unknown>).gone = undefined; // JSON drops it
    });
    const parses = store.counters.parses;
    const snapshot = store.load();
    expect(store.counters.parses).toBe(parses + 1);
    expect(snapshot).toEqual(onDisk(fx.path));
    expect(firstWorkspace(snapshot).touchedAt).toBe(new Date(0).toISOString());
  });
});
