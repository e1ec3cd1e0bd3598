/** Shared setup of the config-store tests: a small seeded fixture and fault injection. */
import { readFileSync } from "node:fs";
import { fixtureRoot, writeFixture, type Fixture } from "../../src/suites/config/harness.ts";
import { nodeIo, type StoreIo } from "../../src/suites/config/io.ts";
import type { Config, ReadonlyConfig } from "../../src/suites/config/types.ts";

export interface TestFixture extends Fixture {
  remove: () => void;
}

/** A fresh 50-workspace fixture in its own temp folder. */
export function smallFixture(size = 50): TestFixture {
  const { root, remove } = fixtureRoot("xbench-config-test-");
  return { ...writeFixture(root, size), remove };
}

export function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected`), { code });
}

/** nodeIo with some operations replaced. */
export function ioWith(overrides: Partial<StoreIo>): StoreIo {
  return { ...nodeIo, ...overrides };
}

export function firstWorkspace(config: ReadonlyConfig): ReadonlyConfig["projects"][number][1]["workspaces"][number] {
  return config.projects[0]![1].workspaces[0]!;
}

export function firstWorkspaceOf(config: Config) {
  return config.projects[0]![1].workspaces[0]!;
}

export function onDisk(path: string): Config {
  return JSON.parse(readFileSync(path, "utf8")) as Config;
}

export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export const nodeIoRename = nodeIo.rename;
export const nodeIoReadFile = nodeIo.readFile;
export const nodeIoSyncDir = nodeIo.syncDir;
