/**
 * Stands in for Benchmark.js ("benchmark") inside a bench process: `new Benchmark.Suite()`,
 * `.add(name, fn, options)` and `new Benchmark(name, fn)` register benchmarks; `.run()`
 * measures nothing, fires the suite's `start` and `complete` listeners (so suites chained on
 * `complete` still run) and returns, since xbench's sampler measures every registered
 * benchmark after the file has loaded. No `cycle` event fires: there is nothing to print.
 *
 * Honoured: `setup`/`teardown` (per batch, outside the timing, sharing variables with `fn`
 * the way Benchmark.js does by joining their source when it can, else through `this`),
 * `defer: true` with `deferred.resolve()`, and functions given as strings.
 * Ignored: `minSamples`, `maxTime`, `minTime`, `initCount`, `delay`, `async`.
 *
 * CommonJS, like the package: `require("benchmark")` and `import Benchmark from "benchmark"`
 * both get the constructor.
 */
const { register, usesApi } = require("xbench-internal:registry") as typeof import("xbench-internal:registry");

// A type query, not an `import type`: the file stays CommonJS without a single import statement.
type Around = import("./registry.ts").Around;
type Fn = (...args: unknown[]) => unknown;
/** Code as Benchmark.js takes it: a function, or its body as a string. */
type Code = Fn | string | undefined;

/** A benchmark's options, merged from Benchmark.options and every argument form. */
interface Options {
  name?: unknown;
  fn?: Code;
  setup?: Code;
  teardown?: Code;
  defer?: boolean;
  [key: string]: unknown;
}

/** Benchmark.js's `deferred`: the benchmark calls `deferred.resolve()` when its async work is done. */
interface Deferred {
  benchmark: BenchmarkInstance;
  resolve: (value?: unknown) => void;
  reject: (reason?: unknown) => void;
}

interface BenchEvent {
  type: string;
  target?: unknown;
  currentTarget?: unknown;
}

type Listener = (this: unknown, event: BenchEvent) => unknown;

/** What Benchmark and Suite share: listeners per event type. */
interface Emitter {
  events: Record<string, Listener[]>;
  on(type: unknown, listener: Listener): this;
  off(type?: string, listener?: Listener): this;
  emit(event: string | BenchEvent): this;
  listeners(type: string): Listener[];
  run(): this;
  abort(): this;
  reset(): this;
}

interface BenchmarkInstance extends Emitter {
  options: Options;
  name: unknown;
  id: number;
  fn: Code;
  stats: { mean: number; rme: number; deviation: number; sample: number[] };
  hz: number;
  count: number;
  cycles: number;
  times: { cycle: number; elapsed: number; period: number };
  clone(options?: Options): BenchmarkInstance;
  compare(): number;
}

interface SuiteInstance extends Emitter {
  name: unknown;
  options: Record<string, unknown>;
  length: number;
  [index: number]: unknown;
  add(name: unknown, fn?: unknown, options?: unknown): this;
  toArray(): unknown[];
  map(callback: string | ((item: unknown, index: number) => unknown)): unknown[];
}

/** Benchmark and Suite are called with or without `new`, as Benchmark.js's are. */
type BenchmarkClass = new (name?: unknown, fn?: unknown, options?: unknown) => BenchmarkInstance;
type SuiteClass = new (name?: unknown, options?: unknown) => SuiteInstance;

usesApi("Benchmark.js");

/** The source of a function's body, for Benchmark.js's joining of setup, fn and teardown. */
function bodyOf(code: unknown): string {
  if (typeof code === "string") return code;
  if (typeof code !== "function") return "";
  const text = Function.prototype.toString.call(code);
  const open = text.indexOf("{");
  const arrow = text.indexOf("=>");
  // `() => expr`: an arrow without a block body is its expression.
  if (arrow !== -1 && (open === -1 || arrow < open)) {
    const rest = text.slice(arrow + 2).trim();
    return rest.startsWith("{") ? rest.slice(1, rest.lastIndexOf("}")) : `${rest};`;
  }
  return text.slice(open + 1, text.lastIndexOf("}"));
}

/**
 * Bun's bundler renames a `var arr` in setup to `arr2` when fn uses `arr` unbound (to it, a
 * global): alias each such name back so the joined source reads as the user wrote it.
 */
function undoRenames(setup: string, rest: string): string {
  const aliases: string[] = [];
  for (const [, name, base] of setup.matchAll(/\b(?:var|let|const|function)\s+(([A-Za-z_$][\w$]*?)\d+)\b/g)) {
    const declared = new RegExp(`\\b(?:var|let|const|function)\\s+${base!.replace(/\$/g, "\\$")}\\b`).test(setup);
    if (!declared && new RegExp(`(?<![\\w$.])${base!.replace(/\$/g, "\\$")}(?![\\w$])`).test(rest)) aliases.push(`var ${base} = ${name};`);
  }
  return aliases.join("\n");
}

