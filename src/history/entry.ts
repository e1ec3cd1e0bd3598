/**
 * One recorded commit of the history (docs/history.md): the compare of a commit against its
 * first parent, or why it could not be made. Stored as `<sha>.json` under refs/xbench/history.
 */
import { XbenchError } from "../errors.ts";
import type { CompareResult } from "../model/result.ts";
import { parseResult } from "../report/json.ts";

export const ENTRY_SCHEMA = "xbench/history-entry";
export const ENTRY_VERSION = 1;

export interface HistoryEntry {
  schema: typeof ENTRY_SCHEMA;
  schemaVersion: number;
  /** The commit measured (head) and its first parent (base). */
  commit: string;
  parent: string;
  /** When this recording finished (ISO 8601): of two recordings of one commit, the later is kept. */
  recordedAt: string;
  /** The compare, when it ran. */
  result?: CompareResult;
  /** Why there is no result (a build that failed, a bench process that could not start). */
  error?: string;
}

/** The file an entry is stored as. */
export function entryName(commit: string): string {
  return `${commit}.json`;
}

/** A stored entry's text back to an entry; one line naming the file when it is not one. */
export function parseEntry(text: string, where: string): HistoryEntry {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new XbenchError(`${where}: not JSON`, { kind: "failure" });
  }
  const entry = value as Partial<HistoryEntry> | null;
  if (!entry || entry.schema !== ENTRY_SCHEMA || typeof entry.commit !== "string" || typeof entry.recordedAt !== "string") {
    throw new XbenchError(`${where}: not an xbench history entry`, { kind: "failure" });
  }
  if ((entry.schemaVersion ?? 0) > ENTRY_VERSION) {
    throw new XbenchError(`${where}: written by a newer xbench (entry version ${entry.schemaVersion}); upgrade xbench`, {
      kind: "failure",
    });
  }
  const result = entry.result === undefined ? undefined : parseResult(JSON.stringify(entry.result), where);
  return { ...(entry as HistoryEntry), ...(result ? { result } : {}) };
}

/** Of two recordings of one commit, the one that finished later (the first on a tie: stable). */
export function newerEntry(a: HistoryEntry, b: HistoryEntry): HistoryEntry {
  return Date.parse(b.recordedAt) > Date.parse(a.recordedAt) ? b : a;
}
