/**
 * Times mitata benchmarks in a bench process, one side alone or two sides alternately.
 *
 * Why alternate: fresh processes on a shared machine differ as a whole (a process can run
 * ~1.5x slower for its whole life), so comparing one process per side mostly measures which
 * process was lucky. Two copies of the code in one process, measured in short batches in the
 * order A B B A A B B A…, share the core, the frequency and the neighbours, and their ratio
 * cancels all of that. What they do not share is the JIT's decisions about each copy, which
 * is why the parent still runs many processes and varies which side goes first.
 *
 * Each side gets its own batch loop (compiled per subject, as mitata does), so a call site
 * never sees both sides' functions and neither side's code is deoptimized by the other's.
 */
import type { SamplingBudget } from "../protocol.ts";
import type { Around } from "./registry.ts";
import type { BenchmarkCase } from "./side.ts";

/** A function a bench file gave to be timed, or one that makes or drives what is timed. */
type Fn = (...args: unknown[]) => unknown;

/** Deno's BenchContext, as far as a benchmark can use it here. */
interface BenchContext {
  start(): void;
  end(): void;
  name: string;
  origin: string;
}

const AsyncFunction = (async () => {}).constructor;
const GeneratorFunction = function* () {}.constructor;
const AsyncGeneratorFunction = async function* () {}.constructor;

/** Where results go so the JIT cannot drop the benchmarked call. */
const sink = { value: undefined };

export const now = (() => {
  if (globalThis.Bun?.nanoseconds) return globalThis.Bun.nanoseconds;
  const performanceNow = performance.now.bind(performance);
  return () => 1e6 * performanceNow();
})();

/**
 * Where the code a batch measures begins and ends. Timing reads the clock at both ends (`begin`
 * and `end` are `now`); counting (count-sampler.ts) turns callgrind's collection on and off there
 * instead, so exactly the code a time-mode batch times is counted, and hooks, inputs made per
 * batch and a forced collection between iterations are not. `mark` is a reading that starts
 * nothing: where a section (`b.start()`) may begin later than the iteration.
 */
export interface Region {
  begin(): number;
  end(): number;
  mark(): number;
}

const TIMED: Region = { begin: now, end: now, mark: now };
let region: Region = TIMED;

/** The region every subject prepared from now on measures; the time mode's by default. */
export function measureRegion(next: Region = TIMED): void {
  region = next;
}

/**
 * The smallest step this runtime's clock can show, in ns: the median step between consecutive
 * readings that differ (at most 200 steps or 20 ms). That is the tick of a coarse clock, or the
 * cost of a reading where ticks are finer than it: either way the resolution of a batch's time.
 */
export function measureResolution(clock: () => number = now): number {
  // A probe cut short by a preemption holds a few steps, one of them the whole timeslice lost:
  // read as the clock's tick, it would set a batch floor of seconds. Such a probe is taken
  // again, the smallest reading kept, and no reading counts for more than a coarse clock's tick.
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < RESOLUTION_PROBES; attempt++) {
    const probe = probeResolution(clock);
    best = Math.min(best, probe.median);
    if (probe.steps >= RESOLUTION_STEPS) break;
  }
  return Math.min(best, MAX_RESOLUTION_NS);
}

/** Probes of the clock at most, and the steps a probe takes when nothing cuts it short. */
const RESOLUTION_PROBES = 5;
const RESOLUTION_STEPS = 200;
/** The coarsest tick a clock is taken to have (1 ms): its batch floor is then 1 s. */
export const MAX_RESOLUTION_NS = 1e6;

function probeResolution(clock: () => number): { median: number; steps: number } {
  const steps: number[] = [];
  let last = clock();
  const end = last + 20e6;
  while (steps.length < RESOLUTION_STEPS) {
    const t = clock();
    if (t !== last) {
      steps.push(t - last);
      last = t;
    }
    if (t >= end) break;
  }
  return { median: steps.length > 0 ? median(steps) : 20e6, steps: steps.length };
}

