/**
 * Counts what one or two subjects do per iteration under callgrind, as sampler.ts times them
 * (docs/counting.md, "In a bench process"). Every decision below comes from counts, never from
 * a clock, so that every process that counts alike decides alike: a warm-up cut short by a busy
 * machine once left one side in another JIT tier in some processes and not in others.
 *
 * 1. A ramp per side: counted windows of 1, 8, 64… iterations until one holds `windowEvents`.
 *    It sizes the windows (n, the larger of the sides', so both run the same iterations) and
 *    the warm-up, and is the start of the warm-up.
 * 2. The rest of the warm-up, uncounted: each side makes `warmupCalls` calls in all, fewer for
 *    a costly call (the power of two nearest above `warmupEvents` at the ramp's cost). The JIT tiers up after an
 *    amount of bytecode run, which a few calls of a costly benchmark reach.
 * 3. Measured windows of n, A B B A, until each side's last two agree (at most
 *    `settleWindows`); the last `windows` of each side are its value.
 *
 * Callgrind's instrumentation is switched on at the first row and stays on: switching it off and
 * on makes valgrind translate all code again, which cost more than the warm-ups it would skip.
 * Before each counted window the young generation is collected (where the runtime can), so a
 * window's own scavenges do not depend on the windows before it. A window counts only its
 * regions (sampler.ts Region), each of which costs the same few hundred instructions of
 * switching collection on and off: measured once per process on empty regions and subtracted.
 */
import { abbaIndex, halfValues, median } from "xbench-internal:sampler";
import type { CountBudget, CountedTime } from "../protocol.ts";
import type { Counter, Events } from "./counter.ts";
import type { Sampled, Subject } from "./sampler.ts";

/** What counting gives a side: as timing does, with values in events per iteration. */
export interface CountSampled extends Sampled {
  counted: CountedTime;
  /** Every event callgrind counted, per iteration. */
  events: Events;
}

/** The process around the counter: its wall clock (ns), CPU clock, waits, and a full collection. */
export interface CountHost {
  clock: () => number;
  cpu?: () => { user: number; system: number };
  waits?: () => number;
  gc?: () => void;
}

/** A window no longer cheaper than the one before by more than this is settled. */
const SETTLE_TOLERANCE = 5e-4;
const MAX_ITERATIONS = 2 ** 30;

/** Regions of the empty windows that measure what a region itself costs. */
const OVERHEAD_REGIONS = 16;
let regionCost: Events | undefined;

/** What one region costs in this process, measured the first time it is asked for. */
function processRegionCost(counter: Counter): Events {
  regionCost ??= measureRegionCost(counter);
  return regionCost;
}

/**
 * What one region costs, per event: the cheapest of five windows of empty regions (the first
 * run before the code that switches collection is compiled).
 */
function measureRegionCost(counter: Counter): Events {
  let events: Events | undefined;
  for (let w = 0; w < 5; w++) {
    counter.zero();
    for (let r = 0; r < OVERHEAD_REGIONS; r++) {
      counter.region.begin();
      counter.region.end();
    }
    const read = counter.read("xbench region cost");
    if (!events || (read.Ir ?? 0) < (events.Ir ?? 0)) events = read;
  }
  return Object.fromEntries(Object.entries(events!).map(([name, value]) => [name, value / OVERHEAD_REGIONS]));
}

/** The smallest power of two with n × perIteration ≥ target (1 for a call that alone is enough). */
export function windowIterations(perIteration: number, target: number): number {
  if (!(perIteration > 0)) return MAX_ITERATIONS;
  let n = 1;
  while (n * perIteration < target && n < MAX_ITERATIONS) n *= 2;
  return n;
}

/** Whether a side's windows stopped getting cheaper: the last is within tolerance of the one before. */
export function windowsSettled(values: readonly number[]): boolean {
  if (values.length < 2) return false;
  return values[values.length - 1]! >= (1 - SETTLE_TOLERANCE) * values[values.length - 2]!;
}

interface Window {
  perIteration: Events;
  value: number;
  wallNs: number;
  cpuNs: number;
  systemNs: number;
  waits: number;
}

