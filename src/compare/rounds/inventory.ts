/**
 * The inventory, the second stage of a compare: one process per bench file lists what each
 * side registers; a file that registers nothing is judged (diagnose.ts), one written for
 * another runtime is refused (runtime-fit.ts), one whose code is the same on both sides
 * (unchanged-files.ts) or that cannot load on a side is recorded once, and with `--shard`
 * only this shard's files remain for the rounds.
 */
import { readFileSync } from "node:fs";
import { join } from "pathe";
import { XbenchError } from "../../errors.ts";
import { SIDES } from "../../model/side.ts";
import type { RunContext } from "../context.ts";
import { emptyFileVerdict, scanBenchSource, type EmptyFileVerdict } from "../sides/diagnose.ts";
import { expectedLabels, planFile, type FilePlan, type InventoryOutcome } from "./jobs.ts";
import type { MeasuredFile, RunProcess } from "./rounds.ts";
import { runtimeMismatch, vitestGlobalMismatch } from "./runtime-fit.ts";
import { assignShards } from "../shard.ts";
import { recordKey, type RunPlan, type RunStore } from "../run/store.ts";
import { unchangedFiles } from "../sides/unchanged-files.ts";

/**
 * What each side of a file registers. One process loads both sides; only when that fails are
 * the sides loaded alone, to tell a side that cannot load from two that cannot share.
 */
async function takeInventory(ctx: RunContext, file: string, run: RunProcess): Promise<InventoryOutcome> {
  const outcome: InventoryOutcome = { inventories: {}, errors: {} };
  const loadable = SIDES.filter((side) => {
    const error = ctx.bundles.sides[side].get(file)!.error;
    if (error !== undefined) outcome.errors[side] = error;
    return error === undefined;
  });
  if (loadable.length === 2) {
    const both = await run(file, "inventory", loadable, "all");
    if (both.error === undefined) return { ...outcome, inventories: both.report.inventories, loadMs: both.wallMs };
    outcome.duetError = both.error;
  }
  for (const side of loadable) {
    const alone = await run(file, "inventory", [side], "all");
    if (alone.error !== undefined) outcome.errors[side] = alone.error;
    else {
      outcome.inventories[side] = alone.report.inventories[side];
      outcome.loadMs = Math.max(outcome.loadMs ?? 0, alone.wallMs);
    }
  }
  if (outcome.duetError !== undefined && Object.keys(outcome.errors).length > 0) delete outcome.duetError;
  return outcome;
}

/**
 * For a file whose sides loaded and registered nothing at all: an error that says why (it
 * times itself, it uses a library xbench does not read, …), or a skip for a helper module a
 * pattern matched. Undefined for a file that registers something or failed to load.
 */
function emptyFile(file: string, outcome: InventoryOutcome, headRoot: string, exact: string[]): EmptyFileVerdict | undefined {
  const inventories = SIDES.map((side) => outcome.inventories[side]);
  if (Object.keys(outcome.errors).length > 0 || inventories.some((inv) => !inv)) return undefined;
  if (inventories.some((inv) => inv!.benchmarks.length + inv!.metrics.length + inv!.commands.length > 0)) return undefined;
  let source = "";
  try {
    source = readFileSync(join(headRoot, file), "utf8");
  } catch {
    // Unreadable now though it loaded: judge by what the sides reported.
  }
  const apis = inventories.flatMap((inv) => inv!.apis ?? []);
  return emptyFileVerdict(file, scanBenchSource(source), apis, exact.includes(file));
}

/** Every label either side registered for a file, as one side measured alone would report them. */
function allLabels(outcome: InventoryOutcome): string[] {
  return [...new Set(SIDES.flatMap((s) => expectedLabels(outcome, { name: s, kind: "isolated", sides: [s], parts: "all" })))];
}

/**
 * The files this run measures: all of them, or with `--shard I/N` the I-th share, balanced by
 * the rows each file has to measure (none for unchanged code). Every shard inventories every
 * file, so every shard computes the same assignment.
 */