let resolution: number | undefined;

/** The clock's resolution, measured once per bench process, when its first benchmark starts. */
export function clockResolution(): number {
  resolution ??= measureResolution();
  return resolution;
}

/**
 * The shortest batch: 1 ms, or 1000 ticks of a coarser clock, so that the clock's resolution is
 * under 0.1% of every batch and per-iteration times cannot repeat to the last digit on both sides
 * (a batch of 16 iterations of a 0.7 µs benchmark on a 1 µs clock can only take 11 or 12 µs).
 */
export function batchFloorNs(resolutionNs: number): number {
  return Math.max(1e6, 1000 * resolutionNs);
}

const collectGarbage = (() => {
  const bun = globalThis.Bun;
  if (bun?.gc) return () => bun.gc(true);
  if (typeof globalThis.gc === "function") return () => globalThis.gc!();
  return undefined;
})();

/** One benchmark on one side, ready to time: `batch(n)` runs n iterations and returns the ns they took. */
export interface Subject {
  batch(n: number): Promise<number>;
  /** Runs what a generator benchmark does after its yield. */
  finish(): Promise<void>;
}

function isGenerator(fn: unknown): boolean {
  return fn instanceof GeneratorFunction || fn instanceof AsyncGeneratorFunction;
}

/** Loops compiled in this process, numbered so that no two have the same source (see callLoop). */
let loops = 0;

/**
 * A loop of n calls of `fn`, compiled for this subject alone; awaited when `fn` is async.
 * `self` is bound as `this` (Benchmark.js), `argument` passed first (Deno's BenchContext). Its
 * source carries a serial number: newer V8s (deno 2.9's V8 15, not node 20's V8 11) cache
 * `new Function` by source and give every function made from the same text one feedback cell,
 * so two subjects' loops would share one call site, its feedback and its optimized code: one
 * side's functions would shape the code that times the other's, and so would earlier rows.
 */
function callLoop(
  fn: Fn,
  isAsync: boolean,
  arity: number,
  bound: { self?: unknown; argument?: unknown } = {},
): (n: number, ...inputs: unknown[][]) => Promise<number> | number {
  const args = [...("argument" in bound ? ["argument"] : []), ...Array.from({ length: arity }, (_, i) => `p${i}[i]`)];
  const callee = "self" in bound ? `fn.call(${["self", ...args].join(", ")})` : `fn(${args.join(", ")})`;
  const call = `${isAsync ? "await " : ""}${callee}`;
  const source = `return ${isAsync ? "async " : ""}function batch(n, ${Array.from({ length: arity }, (_, i) => `p${i}`).join(", ") || "_"}) {
    const t0 = begin();
    for (let i = 0; i < n; i++) sink.value = ${call};
    return end() - t0;
  } // subject ${++loops}`;
  return new Function("fn", "begin", "end", "sink", "self", "argument", source)(
    fn,
    region.begin,
    region.end,
    sink,
    bound.self,
    bound.argument,
  );
}

/** Calls `fn` once (a first warm-up call) and says whether it returned a promise. */
async function returnsPromise(fn: Fn, ...args: unknown[]): Promise<boolean> {
  const result = fn(...args);
  if (!(result instanceof Promise)) return fn instanceof AsyncFunction;
  await result;
  return true;
}

async function plainSubject(
  fn: Fn,
  gcInner: boolean,
  finish = async () => {},
  bound: { self?: unknown; argument?: unknown } = {},
): Promise<Subject> {
  const isAsync = await returnsPromise(() => ("self" in bound ? fn.call(bound.self) : "argument" in bound ? fn(bound.argument) : fn()));
  const loop = callLoop(fn, isAsync, 0, bound);
  return {
    async batch(n) {
      if (gcInner) collectGarbage?.();
      return loop(n);
    },
    finish,
  };
}

/** What a generator benchmark yields to take inputs: `{ [0]() { return input }, bench(input) { … } }`. */
interface Parameterized {
  bench: Fn;
  [maker: number]: unknown;
}

