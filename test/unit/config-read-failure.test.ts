/**
 * Invariant 3: after a failed read inside an edit, the next edit succeeds without a file
 * change or a restart (only a successful read gives the snapshot back; a recorded failure
 * is cleared only by a fresh successful read).
 */
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ConfigReadError } from "../../src/suites/config/errors.ts";
import { createConfigStore } from "../../src/suites/config/store.ts";
import { errno, firstWorkspaceOf, ioWith, nodeIoReadFile, onDisk, smallFixture, type TestFixture } from "../support/config.ts";

let fx: TestFixture;
afterEach(() => fx?.remove());

test("accepts the next edit after the edit's own read fails once (EIO) on a warm snapshot", async () => {
  fx = smallFixture();
  let failNextRead = false;
  const store = createConfigStore(fx.path, {
    io: ioWith({
      readFile(path) {
        if (failNextRead) {
          failNextRead = false;
          throw errno("EIO");
        }
        return nodeIoReadFile(path);
      },
    }),
  });
  store.load(); // warm snapshot
  const bytes = readFileSync(fx.path, "utf8");
  failNextRead = true; // the gate hits the snapshot, so the edit's own fresh read is the one that fails
  await expect(store.edit((d) => void (firstWorkspaceOf(d).title = "lost"))).rejects.toBeInstanceOf(ConfigReadError);
  expect(readFileSync(fx.path, "utf8")).toBe(bytes); // nothing written

  await store.edit((d) => void (firstWorkspaceOf(d).title = "after EIO"));
  expect(firstWorkspaceOf(onDisk(fx.path)).title).toBe("after EIO");
});
