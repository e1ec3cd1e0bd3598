/**
 * Splitting a compare across CI runners by bench file, and merging the shards' results into
 * one table. Pure: data in, data out.
 *
 * Shards split files, never rows of one file and never rounds of one row: each row is
 * measured on one machine, its rounds paired within it, so merging pools nothing. Every shard
 * lists the same files with the same row counts (the same commits, the same inventory), so
 * each can compute the whole assignment by itself and keep its part.
 */
import { createHash } from "node:crypto";
import { usageError } from "../errors.ts";
import type { CompareResult, ResultSettings } from "../model/result.ts";
import type { RunSettings } from "./run/store.ts";

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** `I/N` as typed after --shard. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = match ? Number(match[1]) : Number.NaN;
  const count = match ? Number(match[2]) : Number.NaN;
  if (!match || count < 1 || index < 1 || index > count || count > 256) {
    throw usageError(`--shard must be I/N with 1 <= I <= N <= 256, like 2/4 (got ${text})`);
  }
  return { index, count };
}

const stableKey = (file: string) => createHash("sha256").update(file).digest("hex");

/**
 * Which shard measures each file: heaviest first (rows to measure), each to the least loaded
 * shard, ties broken by a hash of the path and then the lowest shard. Deterministic for a
 * given list, whatever order it comes in.
 */
export function assignShards(files: ReadonlyArray<{ file: string; weight: number }>, count: number): Map<string, number> {
  const ordered = [...files].sort((a, b) => b.weight - a.weight || (stableKey(a.file) < stableKey(b.file) ? -1 : 1));
  const load = new Array<number>(count).fill(0);
  const assigned = new Map<string, number>();
  for (const { file, weight } of ordered) {
    let least = 0;
    for (let s = 1; s < count; s++) if (load[s]! < load[least]!) least = s;
    // A file with nothing to measure (unchanged code) still needs a home for its rows.
    load[least]! += Math.max(weight, 0.001);
    assigned.set(file, least + 1);
  }
  return assigned;
}

/** The settings a result records, from its run's plan. */
export function resultSettings(plan: RunSettings): ResultSettings {
  return {
    isolate: plan.isolate,
    // Only a --time the user gave: the time xbench fits to each shard's own files may differ.
    ...(plan.budgetFixed ? { timeMs: plan.budget.sideNs / 1e6 } : {}),
    timeoutS: plan.timeoutS,
    all: plan.all ?? false,
    install: plan.install,
    ...(plan.build !== undefined ? { build: plan.build } : {}),
    ...(plan.filter !== undefined ? { filter: plan.filter } : {}),
  };
}

const orNone = (value: unknown) => (value === undefined ? "none" : String(value));
const percentOrNone = (fraction: number | undefined) => (fraction === undefined ? "none" : `${+(fraction * 100).toFixed(4)}%`);

/** What must agree across shards for their rows to make one table; settings by the flag that sets them. */
function identity(result: CompareResult): Record<string, string> {
  const settings = result.settings;
  const setting = (key: keyof ResultSettings) => (settings ? orNone(settings[key]) : "not recorded");
  return {
    "base commit": result.base.sha,
    "head commit": result.head.sha,
    "xbench version": result.xbenchVersion,
    runtime: result.runtime,
    "shard count": String(result.shard?.count ?? "none"),
    "--holm": String(result.holm),
    "--min-effect": percentOrNone(result.minEffect),
    "--rounds": String(result.rounds.requested),
    "--target": percentOrNone(result.rounds.targetHalfWidth),
    "--max-time": orNone(result.rounds.maxTimeS),
    "--isolate": setting("isolate"),
    "--time": setting("timeMs"),
    "--timeout": setting("timeoutS"),
    "--all": setting("all"),
    "--install": setting("install"),
    "--build": setting("build"),
    "the filter": setting("filter"),
  };
}

/**
 * One result from the shards of a compare: rows side by side, load and timing per shard. A
 * missing, duplicated or mismatched shard, or a row in two shards, is a one-line error.
 */
export function mergeShards(results: ReadonlyArray<{ source: string; result: CompareResult }>): CompareResult {
  if (results.length === 0) throw usageError("report --merge needs the shards' result files");
  const unsharded = results.find(({ result }) => !result.shard);
  if (unsharded) throw usageError(`${unsharded.source} is not a shard's result (compare --shard I/N writes one)`);
  const first = results[0]!;
  const expected = identity(first.result);
  for (const { source, result } of results.slice(1)) {
    const mine = identity(result);
    for (const [what, value] of Object.entries(expected)) {
      if (mine[what] !== value) throw usageError(`${source} differs from ${first.source} in ${what}: ${mine[what]} vs ${value}`);
    }
  }
  const count = first.result.shard!.count;
  const seen = new Map<number, string>();
  for (const { source, result } of results) {
    const other = seen.get(result.shard!.index);
    if (other) throw usageError(`shard ${result.shard!.index}/${count} given twice: ${other} and ${source}`);
    seen.set(result.shard!.index, source);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0)
    throw usageError(`shard${missing.length > 1 ? "s" : ""} ${missing.map((i) => `${i}/${count}`).join(", ")} missing`);
  const owner = new Map<string, string>();
  for (const { source, result } of results) {
    for (const row of result.rows) {
      const other = owner.get(row.id);
      if (other) throw usageError(`row "${row.id}" is in two shards: ${other} and ${source}`);
      owner.set(row.id, source);
    }
  }
  const ordered = [...results].sort((a, b) => a.result.shard!.index - b.result.shard!.index).map(({ result }) => result);
  const rounds = ordered.map((r) => r.rounds.completed);
  const { shard: _, ...base } = ordered[0]!;
  return {
    ...base,
    // Each shard sampled on its own; per-shard rounds are in `shards`.
    rounds: { ...base.rounds, completed: Math.min(...rounds), planned: Math.min(...rounds) },
    loadavg: { start: ordered[0]!.loadavg.start, end: ordered[ordered.length - 1]!.loadavg.end },
    startedAt: ordered.map((r) => r.startedAt).sort()[0]!,
    finishedAt: ordered
      .map((r) => r.finishedAt)
      .sort()
      .at(-1)!,
    rows: ordered.flatMap((r) => r.rows).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)),
    shards: ordered.map((r) => ({
      index: r.shard!.index,
      count,
      rounds: r.rounds.completed,
      loadavg: r.loadavg,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
      rows: r.rows.length,
    })),
  };
}