/** `yield { [0]() { return input }, bench(input) { … } }`: inputs made outside the timing. */
async function parameterizedSubject(value: Parameterized, gcInner: boolean, finish: () => Promise<void>): Promise<Subject> {
  const fn = value.bench;
  const makers: Fn[] = [];
  for (let i = 0; typeof value[i] === "function"; i++) makers.push(value[i] as Fn);
  const inputs = async (n: number) => {
    const columns: unknown[][] = makers.map(() => new Array(n));
    for (let i = 0; i < n; i++) for (let k = 0; k < makers.length; k++) columns[k]![i] = await makers[k]!();
    return columns;
  };
  const probe = await inputs(1);
  const isAsync = await returnsPromise(fn, ...probe.map((column) => column[0]));
  const loop = callLoop(fn, isAsync, makers.length);
  return {
    async batch(n) {
      const columns = await inputs(n);
      if (gcInner) collectGarbage?.();
      return loop(n, ...columns);
    },
    finish,
  };
}

/** `bench(name, function (state) { for (const _ of state) work(); })`: the function drives the loop. */
function iteratorSubject(fn: Fn, args: Record<string, unknown>, gcInner: boolean): Subject {
  return {
    async batch(n) {
      let count = 0;
      let t0 = 0;
      let t1 = 0;
      const iterator = {
        next() {
          if (count === 0) t0 = region.begin();
          if (count++ < n) return { done: false, value: undefined };
          t1 = region.end();
          return { done: true, value: undefined };
        },
      };
      const state = {
        [Symbol.iterator]: () => iterator,
        [Symbol.asyncIterator]: () => iterator,
        get: (name: string) => args[name],
      };
      if (gcInner) collectGarbage?.();
      const result = fn(state);
      if (result instanceof Promise) await result;
      if (count <= n) throw new Error(`the benchmark's loop ended after ${Math.max(0, count - 1)} of ${n} iterations`);
      return t1 - t0;
    },
    async finish() {},
  };
}

/** Turns a mitata benchmark function (plain, async, generator or iterator style) into a Subject. */
async function mitataSubject(fn: Fn, args: Record<string, unknown>, gc: BenchmarkCase["gc"]): Promise<Subject> {
  const gcInner = gc === "inner";
  if (isGenerator(fn)) {
    const generator = fn({ get: (name: string) => args[name] }) as Generator<unknown> | AsyncGenerator<unknown>;
    const first = await generator.next();
    const finish = async () => {
      const last = await generator.next();
      if (!last.done) throw new Error("a generator benchmark must yield once");
    };
    if (typeof first.value === "function") return plainSubject(first.value as Fn, gcInner, finish);
    if (first.value && typeof (first.value as Parameterized).bench === "function")
      return parameterizedSubject(first.value as Parameterized, gcInner, finish);
    throw new TypeError("a generator benchmark must yield a function or { bench }");
  }
  if (typeof fn !== "function") throw new TypeError("a benchmark needs a function");
  if (fn.length > 0) return iteratorSubject(fn, args, gcInner);
  return plainSubject(fn, gcInner);
}

/**
 * Iterations timed one by one, with hooks between them outside the timing (tinybench's
 * beforeEach/afterEach), or a section of each iteration (Deno's b.start()/b.end()). Costs a
 * clock read per iteration, so only benchmarks that ask for it are timed this way.
 */
function iterationSubject(
  fn: Fn,
  bound: { self?: unknown; context?: boolean },
  eachBefore?: () => unknown,
  eachAfter?: () => unknown,
): Subject {
  const { begin, end: close, mark } = region;
  let start: number | undefined;
  let end: number | undefined;
  const context: BenchContext = { start: () => void (start = begin()), end: () => void (end = close()), name: "", origin: "" };
  return {
    async batch(n) {
      let total = 0;
      for (let i = 0; i < n; i++) {
        if (eachBefore) await eachBefore();
        start = end = undefined;
        // A section begins at b.start(): the iteration's own start is only a reading then.
        const t0 = bound.context ? mark() : begin();
        const result = bound.context ? fn(context) : fn.call(bound.self);
        if (result instanceof Promise) await result;
        const t1 = bound.context && (start === undefined || end !== undefined) ? mark() : close();
        total += (end ?? t1) - (start ?? t0);
        if (eachAfter) await eachAfter();
      }
      return total;
    },
    async finish() {},
  };
}