const asFunction = (code: Code): Fn | undefined => (typeof code === "string" ? (new Function(code) as Fn) : code);

/** What runs around and in one batch of a benchmark with setup or teardown. */
interface Batch {
  setup: () => unknown;
  teardown: () => unknown;
  fn: (deferred?: Deferred) => unknown;
}

/**
 * What one batch runs when setup or teardown is given: Benchmark.js compiles setup, the timed
 * loop and teardown into one function, so `var`s declared in setup are visible in fn. Done the
 * same way here when it works (fn then closes over setup's variables, not over its own module:
 * a fn that uses an import fails there and is called by reference instead, as Benchmark.js
 * falls back too). Decided when the benchmark is first measured, never while the file loads.
 */
function joinedBatch(bm: BenchmarkInstance, options: Options): Batch {
  const { setup, teardown } = options;
  const fn = asFunction(options.fn)!;
  const byReference: Batch = {
    setup: () => setup && asFunction(setup)!.call(bm),
    teardown: () => teardown && asFunction(teardown)!.call(bm),
    fn: (deferred) => fn.call(bm, deferred),
  };
  const setupBody = bodyOf(setup);
  const source = `${setupBody}\n${undoRenames(setupBody, bodyOf(options.fn) + bodyOf(teardown))}\nreturn { fn: function (deferred) {\n${bodyOf(options.fn)}\n}, teardown: function () {\n${bodyOf(teardown)}\n} };`;
  try {
    const make = new Function(source) as (this: BenchmarkInstance) => { fn: Fn; teardown: Fn };
    const probe = make.call(bm);
    if (!options.defer) probe.fn.call(bm);
    probe.teardown.call(bm);
    let batch = probe;
    return {
      setup: () => {
        batch = make.call(bm);
      },
      teardown: () => batch.teardown.call(bm),
      fn: (deferred) => batch.fn.call(bm, deferred),
    };
  } catch {
    return byReference;
  }
}

/** The function to time and what runs around each batch. */
function timedParts(bm: BenchmarkInstance): { fn: Fn; around: Around } {
  const options = bm.options;
  if (!options.setup && !options.teardown && typeof options.fn !== "string")
    return { fn: options.fn as Fn, around: { before: [], after: [] } };
  let batch: Batch;
  return {
    fn: (deferred) => batch.fn(deferred as Deferred | undefined),
    around: {
      before: [
        () => {
          batch = joinedBatch(bm, options);
        },
      ],
      after: [],
      batchSetup: () => batch.setup(),
      batchTeardown: () => batch.teardown(),
    },
  };
}

/** Normalizes Benchmark.js's argument forms: (name, fn, opts), (name, opts), (opts), (fn, opts). */
function normalize(name: unknown, fn: unknown, options: unknown): Options {
  if (name && typeof name === "object") return { ...name };
  if (typeof name === "function") return { ...(fn as Options | undefined), fn: name as Fn, name: name.name };
  if (fn && typeof fn === "object") return { ...fn, name };
  return { ...(options as Options | undefined), name, fn: fn as Code };
}

const usesThis = (fn: unknown) => typeof fn === "function" && /\bthis\b/.test(Function.prototype.toString.call(fn));

let nextId = 1;

function registerBenchmark(bm: BenchmarkInstance, groups: string[]): void {
  const { fn, around } = timedParts(bm);
  const timed = bm.options.defer
    ? () =>
        new Promise((resolve, reject) => {
          try {
            fn.call(bm, { benchmark: bm, resolve, reject });
          } catch (error) {
            reject(error);
          }
        })
    : fn;
  register({
    api: "Benchmark.js",
    groups,
    name: String(bm.name),
    fn: timed,
    // Binding `this` costs a few ns per call, as much as a no-op itself: only for a fn that reads it.
    ...(usesThis(fn) ? { self: bm } : {}),
    around,
  });
}

/** Listeners per event type, shared by Benchmark and Suite. */
const emitter: ThisType<Emitter> & Pick<Emitter, "on" | "off" | "emit" | "listeners"> = {
  on(type, listener) {
    for (const t of String(type).split(" ")) (this.events[t] ??= []).push(listener);
    return this;
  },
  off(type, listener) {
    if (type === undefined) this.events = {};
    else this.events[type] = listener ? (this.events[type] ?? []).filter((l) => l !== listener) : [];
    return this;
  },
  emit(event) {
    const e = typeof event === "string" ? { type: event, target: this, currentTarget: this } : event;
    for (const listener of [...(this.events[e.type] ?? [])]) listener.call(this, e);
    return this;
  },
  listeners(type) {
    return (this.events[type] ??= []);
  },
};