function ownShare<T extends { plan: FilePlan; outcome: InventoryOutcome; unchanged: boolean }>(plan: RunPlan, files: T[]): T[] {
  if (!plan.shard) return files;
  const weight = ({ outcome, unchanged }: T) =>
    unchanged
      ? 0
      : Math.max(0, ...SIDES.map((side) => expectedLabels(outcome, { name: side, kind: "isolated", sides: [side], parts: "all" }).length));
  const assigned = assignShards(
    files.map((f) => ({ file: f.plan.file, weight: weight(f) })),
    plan.shard.count,
  );
  return files.filter((f) => assigned.get(f.plan.file) === plan.shard!.index);
}

/**
 * Records once rows of a file that are listed but not measured: `unchanged`, its code is the same
 * on both sides; `skipped`, the file skips them (`bench.skip`).
 */
function recordListed(store: RunStore, file: string, job: "unchanged" | "skipped", labels: string[], done: Set<string>): void {
  if (labels.length === 0 || done.has(recordKey(0, file, job))) return;
  store.append({ round: 0, file, job, sides: [], wallMs: 0, expected: labels });
  done.add(recordKey(0, file, job));
}

/** Labels either side skips that neither side measures. */
function skippedLabels(outcome: InventoryOutcome): string[] {
  const measured = new Set(allLabels(outcome));
  return [...new Set(SIDES.flatMap((side) => outcome.inventories[side]?.skipped ?? []))].filter((label) => !measured.has(label));
}

/** Records a file that cannot be measured on a side once, so its rows show as failed. */
function recordFailedSides(store: RunStore, plan: FilePlan, outcome: InventoryOutcome, done: Set<string>): void {
  for (const side of SIDES) {
    const error = plan.failed[side];
    if (error === undefined || done.has(recordKey(0, plan.file, side))) continue;
    store.append({ round: 0, file: plan.file, job: side, sides: [side], wallMs: 0, error, expected: allLabels(outcome) });
    done.add(recordKey(0, plan.file, side));
  }
}

/**
 * Inventories every bench file and returns those this run measures: a file that registers
 * nothing is skipped or fails the run, one whose code is the same on both sides and one that
 * cannot load on a side are recorded once, and with `--shard` only this shard's files remain.
 * `done` holds the recordKey()s the run folder already has; what is recorded here joins them.
 */
export async function inventoryFiles(ctx: RunContext, run: RunProcess, done: Set<string>): Promise<MeasuredFile[]> {
  const { store, sides, onEvent } = ctx;
  const { plan } = store;
  const files: MeasuredFile[] = [];
  const unchanged = unchangedFiles(ctx);
  const inventoried: Array<MeasuredFile & { unchanged: boolean }> = [];
  for (const file of plan.files) {
    onEvent({ type: "working", what: `loading ${file}` });
    const outcome = await takeInventory(ctx, file, run);
    const mismatch = vitestGlobalMismatch(file, outcome, sides.head.root) ?? runtimeMismatch(file, outcome, sides.head.root, plan.runtime);
    if (mismatch !== undefined) throw new XbenchError(mismatch, { kind: "usage" });
    const empty = emptyFile(file, outcome, sides.head.root, plan.exact ?? []);
    if (empty?.kind === "error") throw new XbenchError(empty.message, { kind: "usage" });
    if (empty?.kind === "skip") {
      onEvent({ type: "skipped", file, note: empty.note });
      continue;
    }
    const filePlan = planFile(file, outcome, { isolate: plan.isolate });
    inventoried.push({ plan: filePlan, outcome, unchanged: unchanged.has(file) && Object.keys(filePlan.failed).length === 0 });
  }
  for (const { plan: filePlan, outcome, unchanged: same } of ownShare(plan, inventoried)) {
    const file = filePlan.file;
    recordListed(store, file, "skipped", skippedLabels(outcome), done);
    if (same) {
      recordListed(store, file, "unchanged", allLabels(outcome), done);
      continue;
    }
    recordFailedSides(store, filePlan, outcome, done);
    onEvent({ type: "inventoried", file, loaded: SIDES.filter((side) => outcome.inventories[side] !== undefined) });
    if (filePlan.isolatedBecause && !plan.isolate) onEvent({ type: "isolated", file, because: filePlan.isolatedBecause });
    files.push({ plan: filePlan, outcome });
  }
  if (files.length === 0 && inventoried.length === 0)
    throw new XbenchError(`none of the ${plan.files.length} bench files registers a benchmark`, { kind: "usage" });
  return files;
}