export async function sampleCounts(subjects: Subject[], budget: CountBudget, counter: Counter, host: CountHost): Promise<CountSampled[]> {
  const k = subjects.length;
  counter.instrument();
  const regionCost = processRegionCost(counter);
  const window = async (s: number, n: number, label: string): Promise<Window> => {
    host.gc?.();
    counter.zero();
    const cpu0 = host.cpu?.();
    const waits0 = host.waits?.() ?? 0;
    const t0 = host.clock();
    await subjects[s]!.batch(n);
    const wallNs = host.clock() - t0;
    const cpu1 = host.cpu?.();
    const waits = (host.waits?.() ?? 0) - waits0;
    const regions = counter.regions;
    const events = counter.read(label);
    const perIteration = Object.fromEntries(
      Object.entries(events).map(([name, total]) => [name, Math.max(0, total - regions * (regionCost[name] ?? 0)) / n]),
    );
    return {
      perIteration,
      value: counter.value(perIteration),
      wallNs,
      cpuNs: cpu0 && cpu1 ? (cpu1.user + cpu1.system - cpu0.user - cpu0.system) * 1000 : wallNs,
      systemNs: cpu0 && cpu1 ? (cpu1.system - cpu0.system) * 1000 : 0,
      waits,
    };
  };
  const ramps: Ramp[] = [];
  for (let s = 0; s < k; s++) ramps.push(await ramp((n) => window(s, n, `xbench ramp ${s}`), budget.windowEvents));
  let n = Math.max(...ramps.map((r) => r.n));
  const warmupNs = ramps.map((r) => r.wallNs);
  const calls = ramps.map((r) => Math.max(0, warmupCalls(budget, r.value) - r.calls));
  for (let i = 0; calls.some((c) => c > 0); i++) {
    const s = abbaIndex(i, k);
    if (calls[s]! <= 0) continue;
    const m = Math.min(n, calls[s]!);
    const t0 = host.clock();
    await subjects[s]!.batch(m);
    warmupNs[s]! += host.clock() - t0;
    calls[s]! -= m;
  }
  const windows: Window[][] = subjects.map(() => []);
  let resized = false;
  const enough = (w: Window[]) => w.length >= Math.max(budget.windows, 2);
  for (let i = 0; ; i++) {
    const s = abbaIndex(i, k);
    windows[s]!.push(await window(s, n, `xbench window ${s}`));
    if (i % 4 !== 3 && k > 1) continue;
    // Warm code can cost a fraction of the ramp's cold windows: windows sized on them would hold
    // too little. Once, the windows start again at the length the warm cost asks for.
    const needed = Math.max(...windows.map((w) => windowIterations(w.at(-1)!.value, budget.windowEvents)));
    if (needed >= 2 * n && !resized) {
      n = needed;
      resized = true;
      for (const w of windows) w.length = 0;
      i = -1;
      continue;
    }
    if (!windows.every(enough)) continue;
    if (windows.every((w) => windowsSettled(w.map((x) => x.value)))) break;
    if (windows.every((w) => w.length >= budget.settleWindows)) break;
  }
  return windows.map((w, s) => summarize(w.slice(-budget.windows), n, warmupNs[s]!));
}

/** A side's measured windows as a row: the median per iteration, and what the windows took. */
function summarize(windows: Window[], n: number, warmupNs: number): CountSampled {
  const values = windows.map((w) => w.value);
  const names = Object.keys(windows[0]!.perIteration);
  const sum = (pick: (w: Window) => number) => windows.reduce((total, w) => total + pick(w), 0);
  return {
    value: median(values),
    batches: windows.length,
    iterations: n,
    batchNs: median(windows.map((w) => w.wallNs)),
    halves: halfValues(values, median),
    warmupNs,
    counted: { wallNs: sum((w) => w.wallNs), cpuNs: sum((w) => w.cpuNs), systemNs: sum((w) => w.systemNs), waits: sum((w) => w.waits) },
    events: Object.fromEntries(names.map((name) => [name, median(windows.map((w) => w.perIteration[name] ?? 0))])),
  };
}

/** How much longer each window of a ramp is than the one before. */
const GROWTH = 8;

/** A side's ramp: the length its windows reach `windowEvents` at, its cost per iteration there, the calls and time it took. */
export interface Ramp {
  n: number;
  value: number;
  calls: number;
  wallNs: number;
}

/**
 * Counted windows of 1, then GROWTH times more iterations (powers of two, never more than the
 * last window's cost says reach `target`), until one holds `target` events.
 */
export async function ramp(count: (n: number) => Promise<Pick<Window, "value" | "wallNs">>, target: number): Promise<Ramp> {
  let n = 1;
  let calls = 0;
  let wallNs = 0;
  for (;;) {
    const { value, wallNs: took } = await count(n);
    calls += n;
    wallNs += took;
    if (value * n >= target || n >= MAX_ITERATIONS) return { n, value, calls, wallNs };
    // A window that compiled code reads costlier than the next will: never shrink n for it.
    n = Math.max(2 * n, Math.min(windowIterations(value, target), n * GROWTH));
  }
}

/**
 * Calls a side warms up with in all: `warmupCalls`, fewer for a costly call (as many as
 * `warmupEvents` at `perCall`), at least one.
 */
export function warmupCalls(budget: CountBudget, perCall: number): number {
  // A power of two: a cost that differs a little between processes (a hash seed, the heap's
  // layout) then rarely changes how long a side warms up.
  return Math.min(budget.warmupCalls, windowIterations(1, budget.warmupEvents / Math.max(perCall, 1)));
}
