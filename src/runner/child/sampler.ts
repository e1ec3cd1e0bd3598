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
// @ts-nocheck -- bundled from a virtual module into bench processes
import type { SamplingBudget } from "../protocol.ts";

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

const collectGarbage = (() => {
  if (globalThis.Bun?.gc) return () => globalThis.Bun.gc(true);
  if (typeof globalThis.gc === "function") return () => globalThis.gc();
  return undefined;
})();

/** One benchmark on one side, ready to time: `batch(n)` runs n iterations and returns the ns they took. */
export interface Subject {
  batch(n: number): Promise<number>;
  /** Runs what a generator benchmark does after its yield. */
  finish(): Promise<void>;
}

function isGenerator(fn) {
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
function callLoop(fn, isAsync: boolean, arity: number, bound: { self?: unknown; argument?: unknown } = {}) {
  const args = [...("argument" in bound ? ["argument"] : []), ...Array.from({ length: arity }, (_, i) => `p${i}[i]`)];
  const callee = "self" in bound ? `fn.call(${["self", ...args].join(", ")})` : `fn(${args.join(", ")})`;
  const call = `${isAsync ? "await " : ""}${callee}`;
  const source = `return ${isAsync ? "async " : ""}function batch(n, ${Array.from({ length: arity }, (_, i) => `p${i}`).join(", ") || "_"}) {
    const t0 = now();
    for (let i = 0; i < n; i++) sink.value = ${call};
    return now() - t0;
  } // subject ${++loops}`;
  return new Function("fn", "now", "sink", "self", "argument", source)(fn, now, sink, bound.self, bound.argument);
}

/** Calls `fn` once (a first warm-up call) and says whether it returned a promise. */
async function returnsPromise(fn, ...args): Promise<boolean> {
  const result = fn(...args);
  if (!(result instanceof Promise)) return fn instanceof AsyncFunction;
  await result;
  return true;
}

async function plainSubject(fn, gcInner: boolean, finish = async () => {}, bound = {}): Promise<Subject> {
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

/** `yield { [0]() { return input }, bench(input) { … } }`: inputs made outside the timing. */
async function parameterizedSubject(value, gcInner: boolean, finish): Promise<Subject> {
  const fn = value.bench;
  const makers = [];
  for (let i = 0; typeof value[i] === "function"; i++) makers.push(value[i]);
  const inputs = async (n) => {
    const columns = makers.map(() => new Array(n));
    for (let i = 0; i < n; i++) for (let k = 0; k < makers.length; k++) columns[k][i] = await makers[k]();
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
function iteratorSubject(fn, args, gcInner: boolean): Subject {
  return {
    async batch(n) {
      let count = 0;
      let t0 = 0;
      let t1 = 0;
      const iterator = {
        next() {
          if (count === 0) t0 = now();
          if (count++ < n) return { done: false, value: undefined };
          t1 = now();
          return { done: true, value: undefined };
        },
      };
      const state = {
        [Symbol.iterator]: () => iterator,
        [Symbol.asyncIterator]: () => iterator,
        get: (name) => args[name],
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
async function mitataSubject(fn, args: Record<string, unknown>, gc): Promise<Subject> {
  const gcInner = gc === "inner";
  if (isGenerator(fn)) {
    const generator = fn({ get: (name) => args[name] });
    const first = await generator.next();
    const finish = async () => {
      const last = await generator.next();
      if (!last.done) throw new Error("a generator benchmark must yield once");
    };
    if (typeof first.value === "function") return plainSubject(first.value, gcInner, finish);
    if (first.value && typeof first.value.bench === "function") return parameterizedSubject(first.value, gcInner, finish);
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
function iterationSubject(fn, bound: { self?: unknown; context?: boolean }, eachBefore?, eachAfter?): Subject {
  let start: number | undefined;
  let end: number | undefined;
  const context = { start: () => void (start = now()), end: () => void (end = now()), name: "", origin: "" };
  return {
    async batch(n) {
      let total = 0;
      for (let i = 0; i < n; i++) {
        if (eachBefore) await eachBefore();
        start = end = undefined;
        const t0 = now();
        const result = bound.context ? fn(context) : fn.call(bound.self);
        if (result instanceof Promise) await result;
        const t1 = now();
        total += (end ?? t1) - (start ?? t0);
        if (eachAfter) await eachAfter();
      }
      return total;
    },
    async finish() {},
  };
}

/** Whether a Deno benchmark times a section of itself: one call with a context that notices b.start(). */
async function timesSection(fn): Promise<boolean> {
  let started = false;
  const result = fn({ start: () => void (started = true), end: () => {}, name: "", origin: "" });
  if (result instanceof Promise) await result;
  return started;
}

/** vitest's, tinybench's, Benchmark.js's and Deno's benchmarks: a plain loop unless hooks or sections need more. */
async function otherSubject(benchmark): Promise<Subject> {
  const { fn, around = {} } = benchmark;
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
export async function prepare(benchmark): Promise<Subject> {
  const around = benchmark.around ?? { before: [], after: [] };
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

/** Iterations per batch so that the slower subject's batch takes about `batchNs`. */
async function calibrate(subjects: Subject[], batchNs: number): Promise<number> {
  let n = 1;
  for (;;) {
    const elapsed = await subjects[0].batch(n);
    if (elapsed >= batchNs / 2 || n >= 1e9) break;
    n = Math.min(1e9, Math.ceil(n * Math.min(16, Math.max(2, batchNs / Math.max(elapsed, 1)))));
  }
  for (const other of subjects.slice(1)) {
    const elapsed = await other.batch(n);
    if (elapsed > 2 * batchNs) n = Math.max(1, Math.floor((n * batchNs) / elapsed));
  }
  return n;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return (sorted[Math.floor(mid)] + sorted[Math.ceil(mid)]) / 2;
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
function settled(times: number[]): boolean {
  if (times.length < 2 * WINDOW) return false;
  const recent = median(times.slice(-WINDOW));
  const before = median(times.slice(-2 * WINDOW, -WINDOW));
  return recent >= 0.98 * before;
}

/**
 * Warms up and then measures one or two subjects alternately (A B B A…), A being the first
 * given; returns each subject's median time per iteration and its number of measured batches.
 */
export async function sample(subjects: Subject[], budget: SamplingBudget): Promise<Array<{ value: number; batches: number }>> {
  const k = subjects.length;
  const n = await calibrate(subjects, budget.batchNs);
  const spent = new Array(k).fill(0);
  const times: number[][] = subjects.map(() => []);
  const warming = (s: number) => spent[s] < budget.warmupNs || !settled(times[s]);
  let i = 0;
  while (subjects.some((_, s) => warming(s)) && spent.every((t) => t < WARMUP_CAP * budget.warmupNs)) {
    const s = abbaIndex(i++, k);
    const elapsed = await subjects[s].batch(n);
    spent[s] += elapsed;
    times[s].push(elapsed);
  }
  spent.fill(0);
  for (const t of times) t.length = 0;
  i = 0;
  const maxBatches = 100_000;
  const rewarm = Math.max(1, Math.ceil(n / 4));
  let previous = -1;
  while (spent.some((t, s) => t < budget.sideNs || times[s].length < budget.minBatches) && i < maxBatches) {
    const s = abbaIndex(i++, k);
    // After the other side ran, its data fills the caches: a short unmeasured batch brings this
    // side's back, else every switch adds the same refill to both sides and shrinks their ratio.
    if (s !== previous && previous !== -1) await subjects[s].batch(rewarm);
    previous = s;
    const elapsed = await subjects[s].batch(n);
    spent[s] += elapsed;
    times[s].push(elapsed / n);
  }
  return times.map((t) => ({ value: median(t), batches: t.length }));
}
