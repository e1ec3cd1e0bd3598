/**
 * Recorded history without measuring: entries of a known shape, written into a temporary
 * repository's refs/xbench/history with the store xbench itself uses, so `xbench history`
 * reads data whose moves and gaps are known exactly (for the page's tests and its screenshot).
 */
import { readFileSync } from "node:fs";
import { join } from "pathe";
import { ENTRY_SCHEMA, type HistoryEntry } from "../../src/history/entry.ts";
import { storeEntry } from "../../src/history/store.ts";
import type { CompareResult, Row } from "../../src/model/result.ts";
import { createRepo, type TestRepo } from "./repo.ts";
import { ROOT } from "./xbench.ts";

const TEMPLATE = join(ROOT, "test", "fixtures", "slower-result.json");

/** A row's step at one commit: a change with its interval's half-width, or the same code. */
export type KnownRowStep = { delta: number; halfWidth: number } | "unchanged";

/** A timed row as compare writes one, with `delta` and an interval of ±halfWidth around it. */
function row(file: string, label: string, step: KnownRowStep): Row {
  const id = `${file.split("/").pop()!.split(".")[0]}-00000000: ${label}`;
  if (step === "unchanged") return { id, file, label, unit: "ns", status: "unchanged", base: [], head: [] };
  const { delta, halfWidth } = step;
  const ci: [number, number] = [delta - halfWidth, delta + halfWidth];
  const rounds = Array.from({ length: 10 }, () => 1000);
  const stats = {
    n: 10,
    delta,
    ci,
    verdict: "~" as const,
    baseMedian: 1000,
    headMedian: 1000 * (1 + delta),
    ratioMedian: delta,
    ratioQ1: delta,
    ratioQ3: delta,
    level: 0.95,
    halfWidth,
    method: "signed-rank" as const,
  };
  return { id, file, label, unit: "ns", status: "ok", mode: "duet", base: rounds, head: rounds.map((v) => v * (1 + delta)), stats };
}

export interface KnownHistory {
  repo: TestRepo;
  shas: string[];
}

/**
 * A repository of `count` commits; commit i (from 1) is recorded with `steps(i)` per row
 * (`rows` names them: file and label), or left unrecorded when `steps(i)` is undefined.
 */
export function knownHistory(
  count: number,
  rows: Array<{ file: string; label: string }>,
  steps: (index: number) => KnownRowStep[] | undefined,
): KnownHistory {
  const repo = createRepo();
  const shas: string[] = [];
  for (let i = 0; i < count; i++) {
    repo.write({ "README.md": `commit ${i}\n` });
    shas.push(repo.commit(i === 0 ? "start" : `change ${i}`));
  }
  const template = JSON.parse(readFileSync(TEMPLATE, "utf8")) as CompareResult;
  for (let i = 1; i < count; i++) {
    const known = steps(i);
    if (!known) continue;
    const result: CompareResult = { ...template, gate: undefined, rows: rows.map((r, k) => row(r.file, r.label, known[k]!)) };
    const entry: HistoryEntry = {
      schema: ENTRY_SCHEMA,
      schemaVersion: 1,
      commit: shas[i]!,
      parent: shas[i - 1]!,
      recordedAt: new Date().toISOString(),
      result,
    };
    storeEntry(repo.dir, entry);
  }
  return { repo, shas };
}
