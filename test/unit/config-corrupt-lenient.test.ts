/**
 * Invariant 6: corrupt files are backed up once (config.json.corrupt-*) and refused for
 * edits until fixed; lenient loads never satisfy strict reads; stat failures are misses.
 */
import { afterEach, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { corruptBackups } from "../../src/suites/config/corrupt.ts";
import { ConfigEditRefusedError, ConfigReadError } from "../../src/suites/config/errors.ts";
import { serializeConfig } from "../../src/suites/config/fixture.ts";
import { createConfigStore } from "../../src/suites/config/store.ts";
import { firstWorkspaceOf, ioWith, onDisk, smallFixture, type TestFixture } from "../support/config.ts";

let fx: TestFixture;
afterEach(() => fx?.remove());

test("backs up a corrupt file once, refuses edits, and accepts them again once it is fixed", async () => {
  fx = smallFixture();
  const good = readFileSync(fx.path, "utf8");
  const store = createConfigStore(fx.path);
  store.load();
  const corrupt = good.slice(0, good.length / 2);
  writeFileSync(fx.path, corrupt);
  expect(() => store.load()).toThrow(ConfigReadError);
  expect(() => store.load()).toThrow(/corrupt/);
  await expect(store.edit((d) => void (firstWorkspaceOf(d).title = "x"))).rejects.toBeInstanceOf(ConfigEditRefusedError);
  const backups = corruptBackups(fx.path);
  expect(backups.length).toBe(1);
  expect(readFileSync(backups[0]!, "utf8")).toBe(corrupt);
  expect(readFileSync(fx.path, "utf8")).toBe(corrupt); // no defaults written over it

  writeFileSync(fx.path, good);
  await store.edit((d) => void (firstWorkspaceOf(d).title = "fixed"));
  expect(firstWorkspaceOf(onDisk(fx.path)).title).toBe("fixed");
  expect(corruptBackups(fx.path).length).toBe(1);
});

test("does not reuse a lenient structurally invalid load for a strict read", () => {
  fx = smallFixture();
  const config = onDisk(fx.path);
  delete (firstWorkspaceOf(config) as { id?: string }).id;
  writeFileSync(fx.path, serializeConfig(config));
  const store = createConfigStore(fx.path);
  const lenient = store.loadLenient();
  const rows = (c: typeof lenient) => c.projects.reduce((n, [, p]) => n + p.workspaces.length, 0);
  expect(rows(lenient)).toBe(fx.size - 1);
  expect(store.snapshotKey()).toBeNull();
  expect(() => store.load()).toThrow(ConfigReadError);
});

test("treats stat failures as cache misses", () => {
  fx = smallFixture();
  const store = createConfigStore(fx.path, { io: ioWith({ stat: () => null }) });
  store.load();
  store.load();
  expect(store.counters.parses).toBe(2);
});

test("does not reuse a cached snapshot after the file disappears", () => {
  fx = smallFixture();
  const store = createConfigStore(fx.path);
  expect(store.load().projects.length).toBeGreaterThan(0);
  rmSync(fx.path);
  expect(store.load().projects).toEqual([]);
});
