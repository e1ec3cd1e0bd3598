/**
 * Where the stand-ins for vitest, tinybench, Benchmark.js and Deno.bench register what a bench
 * file declares, one copy per side's bundle. Each API keeps its own vocabulary (vitest's
 * describe, tinybench's hooks, Benchmark.js's setup); what reaches the sampler is one shape:
 * a function to time, with what runs around it outside the timing.
 */

/** A bench API's name as the user knows it, for messages and the inventory. */
export type BenchApi = "mitata" | "vitest" | "tinybench" | "Benchmark.js" | "Deno.bench";

type Hook = () => unknown;

/** What runs around one benchmark, outside its timing. */
export interface Around {
  /** Once before the benchmark is measured in a process (vitest's beforeAll and setup, tinybench's beforeAll). */
  before: Hook[];
  /** Once after it, in reverse order of `before`. */
  after: Hook[];
  /** Before every batch (Benchmark.js's setup, which prepares the state a whole cycle uses). */
  batchSetup?: Hook;
  batchTeardown?: Hook;
  /** Before and after every iteration (tinybench's beforeEach/afterEach): iterations are timed one by one. */
  eachBefore?: Hook;
  eachAfter?: Hook;
}

export interface Registered {
  api: BenchApi;
  groups: string[];
  name: string;
  /** The function to time; called with `argument` when one is given. */
  fn: (...args: unknown[]) => unknown;
  /** `this` for the call (Benchmark.js binds the benchmark). */
  self?: unknown;
  /** Deno's BenchContext: when fn calls b.start()/b.end(), only that section is timed. */
  section?: boolean;
  around: Around;
  /** Declared with `.only` (or inside a `describe.only`): when a file has any, only those run. */
  only?: boolean;
}

const registered: Registered[] = [];
/** Benchmarks a file declares and its API skips (`bench.skip`, `skipIf`, `todo`, Deno's `ignore`): listed, never run. */
const skippedEntries: Array<Pick<Registered, "api" | "groups" | "name">> = [];
const apis = new Set<BenchApi>();
const pending: Promise<unknown>[] = [];

/** A stand-in was loaded: the file speaks this API, whether or not it registers anything. */
export function usesApi(api: BenchApi): void {
  apis.add(api);
}

export function register(entry: Registered): Registered {
  registered.push(entry);
  return entry;
}

/** A benchmark the file declares and skips: its row reads `skipped`, as the tool lists it. */
export function skip(entry: Pick<Registered, "api" | "groups" | "name">): void {
  skippedEntries.push(entry);
}

export function skippedBenchmarks(): ReadonlyArray<Pick<Registered, "api" | "groups" | "name">> {
  return skippedEntries;
}

/** Takes back a registration (tinybench's `remove()`). */
export function unregister(entry: Registered): void {
  const at = registered.indexOf(entry);
  if (at >= 0) registered.splice(at, 1);
}

/** Work a declaration started and did not finish (an async describe body): awaited before the inventory. */
export function awaitLater(promise: Promise<unknown>): void {
  pending.push(promise);
}

/** Everything registered so far, after any pending declarations have settled. */
export async function registeredBenchmarks(): Promise<Registered[]> {
  while (pending.length > 0) await pending.shift();
  return registered;
}

/**
 * tinybench's hooks as vitest and tinybench take them: `setup`/`teardown(task, mode)` once per
 * benchmark, `beforeAll`/`afterAll` once, `beforeEach`/`afterEach` around every iteration,
 * each with `this` bound to a task that carries the benchmark's name.
 */
export function aroundFromOptions(options: Record<string, unknown>, name: string, task: unknown = { name }): Around {
  const hook = (key: string) => (typeof options[key] === "function" ? (options[key] as (...args: unknown[]) => unknown) : undefined);
  const call = (key: string, ...args: unknown[]) => (hook(key) ? [() => hook(key)!.call(task, ...args)] : []);
  const each = (key: string) => (hook(key) ? () => hook(key)!.call(task, "run") : undefined);
  return {
    before: [...call("setup", task, "run"), ...call("beforeAll", "run")],
    after: [...call("afterAll", "run"), ...call("teardown", task, "run")],
    eachBefore: each("beforeEach"),
    eachAfter: each("afterEach"),
  };
}

/**
 * Row labels in file order, each repeat of a label suffixed ` #n` from n = 2 on, as
 * suites add two benchmarks of one name with different options and their own tools run both.
 * Numbered by order of registration, so both sides of an unchanged file agree; a number some
 * other label already uses is passed over.
 */
export function distinctLabels(labels: readonly string[]): string[] {
  const taken = new Set(labels);
  const seen = new Map<string, number>();
  return labels.map((label) => {
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    if (count === 1) return label;
    let n = count;
    while (taken.has(`${label} #${n}`)) n++;
    taken.add(`${label} #${n}`);
    seen.set(label, n);
    return `${label} #${n}`;
  });
}

export function usedApis(): BenchApi[] {
  return [...apis];
}
