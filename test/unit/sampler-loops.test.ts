import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { join } from "pathe";
import { ROOT } from "../support/xbench.ts";

/**
 * V8 in deno 2.9 (V8 15) caches `new Function` by its source text and gives every function made
 * from one text the same feedback: two subjects' loops with equal sources would share one call
 * site and its optimized code. Checked under deno, whose `new Function` goes through
 * globalThis.Function (Bun's does not), so the sources can be collected.
 */
test("under deno, every subject's batch loop is compiled from a source of its own", () => {
  const sampler = pathToFileURL(join(ROOT, "src", "runner", "child", "sampler.ts")).href;
  const script = `
    const sources = [];
    const original = globalThis.Function;
    globalThis.Function = new Proxy(original, { construct(target, args) { sources.push(args.at(-1)); return Reflect.construct(target, args); } });
    const { prepare } = await import(${JSON.stringify(sampler)});
    const mitata = (fn) => ({ label: "x", api: "mitata", fn, args: {}, gc: false });
    for (const fn of [() => 1, () => 2, async () => 3, () => 1]) await prepare(mitata(fn));
    await prepare(mitata(function* () { yield { [0]: () => 1, bench: (x) => x }; }));
    console.log(JSON.stringify(sources));
  `;
  const r = spawnSync(join(ROOT, "node_modules", ".bin", "deno"), ["run", "-A", "--quiet", "--ext=js", "-"], {
    input: script,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(r.stderr).toBe("");
  const sources = JSON.parse(r.stdout) as string[];
  expect(sources).toHaveLength(5);
  expect(new Set(sources).size).toBe(5);
});
