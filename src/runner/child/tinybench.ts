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
 * `warmupTime`, `warmupIterations`, `throws`, `concurrency`, `now`/`timestampProvider`.
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
}

export class Bench extends EventTarget {
  readonly name?: string;
  readonly opts: Record<string, unknown>;
  readonly #tasks = new Map<string, Task>();

  constructor(options: Record<string, unknown> = {}) {
    super();
    this.opts = options;
    this.name = typeof options.name === "string" ? options.name : undefined;
    for (const key of ["time", "iterations", "warmupTime", "warmupIterations", "throws", "concurrency", "threshold"]) {
      if (key in options) (this as Record<string, unknown>)[key] = options[key];
    }
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
  async warmup() {}
  warmupSync() {}
  reset() {}

  table() {
    return this.tasks.map((task) => ({ "Task name": task.name, Note: "measured by xbench compare, not here" }));
  }
}

export const now = () => performance.now();
export const hrtimeNow = now;
export const nToMs = (ns: number) => ns / 1e6;
export const mToNs = (ms: number) => ms * 1e6;
export const formatNumber = (value: number) => String(value);