let inSuite = false;

function Benchmark(this: BenchmarkInstance, name?: unknown, fn?: unknown, options?: unknown): BenchmarkInstance | undefined {
  if (!(this instanceof Benchmark)) return new (Benchmark as unknown as BenchmarkClass)(name, fn, options);
  this.options = { ...Benchmark.options, ...normalize(name, fn, options) };
  this.name = this.options.name ?? `<Test #${nextId}>`;
  this.id = nextId++;
  this.fn = this.options.fn;
  this.events = {};
  this.stats = { mean: Number.NaN, rme: Number.NaN, deviation: Number.NaN, sample: [] };
  this.hz = Number.NaN;
  this.count = 0;
  this.cycles = 0;
  this.times = { cycle: Number.NaN, elapsed: Number.NaN, period: Number.NaN };
  Object.assign(this, { aborted: false, running: false, setup: this.options.setup, teardown: this.options.teardown });
  for (const type of ["start", "cycle", "complete", "error", "abort", "reset"]) {
    const key = `on${type[0]!.toUpperCase()}${type.slice(1)}`;
    if (typeof this.options[key] === "function") this.on(type, this.options[key] as Listener);
  }
  if (!inSuite) registerBenchmark(this, []);
}

/** What a benchmark and a suite do alike here: run() measures nothing, and fires start and complete. */
const runsNothing: ThisType<Emitter> & Pick<Emitter, "run" | "abort" | "reset"> = {
  run() {
    this.emit("start");
    this.emit("complete");
    return this;
  },
  abort() {
    return this;
  },
  reset() {
    return this;
  },
};

Object.assign(Benchmark.prototype, emitter, runsNothing, {
  clone(this: BenchmarkInstance, options?: Options) {
    return new (Benchmark as unknown as BenchmarkClass)({ ...this.options, ...options });
  },
  compare() {
    return 0;
  },
  toString(this: BenchmarkInstance): string {
    return `${this.name} (measured by xbench compare, not here)`;
  },
});

function Suite(this: SuiteInstance, name?: unknown, options?: unknown): SuiteInstance | undefined {
  if (!(this instanceof Suite)) return new (Suite as unknown as SuiteClass)(name, options);
  const opts: Record<string, unknown> =
    name && typeof name === "object" ? (name as Record<string, unknown>) : { ...(options as object | undefined), name };
  this.name = opts.name;
  this.options = opts;
  this.events = {};
  this.length = 0;
  Object.assign(this, { aborted: false, running: false });
  for (const type of ["start", "cycle", "complete", "error", "abort", "reset", "add"]) {
    const key = `on${type[0]!.toUpperCase()}${type.slice(1)}`;
    if (typeof opts[key] === "function") this.on(type, opts[key] as Listener);
  }
}

/** Array-like, as Benchmark.js's suites are: `this.filter("fastest").map("name")` must work. */
function suiteOf(items: unknown[], name: unknown): SuiteInstance {
  const suite = new (Suite as unknown as SuiteClass)(name);
  for (const item of items) suite[suite.length++] = item;
  return suite;
}

const pluck = <T>(callback: string | ((item: unknown, index: number) => T)) =>
  typeof callback === "string" ? (item: unknown) => (item as Record<string, unknown>)[callback] : callback;

