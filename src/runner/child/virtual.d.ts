/**
 * The virtual modules a bench process is bundled from (runner/bundle.ts's VIRTUAL map), as
 * the type checker sees them: each bare name is the file the bundler loads for it. Types are
 * imported from the files themselves (`import type … from "./registry.ts"`), which the
 * bundler erases; these declarations carry the values.
 */

declare module "xbench-internal:registry" {
  const registry: typeof import("./registry.ts");
  export = registry;
}

declare module "xbench-internal:sampler" {
  const sampler: typeof import("./sampler.ts");
  export = sampler;
}

declare module "xbench-internal:counter" {
  const counter: typeof import("./counter.ts");
  export = counter;
}

declare module "xbench-internal:count-sampler" {
  const countSampler: typeof import("./count-sampler.ts");
  export = countSampler;
}

declare module "xbench-internal:extras" {
  const extras: typeof import("./extras.ts");
  export = extras;
}

declare module "xbench-internal:side" {
  const side: typeof import("./side.ts");
  export = side;
}

declare module "xbench-internal:shim" {
  const shim: typeof import("./shim.ts");
  export = shim;
}

declare module "xbench-internal:api" {
  const api: typeof import("../../bench/api.ts");
  export = api;
}

/** mitata's own main module, which the shim wraps (bench files get the shim as "mitata"). */
declare module "xbench-internal:mitata" {
  export * from "mitata";
}
