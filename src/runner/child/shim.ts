/**
 * Stands in for "mitata" inside a bench process: `bench`, `group`, `summary`, `.args()`… are
 * mitata's own, wrapped only to remember each benchmark's groups. `run()` measures nothing:
 * the bench process's driver measures every registered benchmark after the bench file has
 * loaded, so that two sides loaded into one process can be measured alternately.
 */
// @ts-nocheck -- bundled from a virtual module; mitata ships no types for this path
import * as mitata from "xbench-internal:mitata";

export * from "xbench-internal:mitata";

/** A registered benchmark and the names of the groups it was declared in, outermost first. */
export interface RegisteredTrial {
  trial: unknown;
  groups: string[];
}

const trials: RegisteredTrial[] = [];
const groupPath: string[] = [];

export function bench(name, fn) {
  const trial = mitata.bench(name, fn);
  trials.push({ trial, groups: [...groupPath] });
  return trial;
}

/** mitata's group, keeping its name on a stack while its body registers benchmarks. */
export function group(name, fn) {
  if (typeof name === "function") return mitata.group(name);
  return mitata.group(name, () => {
    groupPath.push(String(name));
    let result;
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