/** Whether a Deno benchmark times a section of itself: one call with a context that notices b.start(). */
async function timesSection(fn: Fn): Promise<boolean> {
  let started = false;
  const result = fn({ start: () => void (started = true), end: () => {}, name: "", origin: "" });
  if (result instanceof Promise) await result;
  return started;
}

/** vitest's, tinybench's, Benchmark.js's and Deno's benchmarks: a plain loop unless hooks or sections need more. */
async function otherSubject(benchmark: BenchmarkCase): Promise<Subject> {
  const { fn, around = {} as Partial<Around> } = benchmark;
  if (typeof fn !== "function") throw new TypeError("a benchmark needs a function");
  const bound = "self" in benchmark ? { self: benchmark.self } : {};
  let subject: Subject;
  if (benchmark.section && (await timesSection(fn))) subject = iterationSubject(fn, { context: true });
  else if (around.eachBefore || around.eachAfter) subject = iterationSubject(fn, bound, around.eachBefore, around.eachAfter);
  else
    subject = await plainSubject(
      fn,
      false,
      undefined,
      benchmark.section ? { argument: { start() {}, end() {}, name: benchmark.label, origin: "" } } : bound,
    );
  if (!around.batchSetup && !around.batchTeardown) return subject;
  return {
    async batch(n) {
      await around.batchSetup?.();
      const elapsed = await subject.batch(n);
      await around.batchTeardown?.();
      return elapsed;
    },
    finish: subject.finish,
  };
}

/**
 * Readies one benchmark of any API to be timed: its before-hooks run first, outside the
 * timing, and `finish()` runs its after-hooks.
 */
export async function prepare(benchmark: BenchmarkCase): Promise<Subject> {
  const around: Around = benchmark.around ?? { before: [], after: [] };
  for (const hook of around.before) await hook();
  const subject =
    benchmark.api === "mitata" ? await mitataSubject(benchmark.fn, benchmark.args, benchmark.gc) : await otherSubject(benchmark);
  return {
    batch: subject.batch,
    async finish() {
      await subject.finish();
      for (const hook of around.after) await hook();
    },
  };
}

/**
 * Iterations per batch so that every subject's batch lasts at least `batchNs`: each subject in
 * turn ramps n up until its batch is that long, and n never comes down; and the shortest of the
 * subjects' last batches (one call each, for a slow benchmark). Taking the larger n keeps
 * the faster side's batches at length; shrinking n for a slow batch once let the other side's
 * first, cold batch cut a 0.7 µs benchmark's batches to 10-20 iterations (8-15 µs).
 */
async function calibrate(subjects: Subject[], batchNs: number): Promise<{ n: number; shortest: number }> {
  let n = 1;
  let shortest = Infinity;
  // A wall-clock cap: on a machine busy enough that every batch is cut short of its length in
  // running time, the ramp would go on; past the cap, n is what it reached (warm-up grows it).
  const deadline = now() + calibrationCapNs(batchNs);
  for (const subject of subjects) {
    for (;;) {
      const elapsed = await subject.batch(n);
      if (elapsed >= batchNs || n >= MAX_ITERATIONS || now() > deadline) {
        shortest = Math.min(shortest, elapsed);
        break;
      }
      n = grow(n, elapsed, batchNs);
    }
  }
  return { n, shortest };
}

/** How long a calibration may take in wall time: 20 batches, and at least 2 s. */
export function calibrationCapNs(batchNs: number): number {
  return Math.max(2e9, 20 * batchNs);
}

const MAX_ITERATIONS = 1e9;

