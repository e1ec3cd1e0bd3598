/**
 * Stands in for "tinybench" (v2, which older projects pin, and the current major) inside a
 * bench process: `new Bench().add(name, fn, hooks)` registers a benchmark, and `run()`,
 * `runSync()` and `warmup()` measure nothing and resolve at once, since xbench's sampler
 * measures every registered benchmark after the file has loaded. What a script prints
 * afterwards (`bench.table()`, `bench.results`, `task.result`) exists and reads as "not
 * measured here" (NaN), so the script finishes instead of throwing.
 *
 * Honoured: the bench's `name` (the row's group), `setup`/`teardown`, and per task
 * `beforeAll`/`beforeEach`/`afterEach`/`afterAll`. Ignored: `time`, `iterations`,
 * `warmupTime`, `warmupIterations`, `throws`, `concurrency`, `now`/`timestampProvider`, and a
 * result's `overriddenDuration` (xbench times the call itself). `add` of a name already there
 * replaces it, as tinybench 2 does (the current major throws instead: one row either way);
 * 2.x's `todo()` registers nothing, as it measures nothing.
 */
import { aroundFromOptions, register, unregister, usesApi } from "xbench-internal:registry";
import type { Registered } from "./registry.ts";

usesApi("tinybench");

/** A statistic xbench did not compute in this process: every field reads NaN, nested ones too. */
function notMeasured(): Record<string, unknown> {
  return new Proxy(
    {},
    {
      get(_, key) {
        if (typeof key === "symbol" || key === "then" || key === "toJSON") return undefined;
        if (key === "samples") return [];
        if (key === "state") return "not-started";
        if (key === "error") return undefined;
        if (key === "latency" || key === "throughput") return notMeasured();
        return Number.NaN;
      },
    },
  );
}

export class Task extends EventTarget {
  readonly name: string;
  readonly fn: () => unknown;
  readonly result = notMeasured();
  readonly runs = 0;
  readonly entry: Registered;

  constructor(bench: Bench, name: string, fn: () => unknown, fnOpts: Record<string, unknown> = {}) {
    super();
    this.name = name;
    this.fn = fn;
    const options = { ...bench.opts, ...fnOpts };
    const around = aroundFromOptions(options, name, this);
    // Bench-level setup/teardown receive the task and a mode; per-task hooks are bound to the task.
    this.entry = register({ api: "tinybench", groups: bench.name ? [bench.name] : [], name, fn, around });
  }

  async run() {
    return this;
  }
  runSync() {
    return this;
  }
  async warmup() {}
  warmupSync() {}
  reset() {}
  /** The current major's clock resolution, detected while it measured: nothing here. */
  get detectedResolution() {
    return undefined;
  }
}

/** Options as the current major reports them when not given (a script may print them). */
const DEFAULTS: Record<string, unknown> = {
  concurrency: null,
  iterations: 64,
  retainSamples: false,
  threshold: Number.POSITIVE_INFINITY,
  throws: false,
  time: 1000,
  warmupIterations: 16,
  warmupTime: 250,
};

export class Bench extends EventTarget {
  readonly name?: string;
  readonly opts: Record<string, unknown>;
  readonly #tasks = new Map<string, Task>();
  readonly #todos = new Map<string, Task>();

  constructor(options: Record<string, unknown> = {}) {
    super();
    this.opts = options;
    this.name = typeof options.name === "string" ? options.name : undefined;
    for (const [key, value] of Object.entries(DEFAULTS)) (this as Record<string, unknown>)[key] = key in options ? options[key] : value;
    Object.assign(this, {
      now: typeof options.now === "function" ? options.now : now,
      setup: typeof options.setup === "function" ? options.setup : () => {},
      teardown: typeof options.teardown === "function" ? options.teardown : () => {},
      signal: options.signal,
      runtime: "xbench",
      runtimeVersion: "",
    });
  }

  add(name: string, fn: () => unknown, fnOpts: Record<string, unknown> = {}) {
    this.remove(name);
    this.#tasks.set(name, new Task(this, name, fn, fnOpts));
    return this;
  }

  remove(name: string) {
    const task = this.#tasks.get(name);
    if (task) unregister(task.entry);
    this.#tasks.delete(name);
    return this;
  }

  getTask(name: string) {
    return this.#tasks.get(name);
  }

  /** tinybench 2's placeholder for a benchmark not written yet: listed, never measured. */
  todo(name: string, fn: () => unknown = () => {}) {
    this.#todos.set(name, { name, fn, result: notMeasured(), runs: 0 } as unknown as Task);
    return this;
  }

  get todos() {
    return [...this.#todos.values()];
  }

  get tasks() {
    return [...this.#tasks.values()];
  }

  get results() {
    return this.tasks.map((task) => task.result);
  }

  async run() {
    return this.tasks;
  }
  runSync() {
    return this.tasks;
  }
  /** tinybench 2's concurrent run, which xbench's sampler replaces like any other run. */
  async runConcurrently() {
    return this.tasks;
  }
  async warmupConcurrently() {}
  /** tinybench 2's method; the current major's boolean option of that name is read by no one here. */
  async warmup() {}
  warmupSync() {}
  reset() {}

  table() {
    return this.tasks.map((task) => ({ "Task name": task.name, Note: "measured by xbench compare, not here" }));
  }
}

export function now() {
  return performance.now();
}
export const hrtimeNow = now;
export const nToMs = (ns: number) => ns / 1e6;
export const mToNs = (ms: number) => ms * 1e6;
export const formatNumber = (value: number) => String(value);
/** The current major's statistics helpers, for scripts that post-process samples: plain versions. */
export const medianAbsoluteDeviation = (samples: number[]) => {
  if (samples.length === 0) return Number.NaN;
  const mid = (xs: number[]) => (xs.length % 2 ? xs[(xs.length - 1) / 2]! : (xs[xs.length / 2 - 1]! + xs[xs.length / 2]!) / 2);
  const median = mid(samples);
  return mid(samples.map((x) => Math.abs(x - median)).sort((a, b) => a - b));
};
export const classifyTimerSaturation = () => undefined;
export const detectTimerSaturation = () => false;
export const estimateResolution = () => undefined;
export const calibrateTimerOverhead = () => 0;
export const performanceNowTimestampProvider = {
  name: "performanceNow",
  fn: now,
  fromMs: (ms: number) => ms,
  toMs: (value: number) => value,
};
export const hrtimeNowTimestampProvider = { name: "hrtimeNow", fn: now, fromMs: (ms: number) => ms, toMs: (value: number) => value };
