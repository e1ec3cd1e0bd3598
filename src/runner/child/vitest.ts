/**
 * Stands in for "vitest" inside a bench process: `bench()` registers a benchmark instead of
 * handing it to vitest's runner, `describe()` names its group. Benchmarks are measured by
 * xbench's sampler, like mitata's.
 *
 * Hooks run as `vitest bench` runs them: its benchmark runner runs the file's `beforeAll`/
 * `afterAll` and, per benchmark, the bench options `setup`/`teardown` (the options go to a
 * tinybench `Bench`); a describe block's hooks, `beforeEach`/`afterEach` anywhere and the
 * options `beforeAll`/`beforeEach`/`afterEach`/`afterAll` never run there, so not here either.
 * `time`, `iterations`, `warmupTime`, `warmupIterations`, `throws`, `now` and `signal` are
 * ignored, since xbench decides how long each side is sampled.
 */
import { aroundFromOptions, awaitLater, register, skip, usesApi } from "xbench-internal:registry";
import type { Registered } from "./registry.ts";

usesApi("vitest");

type Mode = "run" | "skip" | "only" | "todo";

interface Scope {
  name?: string;
  mode: Mode;
  parent?: Scope;
  beforeAll: Array<() => unknown>;
  afterAll: Array<() => unknown>;
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

/** A name as vitest prints it: a function's name for a function, the string otherwise. */
const nameOf = (name: unknown): string =>
  typeof name === "string" ? name : typeof name === "function" ? name.name || "<anonymous>" : String(name);

function registerBench(name: unknown, fn: unknown, options: Record<string, unknown> | undefined, mode: Mode): void {
  const scopes = chain(current);
  const groups = scopes.flatMap((s) => (s.name === undefined ? [] : [s.name]));
  // vitest bench lists a skipped or todo benchmark (`↓ name [skipped]`): its row reads skipped.
  // One inside a skipped describe it does not list, and neither does xbench.
  if (scopes.some((s) => s.mode === "skip" || s.mode === "todo")) return;
  if (mode === "skip" || mode === "todo") {
    skip({ api: "vitest", groups, name: nameOf(name) });
    return;
  }
  if (typeof fn !== "function") return;
  const only = mode === "only" || scopes.some((s) => s.mode === "only");
  file.open++;
  // Only setup and teardown reach vitest's tinybench Bench; its per-task hooks are never passed.
  const { setup, teardown } = options ?? {};
  const own = aroundFromOptions({ setup, teardown }, nameOf(name));
  register({
    api: "vitest",
    groups,
    name: nameOf(name),
    fn: fn as Registered["fn"],
    only,
    around: {
      ...own,
      before: [() => enter(file), ...own.before],
      after: [...own.after, () => leave(file)],
    },
  });
}

/** `describe(name, fn)`, `describe(name, options, fn)` (vitest 4) and `describe(name, fn, options)` (earlier majors). */
function defineSuite(name: unknown, second: unknown, third: unknown, mode: Mode): void {
  const fn = typeof second === "function" ? second : third;
  const options = (typeof second === "object" && second ? second : typeof third === "object" && third ? third : {}) as Record<
    string,
    unknown
  >;
  const own: Mode = options.skip || options.todo ? "skip" : options.only ? "only" : mode;
  const scope = newScope(nameOf(name), mode === "skip" || mode === "todo" ? mode : own, current);
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

/** The modifiers a call chain collected: `bench.skipIf(c).only` is skipped when c holds, else only. */
interface Flags {
  skip?: boolean;
  only?: boolean;
  todo?: boolean;
}

const modeOf = (flags: Flags): Mode => (flags.todo ? "todo" : flags.skip ? "skip" : flags.only ? "only" : "run");

/** A declaration as the file calls it: a function (fn, or options and fn, in either order). */
type Body = (...args: never[]) => unknown;
type Declare = (name: unknown, second?: Body | object, third?: Body | object) => void;
type Each = (cases: unknown, ...values: unknown[]) => Declare;
type Chain = Declare & {
  skip: Chain;
  only: Chain;
  todo: Chain;
  concurrent: Chain;
  sequential: Chain;
  shuffle: Chain;
  skipIf: (c: unknown) => Chain;
  runIf: (c: unknown) => Chain;
  each: Each;
  for: Each;
};

/**
 * vitest's chainable API: every modifier returns the API again (`describe.skip.each`,
 * `bench.skipIf(c).skip`), in any order. `concurrent`, `sequential` and `shuffle` change how
 * vitest schedules tests and mean nothing here; `.each` and `.for` exist where `withEach`.
 */
function chainable(
  declare: (mode: Mode, name: unknown, second?: unknown, third?: unknown) => void,
  withEach: boolean,
  flags: Flags = {},
): Chain {
  const api = ((name: unknown, second?: unknown, third?: unknown) => declare(modeOf(flags), name, second, third)) as unknown as Chain;
  const more = (add: Flags) => () => chainable(declare, withEach, { ...flags, ...add });
  for (const [key, add] of Object.entries({ skip: { skip: true }, only: { only: true }, todo: { todo: true } })) {
    Object.defineProperty(api, key, { get: more(add) });
  }
  for (const key of ["concurrent", "sequential", "shuffle"]) Object.defineProperty(api, key, { get: more({}) });
  api.skipIf = (condition) => chainable(declare, withEach, { ...flags, skip: flags.skip || Boolean(condition) });
  api.runIf = (condition) => chainable(declare, withEach, { ...flags, skip: flags.skip || !condition });
  if (withEach) {
    Object.assign(api, {
      each: (cases: unknown, ...values: unknown[]) => eachCase(api, cases, values, true),
      for: (cases: unknown, ...values: unknown[]) => eachCase(api, cases, values, false),
    });
  }
  return api;
}

/**
 * `describe.each(cases)(name, fn)` and `describe.for`: one block per case, its name formatted
 * as vitest formats it (printf's `%s %d %i %f %j %o %O %c %%`, `%#` the case's index, `%$` its
 * number, `$key` a field of an object case). `each` spreads an array case into fn's
 * arguments; `for` passes it whole. A tagged template's table becomes objects by its header.
 */
function eachCase(declare: Declare, cases: unknown, values: unknown[], spread: boolean): Declare {
  const list = Array.isArray(cases) && values.length > 0 ? fromTemplate(cases as string[], values) : [...(cases as unknown[])];
  return (name, second, third) => {
    const fn = (typeof second === "function" ? second : third) as ((...args: unknown[]) => unknown) | undefined;
    const options = typeof second === "function" ? third : second;
    const arrays = list.every(Array.isArray);
    list.forEach((item, index) => {
      const items = Array.isArray(item) ? item : [item];
      const body = fn && (() => (spread && arrays ? fn(...items) : fn(item)));
      declare(formatTitle(nameOf(name), items, index), (options ?? {}) as object, body);
    });
  };
}

/** A tagged template's table: the first line names the columns, the values fill rows of them. */
function fromTemplate(strings: readonly string[], values: unknown[]): Array<Record<string, unknown>> {
  const header = strings.join("").trim().replace(/ /g, "").split("\n")[0]!.split("|");
  const rows: Array<Record<string, unknown>> = [];
  for (let i = 0; i < Math.floor(values.length / header.length); i++) {
    rows.push(Object.fromEntries(header.map((key, j) => [key, values[i * header.length + j]])));
  }
  return rows;
}

/** A value as vitest's `inspect` prints it, closely enough for a name: strings quoted, objects one line. */
function display(value: unknown): string {
  if (typeof value === "string") return `'${value}'`;
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return value.name ? `[Function ${value.name}]` : "[Function]";
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[ ${value.map(display).join(", ")} ]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`}: ${display(v)}`);
    return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;
  }
  return Object.is(value, -0) ? "-0" : String(value);
}

