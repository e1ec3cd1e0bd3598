import { dirname } from "node:path";
import { backupCorruptFile } from "./corrupt.ts";
import { ConfigEditRefusedError, ConfigReadError, InvalidEditError } from "./errors.ts";
import { freezeIfJsonPlain } from "./frozen.ts";
import { nodeIo, type StoreIo } from "./io.ts";
import { acquireFileLock, createQueue } from "./lock.ts";
import { allWorkspaceMetadata, indexWorkspaces, type WorkspaceMetadata, type WorkspaceRef } from "./lookup.ts";
import { sameWrittenFile, type FileIdentity, type StatKey } from "./stat-key.ts";
import { removeDeadTemps, tempName } from "./temp.ts";
import { emptyConfig, type Config, type ReadonlyConfig } from "./types.ts";
import { validateConfig } from "./validate.ts";

/**
 * How an edit treats the shared snapshot. With a reader on every event-loop turn, one
 * edit costs this many parses of the file:
 * - "clear-always" (4): the naive store; the edit's read and the save's end both clear it
 *   (fewer where the save's write or folder sync finishes within one event-loop turn).
 * - "keep-matching" (2): keep any snapshot whose stat key still matches: a snapshot stays a
 *   committed parse of the bytes on disk, so the save's new bytes need one reader parse.
 * - "publish-written" (1): also publish the saved object itself when the path provably
 *   holds the bytes just written and the object is frozen plain JSON (see frozen.ts).
 */
export type SnapshotPolicy = "clear-always" | "keep-matching" | "publish-written";

export const PARSES_PER_EDIT: Record<SnapshotPolicy, number> = {
  "clear-always": 4,
  "keep-matching": 2,
  "publish-written": 1,
};

export interface StoreOptions {
  policy?: SnapshotPolicy;
  io?: StoreIo;
  lockTimeoutMs?: number;
}

/** Exact counts, for the counting harness (parses per save). */
export interface StoreCounters {
  /** Every JSON.parse of the file, by readers and edits. */
  parses: number;
  /** The parses done by edits for their own fresh read. */
  editParses: number;
  /** Completed renames of a saved file over the config path. */
  saves: number;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a transform may edit the draft in place and return nothing
export type Transform = (draft: Config) => Config | void | Promise<Config | void>;

export interface ConfigStore {
  readonly path: string;
  readonly policy: SnapshotPolicy;
  readonly counters: StoreCounters;
  /** Strict read: the snapshot while it matches the file; throws ConfigReadError on a bad file. */
  load(): ReadonlyConfig;
  /** Best effort: drops invalid rows instead of throwing; never cached, never served to load(). */
  loadLenient(): ReadonlyConfig;
  findWorkspace(id: string): WorkspaceRef | null;
  allWorkspaceMetadata(): WorkspaceMetadata[];
  /**
   * Locks, parses the file fresh, runs `transform` on that private copy, saves atomically.
   * The draft belongs to the store once the transform returns: with "publish-written" it is
   * frozen and becomes the snapshot readers share.
   */
  edit(transform: Transform): Promise<void>;
  /** The stat key of the snapshot held now, or null (for tests and the harness). */
  snapshotKey(): StatKey | null;
}

interface Held {
  key: StatKey;
  config: ReadonlyConfig;
  index: Map<string, WorkspaceRef> | null;
}

type FreshRead =
  | { kind: "ok"; config: Config; identity: FileIdentity }
  | { kind: "missing"; config: Config }
  | { kind: "corrupt"; lenient: Config; error: ConfigReadError };

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

export function createConfigStore(path: string, options: StoreOptions = {}): ConfigStore {
  const policy = options.policy ?? "publish-written";
  const io = options.io ?? nodeIo;
  const counters: StoreCounters = { parses: 0, editParses: 0, saves: 0 };
  const queue = createQueue();
  const backedUp = new Set<string>();
  let snapshot: Held | null = null;
  /** The last fresh read's failure; only a later successful fresh read clears it. */
  let failure: ConfigReadError | null = null;
  /** Whether this store has removed the temp files of crashed writers yet (once, under the lock). */
  let swept = false;

  function recordFailure(error: ConfigReadError): void {
    failure = error;
    snapshot = null;
  }

  /** Reads and parses the file; `publish` stores a strict, cacheable result as the snapshot. */
  function readFresh(publish: boolean): FreshRead {
    let file: ReturnType<StoreIo["readFile"]>;
    try {
      file = io.readFile(path);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") {
        failure = null;
        return { kind: "missing", config: emptyConfig() };
      }
      const unreadable = new ConfigReadError("unreadable", `cannot read ${path}: ${(error as Error).message}`, null, { cause: error });
      recordFailure(unreadable);
      throw unreadable;
    }
    counters.parses++;
    let value: unknown;
    let problem: string | null = null;
    try {
      value = JSON.parse(file.text);
    } catch (error) {
      problem = `invalid JSON (${(error as Error).message})`;
    }
    const validation = problem === null ? validateConfig(value) : null;
    if (validation?.ok) {
      failure = null;
      if (publish) snapshot = { key: file.identity.key, config: validation.config, index: null };
      return { kind: "ok", config: validation.config, identity: file.identity };
    }
    const reason = validation ? validation.reason : problem!;
    const backup = backupCorruptFile(path, file.identity.key, backedUp);
    const error = new ConfigReadError("corrupt", `${path} is corrupt: ${reason}${backup ? `; backed up to ${backup}` : ""}`, backup);
    recordFailure(error);
    return { kind: "corrupt", lenient: validation ? validation.lenient : emptyConfig(), error };
  }