/** The next n of a ramp: aimed 10% past `batchNs` from a batch of n that took `elapsed`, at most 16 times n. */
function grow(n: number, elapsed: number, batchNs: number): number {
  return Math.min(MAX_ITERATIONS, Math.max(n + 1, Math.ceil(n * Math.min(16, (1.1 * batchNs) / Math.max(elapsed, 1)))));
}

/**
 * n once warm, or grown during measurement: from the fastest of each side's recent batches (a
 * batch the process was descheduled in only looks slower), the n that makes the faster side's
 * batch at least `batchNs` long, with 10% to spare; never less than the n before. The JIT keeps
 * making code faster during warm-up, and a loaded machine stretches the batches n was sized on.
 */
function grownIterations(n: number, perIteration: number[][], batchNs: number): number {
  let needed = n;
  for (const t of perIteration) {
    if (t.length === 0) continue;
    needed = Math.max(needed, Math.ceil((1.1 * batchNs) / Math.max(Math.min(...t), 1e-3)));
  }
  return Math.min(MAX_ITERATIONS, needed);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2;
}

/** Position i of the sequence A B B A A B B A… for two subjects (A A A… for one). */
export function abbaIndex(i: number, k: number): number {
  if (k === 1) return 0;
  return i % 4 === 0 || i % 4 === 3 ? 0 : 1;
}

/** Batches compared when deciding that warm-up is over: the last WINDOW against the WINDOW before. */
const WINDOW = 4;
/** Warm-up lasts at most this many times its planned length. */
const WARMUP_CAP = 10;

/**
 * Warm-up is over for a side when its recent batches are no longer getting faster: JIT tiers
 * are reached per copy of the code, and under load the optimizing compiler's thread may
 * wait long for a core, so a fixed warm-up leaves one side in a slower tier in some processes.
 */
function settled(times: number[], window = WINDOW): boolean {
  if (times.length < 2 * window) return false;
  const recent = median(times.slice(-window));
  const before = median(times.slice(-2 * window, -window));
  return recent >= 0.98 * before;
}

/**
 * A call at least this long is a slow benchmark: batches of one call each, a warm-up of a few
 * calls (its loops reach the optimizing tiers within the first call), and more measured calls.
 */
const SLOW_CALL_NS = 10e6;
/** Batches compared when deciding that a slow benchmark's warm-up is over. */
const SLOW_WINDOW = 2;
/**
 * Fewest measured calls a side of a slow benchmark gets per process. Under load the calls of a
 * 50 ms benchmark varied by a factor of 2 within a process (sd of ln 0.6 on the 2-core VM at
 * load 8): more of them per process, and fewer spent warming up, narrow the interval most
 * for the same time (docs/sampling.md).
 */
const SLOW_MIN_BATCHES = 12;
/**
 * A slow benchmark measures at least this many times as long as it warmed up, so that most of
 * a process goes to calls that count: at 12 calls a side a 27 ms benchmark spent 38% of its
 * processes measuring, the rest starting and warming up (docs/sampling.md).
 */
const SLOW_MEASURE_FACTOR = 3;
/** Share of a slow side's calls, the fastest, that its value averages (the slowest are dropped). */
const SLOW_KEPT = 0.9;

/**
 * A slow side's value: the mean of its fastest 90% of calls. One call is one batch, and an
 * allocating call's time depends on where in the collector's cycle it starts (11 or 35 ms for
 * the same 27 ms parse, in turns): a median of such values jumps between the modes, a mean
 * does not (0.5 to 0.9 times the spread over processes, docs/sampling.md). The slowest tenth is
 * dropped because a call the process was descheduled in is only ever slower.
 */
export function slowValue(perCall: number[]): number {
  const kept = [...perCall].sort((a, b) => a - b).slice(0, Math.max(1, Math.ceil(perCall.length * SLOW_KEPT)));
  return kept.reduce((sum, x) => sum + x, 0) / kept.length;
}