function formatValue(directive: string, value: unknown): string {
  switch (directive) {
    case "%s":
      if (typeof value === "bigint") return `${value}n`;
      if (Object.is(value, -0)) return "-0";
      if (typeof value === "object" && value !== null) {
        const own = (value as { toString?: unknown }).toString;
        return typeof own === "function" && own !== Object.prototype.toString ? String(value) : display(value);
      }
      return String(value);
    case "%d":
      if (typeof value === "bigint") return `${value}n`;
      return typeof value === "symbol" ? "NaN" : Number(value).toString();
    case "%i":
      // biome-ignore lint/correctness/useParseIntRadix: as vitest formats it, "0x10" reads 16
      return typeof value === "bigint" ? `${value}n` : Number.parseInt(String(value)).toString();
    case "%f":
      return Number.parseFloat(String(value)).toString();
    case "%j":
      try {
        return JSON.stringify(value);
      } catch {
        return "[Circular]";
      }
    case "%c":
      return "";
    default:
      return display(value);
  }
}

/** A case's name from the template, as vitest's formatTitle makes it. */
export function formatTitle(template: string, items: unknown[], index: number): string {
  let text = template;
  if (text.includes("%#") || text.includes("%$")) {
    text = text
      .replace(/%%/g, "\u0000")
      .replace(/%#/g, `${index}`)
      .replace(/%\$/g, `${index + 1}`)
      .replace(/\u0000/g, "%%");
  }
  const count = text.split("%").length - 1;
  const objectCase = items[0] !== null && typeof items[0] === "object" && !Array.isArray(items[0]);
  const attribute = (part: string) =>
    part.replace(/\$([$\w.]+)/g, (whole, key: string) => {
      const arrayKey = /^\d+$/.test(key);
      if (!objectCase && !arrayKey) return whole;
      const path = (source: unknown) =>
        key
          .replace(/\[(\d+)\]/g, ".$1")
          .split(".")
          .reduce<unknown>((at, p) => (at === undefined ? undefined : (new Object(at) as Record<string, unknown>)[p]), source);
      const fromArray = arrayKey ? path(items) : undefined;
      const value = objectCase ? (path(items[0]) ?? fromArray) : fromArray;
      return display(value);
    });
  let out = "";
  let used = 0;
  let last = 0;
  for (const match of text.matchAll(/%[sdjifoOc%]/g)) {
    out += attribute(text.slice(last, match.index));
    if (match[0] === "%%") out += "%";
    else out += used < count && used < items.length ? formatValue(match[0], items[used++]) : match[0];
    last = match.index! + match[0].length;
  }
  return out + attribute(text.slice(last));
}

export const bench = chainable(
  (mode, name, fn, options) => registerBench(name, fn, options as Record<string, unknown> | undefined, mode),
  false,
);

export const describe = chainable((mode, name, second, third) => defineSuite(name, second, third, mode), true);
export const suite = describe;

/**
 * What `vitest bench` skips in a bench file, callable in every form it has (`test.each(...)()`,
 * `expect(x).toBe(y)`, `vi.fn()`, `test.extend({})`): any property or call gives the same
 * inert value, never a thenable, so `await expect(p).resolves...` does not wait forever.
 */
const inert: unknown = new Proxy(() => {}, {
  get: (_, key) => (key === "then" || typeof key === "symbol" ? undefined : inert),
  apply: () => inert,
  construct: () => inert as object,
});

/** Tests are vitest's test mode; in bench mode vitest skips them, and so does xbench. */
export const test = inert;
export const it = inert;
export const expect = inert;
export const vi = inert;
export const vitest = inert;
export const assert = inert;
export const chai = inert;
export const should = inert;
export const expectTypeOf = inert;
export const assertType = inert;
export const createExpect = inert;
export const inject = inert;
export const onTestFailed = inert;
export const onTestFinished = inert;
export const recordArtifact = inert;
export const aroundAll = inert;
export const aroundEach = inert;

/** The file's beforeAll/afterAll run once per process around its benchmarks; elsewhere vitest bench never runs them. */
const hook = (key: "beforeAll" | "afterAll") => (fn: () => unknown) => {
  if (current === file) file[key].push(fn);
};
export const beforeAll = hook("beforeAll");
export const afterAll = hook("afterAll");
/** Per-test hooks: vitest's benchmark runner does not call them. */
export const beforeEach = inert;
export const afterEach = inert;
