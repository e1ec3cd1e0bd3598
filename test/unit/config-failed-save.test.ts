/**
 * Invariant 4: a failed save clears the snapshot, so no reader sees an unsaved change,
 * even when the transform changed the shared snapshot in place and returned it.
 */
import { afterEach, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { createConfigStore } from "../../src/suites/config/store.ts";
import type { Config } from "../../src/suites/config/types.ts";
import { errno, firstWorkspace, firstWorkspaceOf, ioWith, smallFixture, type TestFixture } from "../support/config.ts";

let fx: TestFixture;
afterEach(() => fx?.remove());

test("drops the snapshot when a save fails", async () => {
  fx = smallFixture();
  const store = createConfigStore(fx.path, {
    io: ioWith({
      writeTemp: async () => {
        throw errno("ENOSPC");
      },
    }),
  });
  const saved = firstWorkspace(store.load()).title;
  await expect(
    store.edit(() => {
      // The bug class this guards: an edit that mutates the shared snapshot and returns it.
      const shared = store.load() as Config;
      firstWorkspaceOf(shared).title = "Unsaved";
      return shared;
    }),
  ).rejects.toThrow("ENOSPC");
  expect(firstWorkspace(store.load()).title).toBe(saved);
  expect(readdirSync(fx.dir).filter((n) => n.includes(".tmp-"))).toEqual([]);
});
