import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateConfig, lastWorkspaceId, serializeConfig } from "./fixture.ts";
import { createConfigStore, type ConfigStore, type SnapshotPolicy, type StoreOptions } from "./store.ts";
import type { Config } from "./types.ts";

/**
 * The scenarios the benchmarks, the invariant tests and `xbench bench config` share,
 * and the counting harness that turns store counters into exact parses per save.
 */

export interface Fixture {
  size: number;
  dir: string;
  path: string;
  bytes: number;
  lastId: string;
}

/** Writes the seeded fixture of `size` workspaces to `<root>/<size>/config.json`. */
export function writeFixture(root: string, size: number): Fixture {
  const config = generateConfig({ workspaces: size });
  const dir = join(root, String(size));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "config.json");
  const text = serializeConfig(config);
  writeFileSync(path, text, { mode: 0o600 });
  return { size, dir, path, bytes: Buffer.byteLength(text), lastId: lastWorkspaceId(config) };
}

/** A temp folder for fixtures and its idempotent removal. */
export function fixtureRoot(prefix = "xbench-config-"): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  let removed = false;
  return {
    root,
    remove: () => {
      if (removed) return;
      removed = true;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * Calls `read` once on every event-loop turn (setImmediate), like the startup sweep that
 * reads the config between every step. Returns a stop function that resolves once the
 * loop has ended.
 */
export function readerOnEveryTurn(read: () => unknown): () => Promise<void> {
  let running = true;
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const turn = () => {
    if (!running) return ended();
    read();
    setImmediate(turn);
  };
  setImmediate(turn);
  return () => {
    running = false;
    return done;
  };
}

/** Sets one workspace's title to the value it already has: a full edit that changes nothing. */
export function sameValueEdit(store: ConfigStore, id: string): Promise<void> {
  return store.edit((draft: Config) => {
    for (const [, project] of draft.projects) {
      const ws = project.workspaces.find((w) => w.id === id);
      if (ws) {
        ws.title = `${ws.title ?? ""}`;
        return;
      }
    }
  });
}

/** One same-value edit while a reader loads the config on every turn, before, during and after it. */
export async function editWithReaderOnEveryTurn(store: ConfigStore, id: string): Promise<void> {
  const stop = readerOnEveryTurn(() => store.load());
  try {
    await sameValueEdit(store, id);
    // One more turn after the edit: the first reader after the save is part of its cost.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    await stop();
  }
}

export interface ParseCount {
  policy: SnapshotPolicy;
  edits: number;
  parses: number;
  saves: number;
  parsesPerSave: number;
}

/**
 * The counting harness: warms a store, then runs `edits` edits with a reader on every
 * turn and divides the exact parse count by the exact save count.
 */
export async function countParsesPerSave(
  path: string,
  id: string,
  policy: SnapshotPolicy,
  edits = 5,
  options: StoreOptions = {},
): Promise<ParseCount> {
  const store = createConfigStore(path, { ...options, policy });
  store.load();
  const before = { ...store.counters };
  for (let i = 0; i < edits; i++) await editWithReaderOnEveryTurn(store, id);
  const parses = store.counters.parses - before.parses;
  const saves = store.counters.saves - before.saves;
  return { policy, edits, parses, saves, parsesPerSave: saves ? parses / saves : Number.NaN };
}
