/**
 * Stands in for "vitest" inside a bench process: `bench()` registers a benchmark instead of
 * handing it to vitest's runner, `describe()` names its group, and the hooks run around each
 * benchmark outside the timing. Benchmarks are measured by xbench's sampler, like mitata's.
 *
 * vitest's bench options are tinybench's: `setup`/`teardown` (once per benchmark) and
 * `beforeAll`/`beforeEach`/`afterEach`/`afterAll` are honoured; `time`, `iterations`,
 * `warmupTime`, `warmupIterations`, `throws`, `now` and `signal` are ignored, since xbench
 * decides how long each side is sampled.
 */
import { aroundFromOptions, awaitLater, register, usesApi } from "xbench-internal:registry";
import type { Registered } from "./registry.ts";

usesApi("vitest");

type Mode = "run" | "skip" | "only" | "todo";

interface Scope {
  name?: string;
  mode: Mode;
  parent?: Scope;
  beforeAll: Array<() => unknown>;
  afterAll: Array<() => unknown>;
  beforeEach: Array<() => unknown>;
  afterEach: Array<() => unknown>;
  /** Benchmarks under this scope not yet finished in this process; afterAll runs when it reaches 0. */
  open: number;
  /** The scope's beforeAll, started once per process by its first benchmark. */
  entered?: Promise<void>;
  /** Cleanups returned by beforeAll hooks, run with afterAll. */
  cleanups: Array<() => unknown>;
}

const newScope = (name: string | undefined, mode: Mode, parent?: Scope): Scope => ({
  name,
  mode,
  parent,
  beforeAll: [],
  afterAll: [],
  beforeEach: [],
  afterEach: [],
  open: 0,
  cleanups: [],
});

const file = newScope(undefined, "run");
let current = file;

/** The chain of scopes from the file down to `scope`. */
function chain(scope: Scope): Scope[] {
  const scopes: Scope[] = [];
  for (let s: Scope | undefined = scope; s; s = s.parent) scopes.unshift(s);
  return scopes;
}

async function enter(scope: Scope): Promise<void> {
  scope.entered ??= (async () => {
    for (const hook of scope.beforeAll) {
      const cleanup = await hook();
      if (typeof cleanup === "function") scope.cleanups.unshift(cleanup as () => unknown);
    }
  })();
  await scope.entered;
}

async function leave(scope: Scope): Promise<void> {
  if (--scope.open > 0) return;
  for (const cleanup of scope.cleanups) await cleanup();
  for (const hook of scope.afterAll) await hook();
}

function registerBench(name: unknown, fn: unknown, options: Record<string, unknown> | undefined, mode: Mode): void {
  const scopes = chain(current);
  const effective = scopes.some((s) => s.mode === "skip" || s.mode === "todo") ? "skip" : mode;
  if (effective === "skip" || effective === "todo" || typeof fn !== "function") return;
  const only = mode === "only" || scopes.some((s) => s.mode === "only");
  for (const scope of scopes) scope.open++;
  const own = aroundFromOptions(options ?? {}, String(name));
  register({
    api: "vitest",
    groups: scopes.flatMap((s) => (s.name === undefined ? [] : [s.name])),
    name: String(name),
    fn: fn as Registered["fn"],
    only,
    around: {
      ...own,
      before: [
        async () => {
          for (const scope of scopes) await enter(scope);
          for (const scope of scopes) for (const hook of scope.beforeEach) await hook();
        },
        ...own.before,
      ],
      after: [
        ...own.after,
        async () => {
          for (const scope of [...scopes].reverse()) for (const hook of scope.afterEach) await hook();
          for (const scope of [...scopes].reverse()) await leave(scope);
        },
      ],
    },
  });
}

function defineSuite(name: unknown, fn: unknown, mode: Mode): void {
  const scope = newScope(typeof name === "function" ? name.name : String(name), mode, current);
  if (typeof fn !== "function") return;
  const parent = current;
  current = scope;
  let result: unknown;
  try {
    result = fn();
  } finally {
    current = parent;
  }
  // An async describe body registers after its first await: keep its scope for those calls.
  if (result instanceof Promise) {
    awaitLater(
      (async () => {
        const outer = current;
        current = scope;
        try {
          await result;
        } finally {
          current = outer;
        }
      })(),
    );
  }
}

type Chain<F> = F & { skip: F; only: F; todo: F; skipIf: (c: unknown) => F; runIf: (c: unknown) => F };

function chainable<F extends (...a: never[]) => void>(make: (mode: Mode) => F): Chain<F> {
  const api = make("run") as Chain<F>;
  api.skip = make("skip");
  api.only = make("only");
  api.todo = make("todo");
  api.skipIf = (condition) => make(condition ? "skip" : "run");
  api.runIf = (condition) => make(condition ? "run" : "skip");
  return api;
}

export const bench = chainable((mode) => (name: unknown, fn?: unknown, options?: Record<string, unknown>) => {
  registerBench(name, fn, options, mode);
});

export const describe = chainable((mode) => (name: unknown, fn?: unknown) => defineSuite(name, fn, mode));
export const suite = describe;

/** Tests are vitest's test mode; in bench mode vitest skips them, and so does xbench. */
const skipTest = chainable(() => () => {});
export const test = skipTest;
export const it = skipTest;

const hook = (key: "beforeAll" | "afterAll" | "beforeEach" | "afterEach") => (fn: () => unknown) => {
  current[key].push(fn);
};
export const beforeAll = hook("beforeAll");
export const afterAll = hook("afterAll");
export const beforeEach = hook("beforeEach");
export const afterEach = hook("afterEach");