/** What one subject's sampling in one process gave: its median time per iteration, and how. */
export interface Sampled {
  /** Median over measured batches of the batch's time per iteration (ns); for a slow benchmark, see slowValue. */
  value: number;
  /** Measured batches. */
  batches: number;
  /** Iterations per measured batch. */
  iterations: number;
  /** Median length of a measured batch (ns). */
  batchNs: number;
  /**
   * The value of the first and of the second half of the measured batches: how far two halves
   * of one process disagree says how much of a round's noise the process's own sampling adds
   * (compare/rounds/allocate.ts weighs it against the noise between processes).
   */
  halves: [number, number];
  /** Time spent warming up before the first measured batch (ns). */
  warmupNs: number;
}

/** A side's value from the first and from the second half of its batches (one batch: both the same). */
export function halfValues(perIteration: number[], value: (t: number[]) => number): [number, number] {
  if (perIteration.length < 2) return [value(perIteration), value(perIteration)];
  const mid = Math.floor(perIteration.length / 2);
  return [value(perIteration.slice(0, mid)), value(perIteration.slice(mid))];
}

/**
 * Warms up and then measures one or two subjects alternately (A B B A…), A being the first
 * given; returns each subject's median time per iteration, its number of measured batches,
 * and how long they were. Every batch lasts at least `batchFloorNs(resolutionNs)`.
 */
export async function sample(
  subjects: Subject[],
  budget: SamplingBudget,
  resolutionNs = clockResolution(),
  cpuClock: (() => number) | null = cpuTime ?? null,
): Promise<Sampled[]> {
  const running = (elapsedNs: number, cpuBefore: number | undefined) => runningNs(elapsedNs, cpuBefore, cpuClock);
  const k = subjects.length;
  const batchNs = Math.max(budget.batchNs, batchFloorNs(resolutionNs));
  const calibrated = await calibrate(subjects, batchNs);
  let n = calibrated.n;
  const slow = n === 1 && calibrated.shortest >= SLOW_CALL_NS;
  const minBatches = slow ? Math.max(budget.minBatches, SLOW_MIN_BATCHES) : budget.minBatches;
  const spent = new Array(k).fill(0);
  const times: number[][] = subjects.map(() => []);
  const warming = (s: number) => spent[s] < budget.warmupNs || !settled(times[s]!, slow ? SLOW_WINDOW : WINDOW);
  let i = 0;
  while (subjects.some((_, s) => warming(s)) && spent.every((t) => t < WARMUP_CAP * budget.warmupNs)) {
    const s = abbaIndex(i++, k);
    const cpuBefore = cpuClock?.();
    const elapsed = await subjects[s]!.batch(n);
    spent[s] += running(elapsed, cpuBefore);
    times[s]!.push(elapsed);
  }
  n = grownIterations(
    n,
    times.map((t) => t.slice(-2 * WINDOW).map((elapsed) => elapsed / n)),
    batchNs,
  );
  const sideNs = slow ? Math.max(budget.sideNs, SLOW_MEASURE_FACTOR * Math.max(...spent)) : budget.sideNs;
  const warmed = [...spent];
  spent.fill(0);
  for (const t of times) t.length = 0;
  const lengths: number[][] = subjects.map(() => []);
  const ranClean: boolean[][] = subjects.map(() => []);
  i = 0;
  const maxBatches = 100_000;
  // Wall time the measuring may take when most batches are descheduled: past it, the sides are
  // read from what they have (cleanBatches then falls back to every batch).
  const wallCapNs = WALL_CAP * Math.max(sideNs, minBatches * batchNs) * k;
  const started = now();
  const clean = new Array(k).fill(0);
  // A batch of one call is at least 1 ms long and refills the caches itself at the start; a
  // rewarm call before it would double the time of a slow benchmark for nothing.
  let rewarm = n > 1 ? Math.ceil(n / 4) : 0;
  let previous = -1;
  while (spent.some((t, s) => t < sideNs || clean[s] < minBatches) && i < maxBatches && now() - started < wallCapNs) {
    // A batch that came out short (the code got faster still) grows n, at the start of an
    // A B B A cycle so that both sides get as many batches of each n.
    if (i % 4 === 0 && i > 0 && lengths.some((l) => Math.min(...l.slice(-2)) < batchNs)) {
      n = grownIterations(
        n,
        times.map((t) => t.slice(-2)),
        batchNs,
      );
      rewarm = n > 1 ? Math.ceil(n / 4) : 0;
    }
    const s = abbaIndex(i++, k);
    // After the other side ran, its data fills the caches: a short unmeasured batch brings this
    // side's back, else every switch adds the same refill to both sides and shrinks their ratio.
    if (s !== previous && previous !== -1 && rewarm > 0) await subjects[s]!.batch(rewarm);
    previous = s;
    const cpuBefore = cpuClock?.();
    const elapsed = await subjects[s]!.batch(n);
    const ran = running(elapsed, cpuBefore);
    const wasClean = cpuBefore === undefined || !preempted(elapsed, ran);
    ranClean[s]!.push(wasClean);
    if (wasClean) clean[s]++;
    spent[s] += ran;
    times[s]!.push(elapsed / n);
    lengths[s]!.push(elapsed);
  }
  const sideValue = slow && n === 1 ? slowValue : median;
  const kept = cleanBatches(times, ranClean, minBatches);
  return kept.map((t, s) => ({
    value: sideValue(t),
    batches: t.length,
    iterations: n,
    batchNs: median(lengths[s]!),
    halves: halfValues(t, sideValue),
    warmupNs: warmed[s]!,
  }));
}

