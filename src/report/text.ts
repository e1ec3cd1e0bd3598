/**
 * Text pieces shared by the terminal, markdown and HTML renderers, so all say the same thing:
 * units, signed percentages, header lines, notes and the cells of a row, all from figures the
 * analysis (analysis.ts) already holds. No escaping here (markdown.ts and html.ts escape;
 * terminal.ts only makes control characters visible).
 */
import { formatLoad } from "../util/load.ts";
import { type CompareResult, isCountedUnit, NO_WORK_NS, type Row, type Uncounted, type Unit } from "../model/result.ts";
import type { Analysis, OutlierRound, ShownRow } from "./analysis.ts";

export const NONE = "—";

/** What a `no-work` row reads: under NO_WORK_NS per iteration on both sides, the cost of an empty loop. */
export const NO_WORK_TEXT = "no work measured";

const TIME_UNITS: Array<[string, number]> = [
  ["ns", 1],
  ["µs", 1e3],
  ["ms", 1e6],
  ["s", 1e9],
];

/** Nanoseconds with two decimals in the largest unit that keeps the number at least 1: `3.29 µs`. */
export function formatTime(ns: number): string {
  let index = 0;
  while (index < TIME_UNITS.length - 1 && Math.abs(ns) >= TIME_UNITS[index + 1]![1]) index++;
  // Rounding can carry 999.996 µs to "1000.00 µs": step up a unit when it does.
  if (index < TIME_UNITS.length - 1 && Math.abs(Number((ns / TIME_UNITS[index]![1]).toFixed(2))) >= 1000) index++;
  const [unit, scale] = TIME_UNITS[index]!;
  return `${(ns / scale).toFixed(2)} ${unit}`;
}

