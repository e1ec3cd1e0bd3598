/**
 * Invariant 2: a reader during an edit gets the committed pre-edit snapshot, never the
 * transform's object, until the saved file is on disk.
 */
import { afterEach, expect, test } from "bun:test";
import { readerOnEveryTurn } from "../../src/suites/config/harness.ts";
import { createConfigStore } from "../../src/suites/config/store.ts";
import { nodeIo } from "../../src/suites/config/io.ts";
import type { Config, ReadonlyConfig } from "../../src/suites/config/types.ts";
import { firstWorkspace, firstWorkspaceOf, ioWith, nextTurn, nodeIoRename, smallFixture, type TestFixture } from "../support/config.ts";

let fx: TestFixture;
afterEach(() => fx?.remove());

test("serves the committed snapshot, never the transform's object, to readers during an edit", async () => {
  fx = smallFixture();
  let renamed = false;
  const store = createConfigStore(fx.path, {
    io: ioWith({
      // A write that spans a turn, as an fsync to a real disk does (a fast one may not).
      async writeTemp(...args) {
        await nextTurn();
        return nodeIo.writeTemp(...args);
      },
      rename(from, to) {
        nodeIoRename(from, to);
        renamed = true;
      },
    }),
  });
  const committed = store.load();
  const title = firstWorkspace(committed).title;
  const beforeCommit: ReadonlyConfig[] = [];
  const stop = readerOnEveryTurn(() => {
    const seen = store.load();
    if (!renamed) beforeCommit.push(seen);
  });
  let draft: Config | undefined;
  await store.edit(async (d) => {
    draft = d;
    firstWorkspaceOf(d).title = "Draft title";
    for (let i = 0; i < 5; i++) await nextTurn(); // readers run while the draft is changed
  });
  await stop();
  expect(beforeCommit.length).toBeGreaterThan(5); // readers ran during the transform and the save
  for (const seen of beforeCommit) {
    // The committed content (whether served from the snapshot or parsed again is invariant 1's business).
    expect(seen).not.toBe(draft!);
    expect(firstWorkspace(seen).title).toBe(title);
    expect(seen).toEqual(committed);
  }
  expect(firstWorkspace(store.load()).title).toBe("Draft title");
});