/** This process's CPU time in ns (all its threads), where the runtime tells it: node's, bun's and deno's `process.cpuUsage`. */
const cpuTime = (() => {
  const usage = (globalThis as { process?: { cpuUsage?: () => { user: number; system: number } } }).process?.cpuUsage;
  if (typeof usage !== "function") return undefined;
  return () => {
    const { user, system } = usage.call(process);
    return (user + system) * 1000;
  };
})();

/**
 * The time a batch ran: its wall time, or the CPU time the process used meanwhile when that is
 * less (the process was descheduled). Warm-up and sampling budgets count running time, so that
 * on a busy machine a side still gets the work it would get on a quiet one: counted in wall
 * time, a process given a tenth of a core warmed up a tenth as long and kept only the 8
 * minimum batches, most of them cut by timeslices (docs/sampling.md, "Batches the process was
 * descheduled in").
 */
function runningNs(elapsedNs: number, cpuBefore: number | undefined, cpuClock: (() => number) | null): number {
  return cpuBefore === undefined || cpuClock === null ? elapsedNs : Math.min(elapsedNs, cpuClock() - cpuBefore);
}

/** How many times its budget in wall time a process's measuring may take on a busy machine. */
export const WALL_CAP = 8;

/**
 * A batch the process was descheduled in: its wall time exceeds the CPU time the process used
 * meanwhile by more than a fifth (and 50 µs, the CPU clock's grain). On a busy machine a
 * timeslice (a few ms) falls into some 1 ms batches, and with batches alternating A B B A the
 * slices can fall in step with one side more than the other: rounds with one side 30% to 4x
 * slower in the same process (docs/sampling.md, "Batches the process was descheduled in").
 */
export function preempted(wallNs: number, cpuNs: number): boolean {
  return wallNs > 1.2 * cpuNs + 50_000;
}

/**
 * The batches a side's value is read from: those not descheduled, when both sides kept at least
 * `minBatches` and a quarter of theirs; else all (a machine so busy that most batches were cut,
 * where the median of all is the better reading). Both sides or neither, so that the two are
 * read alike.
 */
export function cleanBatches(times: number[][], clean: boolean[][], minBatches: number): number[][] {
  const kept = times.map((t, s) => t.filter((_, i) => clean[s]![i]));
  const enough = kept.every((t, s) => t.length >= Math.max(minBatches, times[s]!.length / 4));
  return enough ? kept : times;
}