Object.assign(Suite.prototype, emitter, runsNothing, {
  add(this: SuiteInstance, name: unknown, fn?: unknown, options?: unknown) {
    let bm: BenchmarkInstance;
    if (name instanceof Benchmark) bm = name as BenchmarkInstance;
    else {
      inSuite = true;
      try {
        bm = new (Benchmark as unknown as BenchmarkClass)(name, fn, options);
      } finally {
        inSuite = false;
      }
      registerBenchmark(bm, this.name ? [String(this.name)] : []);
    }
    this[this.length++] = bm;
    this.emit({ type: "add", target: bm, currentTarget: this });
    return this;
  },
  clone(this: SuiteInstance) {
    return suiteOf(this.toArray(), this.name);
  },
  toArray(this: SuiteInstance) {
    return Array.from({ length: this.length }, (_, i) => this[i]);
  },
  forEach(this: SuiteInstance, callback: (item: unknown, index: number) => void) {
    this.toArray().forEach(callback);
    return this;
  },
  map(this: SuiteInstance, callback: string | ((item: unknown, index: number) => unknown)) {
    return this.toArray().map(pluck(callback));
  },
  pluck(this: SuiteInstance, key: string) {
    return this.map(key);
  },
  /** Nothing was measured here, so no benchmark is fastest, slowest or successful. */
  filter(this: SuiteInstance, callback: string | ((item: unknown, index: number) => unknown)) {
    if (typeof callback === "string") return suiteOf([], this.name);
    return suiteOf(this.toArray().filter(callback), this.name);
  },
  indexOf(this: SuiteInstance, item: unknown) {
    return this.toArray().indexOf(item);
  },
  push(this: SuiteInstance, ...items: unknown[]) {
    for (const item of items) this[this.length++] = item;
    return this.length;
  },
  /** The rest of Array.prototype a suite borrows: on a copy, written back, as Benchmark.js's do. */
  ...Object.fromEntries(
    ["pop", "reverse", "shift", "sort", "splice", "unshift"].map((name) => [
      name,
      function (this: SuiteInstance, ...args: unknown[]) {
        const items = this.toArray();
        const result = (items as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
        for (let i = 0; i < this.length; i++) delete this[i];
        this.length = 0;
        for (const item of items) this[this.length++] = item;
        return name === "reverse" || name === "sort" ? this : result;
      },
    ]),
  ),
  slice(this: SuiteInstance, start?: number, end?: number) {
    return this.toArray().slice(start, end);
  },
  invoke(this: SuiteInstance, name: string, ...args: unknown[]) {
    return this.toArray().map((item) => (item as Record<string, (...a: unknown[]) => unknown>)[name]?.(...args));
  },
  join(this: SuiteInstance, separator = ",") {
    return this.toArray().join(separator);
  },
});

Benchmark.Suite = Suite;
Benchmark.version = "2.1.4";
Benchmark.options = {};
Suite.options = { name: undefined };
Benchmark.platform = { description: "xbench", toString: () => "xbench" };
Benchmark.support = { browser: false, timeout: true, decompilation: true };
Benchmark.Deferred = function Deferred(this: { benchmark: unknown }, clone: unknown) {
  this.benchmark = clone;
};
Benchmark.Event = function Event(type: unknown) {
  return typeof type === "object" ? type : { type };
};
Benchmark.runInContext = () => Benchmark;
Benchmark.filter = (array: ArrayLike<unknown>, callback: string | ((item: unknown, index: number) => unknown)) =>
  typeof callback === "string" ? [] : Array.from(array).filter(callback);
Benchmark.invoke = () => [];
Benchmark.join = (object: object | undefined, separator = ",") => Object.values(object ?? {}).join(separator);
Benchmark.formatNumber = (number: number) => String(number).replace(/(?=(?:\d{3})+$)(?!\b)/g, ",");
Benchmark.Benchmark = Benchmark;
/** Plain objects and arrays copied all the way down; functions and other values as they are. */
function deepClone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deepClone);
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepClone(v)]));
  }
  return value;
}
// Benchmark.js 1.x's utility functions (2.x moved them to lodash): what 1.x suites call on it.
const entries = (object: unknown) => Object.entries((object ?? {}) as Record<string, unknown>);
const eachOf = (collection: unknown, callback: (value: unknown, key: string | number, c: unknown) => unknown) => {
  if (Array.isArray(collection) || (collection && typeof (collection as { length?: unknown }).length === "number")) {
    const list = Array.from(collection as ArrayLike<unknown>);
    for (let i = 0; i < list.length; i++) if (callback(list[i], i, collection) === false) break;
  } else for (const [key, value] of entries(collection)) if (callback(value, key, collection) === false) break;
  return collection;
};
Object.assign(Benchmark, {
  each: eachOf,
  forEach: eachOf,
  forOwn: (object: unknown, callback: (value: unknown, key: string, o: unknown) => unknown) => {
    for (const [key, value] of entries(object)) if (callback(value, key, object) === false) break;
    return object;
  },
  hasKey: (object: object, key: string) => Object.hasOwn(object, key),
  indexOf: (array: ArrayLike<unknown>, value: unknown, from = 0) => Array.prototype.indexOf.call(array, value, from),
  interpolate: (text: string, object: Record<string, unknown>) =>
    text.replace(/#\{([^}]+)\}/g, (whole, key: string) => (key in object ? String(object[key]) : whole)),
  map: (array: ArrayLike<unknown>, callback: (value: unknown, index: number) => unknown) => Array.from(array, callback),
  pluck: (array: ArrayLike<unknown>, key: string) => Array.from(array, (item) => (item as Record<string, unknown>)[key]),
  reduce: (array: ArrayLike<unknown>, callback: (acc: unknown, value: unknown, index: number) => unknown, initial?: unknown) =>
    Array.prototype.reduce.call(array, callback as never, initial),
  deepClone,
});

module.exports = Benchmark;
