/**
 * Makes `Deno.bench` register benchmarks in a bench process. Imported before a bench file
 * that calls it: under `--runtime deno` it replaces Deno's own `Deno.bench` (outside
 * `deno bench` that one registers nothing); under node and bun it provides a `Deno` global
 * with `bench` alone, and any other `Deno.*` the file touches fails with a line that says to
 * use `--runtime deno`.
 *
 * Honoured: `name`, `fn`, `group` (the row's group), `ignore`, `only`, and `b.start()` /
 * `b.end()` inside fn (only that section is timed). Ignored: `baseline`, `permissions`,
 * `sanitizeExit`, `warmup`, `n`.
 */
import { register, skip, usesApi } from "xbench-internal:registry";
import type { Registered } from "./registry.ts";

// Imported only for a file whose source calls Deno.bench.
usesApi("Deno.bench");

/** What Deno.bench is given, in any of its forms; only these fields are read. */
interface Definition {
  name?: unknown;
  fn?: unknown;
  group?: unknown;
  ignore?: unknown;
  only?: unknown;
}

/** An options or definition argument: an object, or whatever else a file passed (spread as it is). */
const fields = (value: unknown) => value as Definition | undefined;

/** Deno.bench's argument forms: (def), (name, fn), (fn), (name, options, fn), (options, fn). */
function definition(a: unknown, b: unknown, c: unknown): Definition {
  if (typeof a === "function") return { ...fields(b), fn: a, name: a.name };
  if (typeof a === "string") return typeof b === "function" ? { name: a, fn: b } : { ...fields(b), name: a, fn: c };
  return typeof b === "function" ? { ...fields(a), fn: b, name: fields(a)?.name ?? b.name } : { ...fields(a) };
}

function bench(a: unknown, b?: unknown, c?: unknown): void {
  const def = definition(a, b, c);
  if (typeof def.fn !== "function") throw new TypeError("Deno.bench: the benchmark needs a function (fn)");
  if (!def.name) throw new TypeError("Deno.bench: the benchmark needs a name");
  // deno bench lists an ignored benchmark as such: its row reads skipped.
  if (def.ignore) {
    skip({ api: "Deno.bench", groups: def.group ? [String(def.group)] : [], name: String(def.name) });
    return;
  }
  register({
    api: "Deno.bench",
    groups: def.group ? [String(def.group)] : [],
    name: String(def.name),
    fn: def.fn as Registered["fn"],
    section: true,
    only: def.only === true,
    around: { before: [], after: [] },
  });
}

/** Our own Deno global on node and bun, which the other side's copy of this module reuses. */
const STAND_IN = Symbol.for("xbench.denoStandIn");

interface DenoGlobal {
  [STAND_IN]?: { bench: typeof bench };
  version?: unknown;
  bench?: typeof bench;
}

const slot = globalThis as { Deno?: DenoGlobal; Bun?: unknown };
const deno = slot.Deno;
if (deno?.[STAND_IN]) {
  deno[STAND_IN].bench = bench;
} else if (deno && typeof deno.version === "object") {
  deno.bench = bench;
} else {
  const runtime = slot.Bun ? "bun" : "node";
  const target = { bench };
  slot.Deno = new Proxy(target, {
    get(_, key) {
      if (key === STAND_IN) return target;
      if (key in target || typeof key === "symbol") return (target as Record<PropertyKey, unknown>)[key];
      throw new Error(`Deno.${String(key)} is not available under ${runtime}: run with --runtime deno`);
    },
  });
}
