/**
 * Invariant 5: a snapshot is served only for the file it was parsed from (or, for the
 * published save, the inode just written); an atomic replacement by another writer is
 * seen, even with the same size and mtime, and even between our rename and the save's end.
 */
import { afterEach, expect, test } from "bun:test";
import { renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createConfigStore } from "../../src/suites/config/store.ts";
import { serializeConfig } from "../../src/suites/config/fixture.ts";
import { firstWorkspace, firstWorkspaceOf, ioWith, nodeIoSyncDir, onDisk, smallFixture, type TestFixture } from "../support/config.ts";

let fx: TestFixture;
afterEach(() => fx?.remove());

/** Another process's atomic write: temp file, then rename over config.json. */
function externalReplace(path: string, text: string, mtime?: Date): void {
  writeFileSync(`${path}.ext`, text);
  if (mtime) utimesSync(`${path}.ext`, mtime, mtime);
  renameSync(`${path}.ext`, path);
}

test("invalidates on atomic external replacement, including same-size bytes and mtime", () => {
  fx = smallFixture();
  const when = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  utimesSync(fx.path, when, when);
  const store = createConfigStore(fx.path);
  const before = store.load();
  const config = onDisk(fx.path);
  const title = firstWorkspaceOf(config).title!;
  firstWorkspaceOf(config).title = title.replace(/.$/, (c) => (c === "x" ? "y" : "x")); // same length
  const size = statSync(fx.path).size;
  externalReplace(fx.path, serializeConfig(config), when);
  expect(statSync(fx.path).size).toBe(size);
  expect(statSync(fx.path).mtimeMs).toBe(when.getTime());
  const after = store.load();
  expect(after).not.toBe(before);
  expect(firstWorkspace(after).title).toBe(firstWorkspaceOf(config).title);
});

test("sees an external atomic replacement between our rename and the save's completion", async () => {
  fx = smallFixture();
  const path = fx.path;
  const external = onDisk(path);
  firstWorkspaceOf(external).title = "External atomic title";
  const store = createConfigStore(path, {
    io: ioWith({
      async syncDir(dir) {
        externalReplace(path, serializeConfig(external)); // lands after our rename
        await nodeIoSyncDir(dir);
      },
    }),
  });
  store.load();
  await store.edit((d) => void (firstWorkspaceOf(d).title = "API title"));
  expect(firstWorkspace(store.load()).title).toBe("External atomic title");
});
