/**
 * Deterministic results for the renderer tests and the `xbench report` e2e test. Rounds come
 * from a seeded PRNG, so the expected files in test/fixtures/ stay valid until the renderers or
 * the statistics change (then regenerate with UPDATE_FIXTURES=1 and check the diff by hand).
 */
import seedRows from "../fixtures/seed-aa-rows.json" with { type: "json" };
import { analyzeRows, type RawRow } from "../../src/report/row-stats.ts";
import { decideGate } from "../../src/report/gate.ts";
import { SCHEMA_ID, SCHEMA_VERSION, type CompareResult, type Rounds } from "../../src/model/result.ts";
import { mulberry32 } from "../../src/schedule/prng.ts";

/** Rounds around `center` with a shared drift per round and `noise` relative spread. */
function rounds(center: number, drift: number[], noise: number, random: () => number): number[] {
  return drift.map((d) => Math.round(center * d * (1 + noise * (random() * 2 - 1))));
}

function splitId(id: string): { file: string; label: string } {
  const at = id.indexOf(": ");
  return { file: `bench/${id.slice(0, at).replace(/-[0-9a-f]{8}$/, "")}.bench.ts`, label: id.slice(at + 2) };
}

function timedRow(id: string, base: Rounds, head: Rounds): RawRow {
  return { id, ...splitId(id), unit: "ns", base, head, presentOn: { base: true, head: true } };
}

/** A result of `overrides` over one A/A run's settings (base and head the same commit). */
export function baseResult(overrides: Partial<CompareResult>): CompareResult {
  return {
    schema: SCHEMA_ID,
    schemaVersion: SCHEMA_VERSION,
    xbenchVersion: "0.1.0",
    runtime: "node",
    rounds: { requested: 10, planned: 10, completed: 10, cycle: 2 },
    base: { ref: "HEAD", sha: "712637f68e4d1c0a9b8e7f6d5c4b3a2918171615", dirty: false },
    head: { ref: "working tree", sha: "712637f68e4d1c0a9b8e7f6d5c4b3a2918171615", dirty: false },
    loadavg: { start: [18.98, 30.03, 35.74], end: [13.57, 17.4, 22.9] },
    startedAt: "2026-11-30T01:00:00.000Z",
    finishedAt: "2026-11-30T01:20:00.000Z",
    holm: false,
    minEffect: 0.005,
    rows: [],
    ...overrides,
  };
}

/** An A/A table of 42 recorded names and medians (test/fixtures/seed-aa-rows.json), 10 rounds, no real change. */
export function aaResult(): CompareResult {
  const random = mulberry32(16);
  const raw = seedRows.map((row, i) => {
    const drift = Array.from({ length: 10 }, () => 1 + 0.3 * random());
    const noise = 0.01 + 0.02 * (i % 4);
    return timedRow(row.id, rounds(row.base, drift, noise, random), rounds(row.base, drift, noise, random));
  });
  return baseResult({ rows: analyzeRows(raw, { holm: false }) });
}

export const HOSTILE_NAME =
  "evil-0badc0de: a | b <script>alert(1)</script> & `code` *bold* _em_ [link](http://x) ~~s~~ \\| $x$ #1 @team\nsecond line";
/** The hostile row's label: what the reports a person reads show of it, after its file. */
export const HOSTILE_LABEL = HOSTILE_NAME.slice(HOSTILE_NAME.indexOf(": ") + 2);

/** Every kind of row: faster, slower, ~, exact same/more/fewer/varying, new, removed, failed, hostile names. */
export function mixedResult(): CompareResult {
  const random = mulberry32(3);
  const drift = Array.from({ length: 12 }, (_, i) => 1 + 0.5 * Math.sin(i));
  const timed = (id: string, center: number, change: number, noise = 0.02) =>
    timedRow(id, rounds(center, drift, noise, random), rounds(center * (1 + change), drift, noise, random));
  const exact = (id: string, unit: "count" | "bytes", base: number[], head: number[]): RawRow => ({
    id,
    ...splitId(id),
    unit,
    base,
    head,
    presentOn: { base: true, head: true },
  });
  const raw: RawRow[] = [
    timed("config-a28db80a: editConfig, reader on every event-loop turn (4712)", 204_650_000, -0.32),
    timed("config-a28db80a: loadConfigOrDefault, fresh Config (4712)", 31_700_000, 0.25),
    timed("config-a28db80a: findWorkspace(last id) (50)", 3_220, 0.002),
    timed("config-a28db80a: tiny (1)", 950, 0.01),
    timed(HOSTILE_NAME, 1_500_000_000, 0),
    exact("counts-1234abcd: parses per save", "count", Array(12).fill(4), Array(12).fill(2)),
    exact("counts-1234abcd: saves", "count", Array(12).fill(21), Array(12).fill(21)),
    exact("counts-1234abcd: peak heap", "bytes", Array(12).fill(8_912_345), Array(12).fill(8_913_369)),
    exact("counts-1234abcd: retries", "count", [5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4], Array(12).fill(4)),
    { ...timedRow("new-00000001: added by this change", [], rounds(5_000, drift, 0.01, random)), presentOn: { base: false, head: true } },
    { ...timedRow("old-00000002: removed by this change", rounds(7_000, drift, 0.01, random), []), presentOn: { base: true, head: false } },
    {
      ...timedRow("boom-00000003: throws on head", [1, 2], [null, null]),
      error: { side: "head", message: "TypeError: x is <undefined> | *boom*" },
    },
    timedRow("sparse-00000004: one paired round", [100, null, 102], [101, 99, null]),
  ];
  return baseResult({
    runtime: "bun",
    rounds: { requested: 10, planned: 12, completed: 12, cycle: 6 },
    base: { ref: "main", sha: "0c5e35d81638e85ed420c4b7c943d86ed502a2f7", dirty: false },
    head: { ref: "working tree", sha: "4fa387b2e78bf32f810d7c21bc1f488bd33ce265", dirty: true },
    loadavg: { start: [14.26, 17.36, 22.8], end: [17.83, 31.33, 29.39] },
    holm: true,
    rows: analyzeRows(raw, { holm: true }),
  });
}

/**
 * What the HTML report's browser test draws: one row confidently slower (past the gate's
 * +5%), one ~ row, and one row without an interval (its file's code unchanged).
 */
export function slowerResult(): CompareResult {
  const random = mulberry32(27);
  const drift = Array.from({ length: 12 }, (_, i) => 1 + 0.3 * Math.sin(i));
  const timed = (id: string, center: number, change: number, noise: number) =>
    timedRow(id, rounds(center, drift, noise, random), rounds(center * (1 + change), drift, noise, random));
  const raw: RawRow[] = [
    timed("parse-5b1c0e2a: parse 4 KiB document", 182_000, 0.12, 0.01),
    timed("parse-5b1c0e2a: validate schema", 41_500, 0, 0.015),
    { ...timedRow("render-9f3d11c4: render page", [], []), unchanged: true },
  ];
  const rows = analyzeRows(raw, { holm: false });
  return baseResult({
    rounds: { requested: 12, planned: 12, completed: 12, cycle: 2 },
    base: { ref: "main", sha: "0c5e35d81638e85ed420c4b7c943d86ed502a2f7", dirty: false },
    head: { ref: "working tree", sha: "4fa387b2e78bf32f810d7c21bc1f488bd33ce265", dirty: true },
    loadavg: { start: [0.42, 0.51, 0.48], end: [1.18, 0.73, 0.56] },
    cores: 2,
    rows,
    gate: decideGate(rows, { on: "above", above: 0.05 }),
  });
}