/** A whole number with thousands separators; other numbers with up to two decimals. */
export function formatCount(value: number): string {
  const text = Number.isInteger(value)
    ? String(Math.abs(value))
    : Math.abs(value)
        .toFixed(2)
        .replace(/\.?0+$/, "");
  const [whole, fraction] = text.split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${value < 0 ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}

const COUNT_PREFIXES: Array<[string, number]> = [
  ["", 1],
  ["k", 1e3],
  ["M", 1e6],
  ["G", 1e9],
  ["T", 1e12],
];

/** What a counted row's values are, per iteration (`compare --measure`). */
const COUNTED_NAMES: Partial<Record<Unit, string>> = { instructions: "instr", cycles: "cycles" };

/** A count per iteration with three significant digits or two decimals: `45.04 M instr`, `812.5 instr`. */
export function formatCounted(value: number, unit: Unit): string {
  let index = 0;
  while (index < COUNT_PREFIXES.length - 1 && Math.abs(value) >= COUNT_PREFIXES[index + 1]![1]) index++;
  if (index < COUNT_PREFIXES.length - 1 && Math.abs(Number((value / COUNT_PREFIXES[index]![1]).toFixed(2))) >= 1000) index++;
  const [prefix, scale] = COUNT_PREFIXES[index]!;
  const scaled = value / scale;
  const text = index === 0 ? String(Number(scaled.toFixed(1))) : scaled.toFixed(2);
  return `${text} ${prefix ? `${prefix} ` : ""}${COUNTED_NAMES[unit] ?? unit}`;
}

/** Decimals of a row's percentages: counts resolve hundredths of a percent, time tenths. */
export function percentDigits(unit: Unit): number {
  return isCountedUnit(unit) ? 2 : 1;
}

export function formatValue(value: number, unit: Unit): string {
  if (unit === "ns") return formatTime(value);
  if (isCountedUnit(unit)) return formatCounted(value, unit);
  if (unit === "bytes") return `${formatCount(value)} B`;
  return formatCount(value);
}

/**
 * A fraction as a signed percentage with one decimal: 0.014 → `+1.4%`. The sign is that of the
 * value, not of its rounding, so a bound just below zero reads `-0.0%`.
 */
export function formatPercent(fraction: number, digits = 1): string {
  if (!Number.isFinite(fraction)) return fraction > 0 ? "+∞" : "-∞"; // an unbounded interval (too few rounds)
  return `${fraction < 0 ? "-" : "+"}${Math.abs(fraction * 100).toFixed(digits)}%`;
}

/** Beyond these a ratio says only "huge": with few rounds an interval can reach +28258649.2%. */
const MAX_SHOWN = 9.99;
const MIN_SHOWN = -0.999;

/**
 * A delta or interval bound for reading, clamped to what one decimal can say honestly: above
 * +999% it is `>+999%`, below -99.9% (a ratio near 0) `<-99.9%`. An unbounded interval (too few
 * rounds: a bound of ±∞ in log space, so +∞ or exactly -100%) says so. The JSON keeps the numbers.
 */
export function formatBound(fraction: number, digits = 1): string {
  if (!Number.isFinite(fraction) || fraction === -1) return formatPercent(fraction, digits);
  if (fraction > MAX_SHOWN) return ">+999%";
  if (fraction < MIN_SHOWN) return "<-99.9%";
  return formatPercent(fraction, digits);
}

export function formatInterval(ci: readonly [number, number], digits = 1): string {
  return `[${formatBound(ci[0], digits)}, ${formatBound(ci[1], digits)}]`;
}

/**
 * `runtime node | rounds 10 | base 0c5e35d81638 | head 4fa387b2e78b (dirty)`. `markDirty: false`
 * when the caller already said so, with what made it dirty (compare's first line).
 */
export function runLine(result: CompareResult, options: { markDirty?: boolean } = {}): string {
  const { rounds } = result;
  const count = rounds.completed < rounds.planned ? `${rounds.completed} of ${rounds.planned}` : String(rounds.completed);
  const head = `${result.head.sha.slice(0, 12)}${result.head.dirty && options.markDirty !== false ? " (dirty)" : ""}`;
  return `runtime ${result.runtime} | rounds ${count} | base ${result.base.sha.slice(0, 12)} | head ${head}`;
}

/**
 * What a counting run's values are, stated beside the run line: counts, by which tool and under
 * which runtime flags, and that they are not production time (docs/counting.md). Undefined for time.
 */
export function measureLine(result: CompareResult): string | undefined {
  const m = result.measure;
  if (!m) return undefined;
  const what =
    m.quantity === "cycles" && m.caches
      ? `estimated cycles per iteration (an L1 hit ${m.caches.weights.l1}, a last-level hit ${m.caches.weights.ll}, memory ${m.caches.weights.ram}; simulated caches I1 ${m.caches.I1}, D1 ${m.caches.D1}, LL ${m.caches.LL})`
      : `${m.quantity} per iteration`;
  return `counted, not timed: ${what} by callgrind (${m.tool}) in ${m.runtimeFlags || result.runtime}; not production time: waiting, the kernel's work and other threads' timing are not in the counts`;
}

/** `loadavg start a b c | end a b c` */
export function loadLine(result: CompareResult): string {
  return `loadavg start ${formatLoad(result.loadavg.start)} | end ${formatLoad(result.loadavg.end)}`;
}

/** What the run's rows with an interval are: `timed`, or `counted` under `--measure instructions|cycles`. */
const rowKind = (result: CompareResult): string => (result.measure ? "counted" : "timed");

/** Notes about the whole run: how many rounds and why, how rows were measured, load, Holm, A/A. */
export function runNotes(analysis: Analysis): string[] {
  const notes: string[] = [];
  const result = analysis.shown;
  const { rounds } = result;
  const sampling = samplingNote(analysis);
  if (sampling) notes.push(sampling);
  else if (rounds.planned > rounds.requested) {
    notes.push(`${rounds.requested} rounds asked for, rounded up to ${rounds.planned} (whole cycles of ${rounds.cycle} orderings)`);
  }
  if (rounds.completed < rounds.planned) notes.push(`only ${rounds.completed} of ${rounds.planned} rounds completed`);
  const isolated = result.rows.filter((row) => row.mode === "isolated" || row.mode === "mixed").length;
  if (isolated > 0) {
    notes.push(
      `${isolated} ${rowKind(result)} row(s) measured one side per bench process, not both sides alternating in one: expect wider intervals`,
    );
  }
  const load = loadNote(result);
  if (load) notes.push(load);
  if (result.holm) {
    const timed = result.rows.filter((row) => row.stats).length;
    notes.push(`intervals and verdicts Holm-adjusted across ${timed} rows with an interval (family-wise 95%)`);
  }
  const noWork = noWorkNote(result.rows);
  if (noWork) notes.push(noWork);
  const outliers = outlierNote(analysis);
  if (outliers) notes.push(outliers);
  const legend = verdictLegend(analysis);
  if (legend) notes.push(legend);
  const aa = aaNote(analysis);
  if (aa) notes.push(aa);
  const shards = shardNote(result);
  if (shards) notes.push(shards);
  return notes;
}

/** Where the rows of a merged or sharded result were measured: each file on one runner, never pooled. */
export function shardNote(result: CompareResult): string | undefined {
  if (result.shard)
    return `shard ${result.shard.index} of ${result.shard.count}: this result holds its share of the bench files only (merge the shards with xbench report --merge)`;
  if (!result.shards) return undefined;
  const each = result.shards.map(
    (s) => `${s.index}: ${s.rows} rows, ${s.rounds} rounds, load ${s.loadavg.start[0].toFixed(1)} → ${s.loadavg.end[0].toFixed(1)}`,
  );
  const holm = result.holm ? "; Holm-adjusted within each shard" : "";
  return `merged from ${result.shards.length} shards, each bench file measured on one runner (rounds never pooled across machines)${holm}: ${each.join("; ")}`;
}

/** `±0.5%`: the run's minimum effect (the default for a file from before it). */
export function minEffectText(analysis: Analysis): string {
  return `±${formatPlain(analysis.minEffect * 100)}%`;
}

/** `0.5`, `1`, `0.25`: a percentage as typed, without trailing zeros. */
function formatPlain(value: number): string {
  return String(Number(value.toFixed(4)));
}

/**
 * What `same` and `~` mean, when the table has either: both hold zero in their interval, but only
 * one is an answer (no change beyond the minimum effect); the other needs more rounds.
 */
export function verdictLegend(analysis: Analysis): string | undefined {
  const verdicts = new Set(analysis.shown.rows.map((row) => row.stats?.verdict));
  if (!verdicts.has("same") && !verdicts.has("~")) return undefined;
  const m = minEffectText(analysis);
  return `same: the interval lies within ${m} (--min-effect), no change beyond ${m}; ~: the interval reaches beyond ${m} and holds zero, too wide to tell`;
}

/** A half-width: one decimal, or two significant digits below 1% (±0.25%, ±0.01%, never ±0.0%). */
export function formatHalfWidth(x: number): string {
  if (!Number.isFinite(x)) return "±∞";
  const p = x * 100;
  const small = Number(p.toPrecision(2)); // 0.996 rounds to 1: then it reads as the others, ±1.0%
  return `±${small >= 1 ? p.toFixed(1) : String(small)}%`;
}

/** A half-width read against `target`: when wider, with the decimals that show it (±1.04% against ±1.0%, not ±1.0%). */
export function formatWiderThan(x: number, target: number): string {
  if (!Number.isFinite(x)) return "±∞";
  if (x <= target) return formatHalfWidth(x);
  for (let digits = 1; digits <= 4; digits++) {
    const shown = (x * 100).toFixed(digits);
    if (Number(shown) > target * 100) return `±${shown}%`;
  }
  return formatHalfWidth(x);
}

/** `6 rounds`, or `6 to 24 rounds per row` when rows stopped at different rounds. */
function roundsPerRow(fewest: number, most: number): string {
  return fewest === most ? `${most} rounds` : `${fewest} to ${most} rounds per row`;
}

/**
 * For a run that sampled until narrow: one note, whatever the number of rows. When every
 * interval reached the target, how many rounds that took; else how many did not, the widest,
 * and the budget that would bring most of them within the target (per row under --verbose).
 */
export function samplingNote(analysis: Analysis): string | undefined {
  const sampling = analysis.sampling;
  if (!sampling) return undefined;
  const { rounds } = analysis.result;
  const { target, wide, budget } = sampling;
  const perRow = roundsPerRow(sampling.fewestRounds, sampling.mostRounds);
  const widest = formatWiderThan(sampling.widest, target);
  const spent = rounds.measuredS !== undefined ? `, ${Math.round(rounds.measuredS)} s measuring` : "";
  const level = levelNote(analysis.result.level);
  if (wide.length === 0)
    return `sampled until every interval was within ${formatHalfWidth(target)}: ${perRow}${spent}; widest ${widest}${level}`;
  const why =
    sampling.stoppedBy === "time"
      ? `the ${rounds.maxTimeS} s budget (--max-time) ran out`
      : `the most rounds a run may have (${rounds.completed}) were reached`;
  const more = budget ? `; about --max-time ${budget.maxTimeS} would bring ${budget.rows} of them within it` : "";
  return `${wide.length} of ${sampling.timed} intervals wider than the ${formatHalfWidth(target)} target when ${why}: widest ${widest}, after ${perRow}${more} (--verbose lists them)${level}`;
}

/**
 * Where each interval is built above 95% (rows that stop on their own width, stats/paired.ts
 * SEQUENTIAL_LEVEL), what the two figures are: the JSON's `level` and `coverage`.
 */
function levelNote(level: number | undefined): string {
  if (level === undefined || level <= 0.95) return "";
  return `; each interval is built at ${Math.round(level * 100)}% (the JSON's level) so that, with rows stopping on their own width, the 95% CI column holds 95% (its coverage)`;
}

/** Per row still wider than the target when sampling stopped (--verbose, and the JSON's rows): how wide, and the rounds it would need. */
export function wideRowNotes(analysis: Analysis): RowNote[] {
  const sampling = analysis.sampling;
  if (!sampling || sampling.stoppedBy === "target") return [];
  return sampling.wide.map((wide) => {
    const estimate = wide.roundsNeeded === undefined ? "" : `; about ${wide.roundsNeeded} rounds would reach it`;
    return {
      id: wide.row.id,
      text: `${formatWiderThan(wide.halfWidth, sampling.target)} after ${wide.n} rounds, wider than the ${formatHalfWidth(sampling.target)} target${estimate}`,
    };
  });
}

/** When the machine was busy, intervals widen: say so, with the load and the number of cores. */
export function loadNote(result: CompareResult): string | undefined {
  const cores = result.cores;
  // Counts do not widen with load (docs/counting.md): saying they did would send a reader
  // looking for a quieter machine that would change nothing.
  if (!cores || result.measure) return undefined;
  // The end's load counts the run's own bench processes (`--jobs` of them, with their JIT and
  // collector threads): only what is beyond them is other work.
  const own = result.rounds.jobs ?? 1;
  const peak = Math.max(result.loadavg.start[0], result.loadavg.end[0] - own);
  if (peak <= cores) return undefined;
  return `load average ${result.loadavg.start[0].toFixed(1)} at the start, ${result.loadavg.end[0].toFixed(1)} at the end, on ${cores} cores: other work shared the machine, so intervals are wider than on a quiet one`;
}

/**
 * For an A/A run (base and head the same commit, clean tree): how many rows got a verdict by
 * chance, the typical noise floor, and the smallest change this many rounds could detect.
 */
export function aaNote(analysis: Analysis): string | undefined {
  const aa = analysis.aa;
  if (!aa) return undefined;
  // Rows stop on their own width, so their rounds differ: the range, not the fewest alone.
  const rounds = aa.fewestRounds === aa.mostRounds ? `${aa.fewestRounds} rounds` : `${aa.fewestRounds} to ${aa.mostRounds} rounds`;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  // Written as the sampling note writes its widest: the same figure reads the same.
  const target = analysis.sampling?.target;
  const width = (x: number) => (target === undefined ? formatHalfWidth(x) : formatWiderThan(x, target));
  // An interval within ±min-effect that excludes zero reads `same`, not a verdict: at most 5% expected.
  return (
    `A/A run: ${aa.falseVerdicts} of ${aa.rows} ${rowKind(analysis.shown)} rows got a verdict by chance (at most about 5% expected), ` +
    `${aa.same} read same (within ${minEffectText(analysis)}); median |delta| ${pct(aa.medianAbsDelta)}; ` +
    `after ${rounds}, intervals of median half-width ${width(aa.medianHalfWidth)}, widest ${width(aa.widestHalfWidth)} (the smallest change a verdict can see)`
  );
}

/** Notes about single rows (plain text; the caller escapes the name). */
export interface RowNote {
  id: string;
  text: string;
}

/**
 * The one note for every `no-work` row: how many, why they have no interval, where the list is.
 * Under NO_WORK_NS per iteration a row is below what time resolves here, whatever the reason (a
 * body that cheap, or one the JIT removed): nothing measured says which.
 */
export function noWorkNote(rows: readonly ShownRow[]): string | undefined {
  const empty = rows.filter((row) => row.status === "no-work");
  if (empty.length === 0) return undefined;
  const which = empty.length === 1 ? `1 row reads ${NO_WORK_TEXT} (${empty[0]!.id})` : `${empty.length} rows read ${NO_WORK_TEXT}`;
  const list = empty.length === 1 ? "" : ` (--verbose lists them; the JSON marks them "no-work")`;
  if (isCountedUnit(empty[0]!.unit))
    return `${which}: both sides counted no more than an empty benchmark's loop in the same processes, so the body was optimized away${list}: use its result (return it, or keep it in a variable the benchmark reads)`;
  return `${which}: under ${NO_WORK_NS} ns per iteration on both sides, below what time can resolve here (an empty loop costs about as much), so no interval and no verdict${list}; a body meant to cost more may have been optimized away: use its result (return it, or keep it in a variable the benchmark reads)`;
}

/** Why a round is far off its row's others, in words (analysis.ts outlierRound). */
function outlierText(outlier: OutlierRound, unit: Unit): string {
  const digits = percentDigits(unit);
  const where = `round ${outlier.round} reads ${formatPercent(outlier.change, digits)} where its other rounds read ${formatPercent(outlier.others[0], digits)} to ${formatPercent(outlier.others[1], digits)}`;
  // A count has no pause or load in it: a process far off its others ran other code (a JIT tier, a deoptimization).
  if (isCountedUnit(unit)) {
    const which =
      outlier.cause === "one-side" ? `${outlier.side!.name}'s copy` : outlier.cause === "whole-process" ? "both copies" : "the two copies";
    return `${where}: that process compiled ${which} differently from the others (another JIT tier, or a deoptimization), which counts cannot average away`;
  }
  if (outlier.cause === "one-side") {
    const { name, factor } = outlier.side!;
    const other = name === "head" ? "base's" : "head's";
    const how = `${Math.abs((factor - 1) * 100).toFixed(0)}% ${factor > 1 ? "slower" : "faster"}`;
    return `${where}: ${name}'s batches there ran ${how} than in its other rounds and ${other} did not, a pause inside that process (preempted, or a collection during them)`;
  }
  if (outlier.cause === "whole-process") {
    return `${where}: both sides ran far from their other rounds, the process as a whole was slowed (load, frequency) and one side more than the pairing cancels`;
  }
  return `${where}: neither side is far from its other rounds, only their ratio, so that process compiled the two copies of the code differently`;
}

/**
 * The one note for rows with a round far off their others: how many, the widest of them with
 * its round and why it is suspect; each of them under `--verbose` (outlierNotes).
 */
export function outlierNote(analysis: Analysis): string | undefined {
  const [first, ...more] = analysis.outliers;
  if (!first) return undefined;
  const which = more.length === 0 ? "1 row has" : `${more.length + 1} rows have`;
  const list = more.length === 0 ? "" : "; --verbose names each";
  return `${which} a round far off its others, which widens its interval: ${first.row.id}, ${outlierText(first.outlier, first.row.unit)}${list}`;
}

/** Per row with a round far off its others (`--verbose`). */
export function outlierNotes(analysis: Analysis): RowNote[] {
  return analysis.outliers.map(({ row, outlier }) => ({ id: row.id, text: outlierText(outlier, row.unit) }));
}

/** A `no-work` row's own note (`--verbose`): its times on each side. */
function noWorkRowText(row: ShownRow): string {
  const { base, head } = row.sideMedians;
  if (isCountedUnit(row.unit)) {
    const counts =
      base !== undefined && head !== undefined
        ? `${formatValue(base, row.unit)} (base) and ${formatValue(head, row.unit)} (head)`
        : "both sides";
    return `${NO_WORK_TEXT}: ${counts} per iteration, no more than an empty benchmark's loop counts in the same processes`;
  }
  const times = base !== undefined && head !== undefined ? `${formatTime(base)} (base) and ${formatTime(head)} (head)` : "both sides";
  return `${NO_WORK_TEXT}: ${times} per iteration, under ${NO_WORK_NS} ns, below what time can resolve here`;
}

/** Notes about single rows; `noWork`: a note per `no-work` row too (the run's one note says it for all). */
export function rowNotes(rows: readonly ShownRow[], options: { noWork?: boolean } = {}): RowNote[] {
  const notes: RowNote[] = [];
  for (const row of rows) {
    if (row.status === "failed" && row.error)
      notes.push({
        id: row.id,
        text: `failed on ${row.error.side === "both" ? "both sides (base and head)" : row.error.side}: ${row.error.message}`,
      });
    if (row.exact?.varies) notes.push({ id: row.id, text: "values differed between rounds; medians compared" });
    if (row.status === "no-work" && options.noWork) notes.push({ id: row.id, text: noWorkRowText(row) });
    if (row.status === "uncounted" && row.uncounted) notes.push({ id: row.id, text: uncountedText(row.uncounted) });
    if (row.ties) notes.push({ id: row.id, text: tiedText(row.ties) });
  }
  return notes;
}

/** What an `uncounted` row reads in the verdict column. */
export const UNCOUNTED_TEXT = "not countable";

/** Why a counted row has no verdict: what its counts missed (report/row-stats.ts uncountedPart). */
function uncountedText({ why, share }: Uncounted): string {
  const pct = `${Math.round(share * 100)}%`;
  const what =
    why === "waits"
      ? `its measured windows waited ${pct} of their wall time (timers, I/O)`
      : `about ${pct} of its time would natively be the kernel's (system calls, page faults)`;
  return `${UNCOUNTED_TEXT}: ${what}, which counts do not see; no verdict (measure it with --measure time)`;
}

/**
 * Timed values equal to the last digit on both sides in half the rounds or more (analysis.ts):
 * a result from before batches of at least 1000 ticks, or a row whose values repeat for another
 * reason, says so rather than show an interval that looks certain.
 */
function tiedText({ tied, paired }: { tied: number; paired: number }): string {
  return `base and head values were identical in ${tied} of ${paired} rounds: a clock too coarse for the batch length gives such values, so the interval may claim more certainty than the data has`;
}

/** The six cells of a row after the name, as plain text. */
export interface RowCells {
  base: string;
  head: string;
  delta: string;
  ci: string;
  verdict: string;
}

function sideCell(median: number | undefined, unit: Unit): string {
  return median === undefined ? NONE : formatValue(median, unit);
}

function signed(value: number, unit: Unit): string {
  return `${value >= 0 ? "+" : ""}${formatValue(value, unit)}`;
}

export function rowCells(row: ShownRow): RowCells {
  if (row.stats) {
    const s = row.stats;
    const unit = row.unit;
    // head is base moved by delta, so that the columns say what the delta says: the raw
    // medians of each side moved separately over rounds and disagreed with it (in the JSON).
    return {
      base: formatValue(s.baseMedian, unit),
      head: formatValue(s.baseMedian * (1 + s.delta), unit),
      delta: formatBound(s.delta, percentDigits(unit)),
      ci: formatInterval(s.ci, percentDigits(unit)),
      verdict: s.verdict,
    };
  }
  if (row.exact) {
    const e = row.exact;
    const verdict = e.verdict === "same" ? "same" : `${e.verdict} (${signed(e.difference, row.unit)})`;
    return {
      base: formatValue(e.base, row.unit),
      head: formatValue(e.head, row.unit),
      delta: e.base === 0 ? "" : formatPercent(e.difference / e.base),
      ci: "exact",
      verdict,
    };
  }
  return {
    base: row.status === "new" ? NONE : sideCell(row.sideMedians.base, row.unit),
    head: row.status === "removed" ? NONE : sideCell(row.sideMedians.head, row.unit),
    delta: "",
    ci: "",
    verdict: statusText(row.status),
  };
}

/** What a row without an interval reads in the verdict column. */
function statusText(status: Row["status"]): string {
  if (status === "unchanged") return "unchanged code";
  if (status === "no-work") return NO_WORK_TEXT;
  if (status === "uncounted") return UNCOUNTED_TEXT;
  return status;
}

/** One summary line: how many rows got which verdict. */
export function summaryLine(rows: readonly Row[]): string {
  const count = (pred: (row: Row) => boolean) => rows.filter(pred).length;
  const parts = [
    `${count((r) => r.stats?.verdict === "faster")} faster`,
    `${count((r) => r.stats?.verdict === "slower")} slower`,
    `${count((r) => r.stats?.verdict === "same")} same`,
    `${count((r) => r.stats?.verdict === "~")} ~`,
  ];
  const exact = count((r) => r.exact !== undefined);
  if (exact > 0) parts.push(`${count((r) => r.exact !== undefined && r.exact.verdict !== "same")} of ${exact} exact changed`);
  for (const status of ["new", "removed", "failed", "unchanged", "no-work", "uncounted", "skipped"] as const) {
    const n = count((r) => r.status === status);
    if (n > 0) parts.push(`${n} ${status === "unchanged" ? "unchanged code (not measured)" : statusText(status)}`);
  }
  return `${parts.join(", ")} (${rows.length} rows)`;
}

/**
 * Control characters made visible (U+2400 "control pictures"; C1 controls as U+FFFD): a name
 * can then never break a line, a table, or send escape sequences to a terminal.
 */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    return code === 0x7f ? "\u2421" : "\uFFFD";
  });
}