  function current(): Held | null {
    const identity = io.stat(path);
    // A stat failure is a miss: never serve a snapshot for a file we cannot see.
    return identity && snapshot && snapshot.key === identity.key ? snapshot : null;
  }

  function load(): ReadonlyConfig {
    const held = current();
    if (held) return held.config;
    const read = readFresh(true);
    if (read.kind === "corrupt") throw read.error;
    return read.config;
  }

  function loadLenient(): ReadonlyConfig {
    const held = current();
    if (held) return held.config;
    const read = readFresh(true);
    return read.kind === "corrupt" ? read.lenient : read.config;
  }

  function indexed(): Map<string, WorkspaceRef> {
    const config = load();
    const held = snapshot;
    if (held && held.config === config) return (held.index ??= indexWorkspaces(config));
    return indexWorkspaces(config); // missing file: nothing cached, nothing to index
  }

  async function save(result: Config, mode: number): Promise<void> {
    // Frozen before serializing: nothing can change the object between the bytes and the snapshot.
    const publishable = policy === "publish-written" && freezeIfJsonPlain(result);
    const text = `${JSON.stringify(result, null, 2)}\n`;
    const temp = tempName(path);
    try {
      const written = await io.writeTemp(temp, text, mode);
      io.rename(temp, path);
      counters.saves++;
      // Same turn as the rename, so no reader can see the new file without its snapshot.
      const after = publishable ? io.stat(path) : null;
      if (after && sameWrittenFile(written, after)) snapshot = { key: after.key, config: result, index: null };
    } catch (error) {
      io.remove(temp);
      // The transform may have changed the shared snapshot in place; never serve that.
      snapshot = null;
      throw error;
    }
    await io.syncDir(dirname(path));
    // Keep a snapshot only if it describes the file on disk now, whoever parsed or wrote it:
    // another writer may have replaced the file since our rename.
    const now = io.stat(path);
    if (policy === "clear-always" || !snapshot || !now || snapshot.key !== now.key) snapshot = null;
  }

  async function edit(transform: Transform): Promise<void> {
    await queue(async () => {
      const release = await acquireFileLock(`${path}.lock`, { timeoutMs: options.lockTimeoutMs });
      try {
        // Under the lock no live writer of ours is mid-save: what a dead one left can go.
        if (!swept) {
          swept = true;
          removeDeadTemps(path);
        }
        // The gate: a failure recorded by an earlier read blocks edits until a read succeeds.
        try {
          load();
        } catch (error) {
          throw error instanceof ConfigReadError ? new ConfigEditRefusedError(error) : error;
        }
        if (failure) throw new ConfigEditRefusedError(failure);
        if (policy === "clear-always") snapshot = null;
        const fresh = readFresh(false);
        if (fresh.kind === "corrupt") throw new ConfigEditRefusedError(fresh.error);
        if (fresh.kind === "ok") counters.editParses++;
        const draft = fresh.config;
        const result = (await transform(draft)) ?? draft;
        const validation = validateConfig(result);
        if (!validation.ok) throw new InvalidEditError(`edit would save an invalid config: ${validation.reason}`);
        await save(result, fresh.kind === "ok" ? fresh.identity.mode : 0o600);
      } finally {
        release();
      }
    });
  }

  return {
    path,
    policy,
    counters,
    load,
    loadLenient,
    findWorkspace: (id) => indexed().get(id) ?? null,
    allWorkspaceMetadata: () => allWorkspaceMetadata(load()),
    edit,
    snapshotKey: () => snapshot?.key ?? null,
  };
}
