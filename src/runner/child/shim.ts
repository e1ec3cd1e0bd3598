/**
 * Stands in for "mitata" inside a bench process: `bench`, `group`, `summary`, `.args()`… are
 * mitata's own, wrapped only to remember each benchmark's groups. `run()` measures nothing:
 * the bench process's driver measures every registered benchmark after the bench file has
 * loaded, so that two sides loaded into one process can be measured alternately.
 */
import * as mitata from "xbench-internal:mitata";

export * from "xbench-internal:mitata";

/**
 * What the sampler reads of a mitata benchmark (an instance of mitata's `B`): fields mitata
 * keeps to itself, so its published types do not name them.
 */
export interface Trial {
  /** The benchmark function, generator or iterator-style function. */
  f: (...args: unknown[]) => unknown;
  _name: string;
  /** Each argument's values, from `.args()` and `.range()`. */
  _args: Record<string, unknown[]>;
  /** `.gc()`: "inner" collects before every batch. */
  _gc: "inner" | "once" | boolean;
}

/** A registered benchmark and the names of the groups it was declared in, outermost first. */
export interface RegisteredTrial {
  trial: Trial;
  groups: string[];
}

/** mitata's bench and group, taking their arguments as a bench file gives them (any of their overloads). */
const mitataBench = mitata.bench as (name: unknown, fn: unknown) => mitata.B;
const mitataGroup = mitata.group as (name: unknown, fn?: () => unknown) => unknown;

const trials: RegisteredTrial[] = [];
const groupPath: string[] = [];

export function bench(name: unknown, fn: unknown): mitata.B {
  const trial = mitataBench(name, fn);
  trials.push({ trial: trial as unknown as Trial, groups: [...groupPath] });
  return trial;
}

/** mitata's group, keeping its name on a stack while its body registers benchmarks. */
export function group(name: unknown, fn: () => unknown): unknown {
  if (typeof name === "function") return mitataGroup(name);
  return mitataGroup(name, () => {
    groupPath.push(String(name));
    let result: unknown;
    try {
      result = fn();
    } catch (error) {
      groupPath.pop();
      throw error;
    }
    if (result instanceof Promise) return result.finally(() => groupPath.pop());
    groupPath.pop();
    return result;
  });
}

export function registeredTrials(): RegisteredTrial[] {
  return trials;
}

/** The bench file may or may not call it; measuring happens after it has loaded. */
export function run() {
  return Promise.resolve({ benchmarks: [], layout: [], context: {} });
}
