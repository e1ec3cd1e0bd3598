import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { dirname, isAbsolute, join, relative } from "pathe";
import { XbenchError } from "../errors.ts";
import type { Runtime } from "../model/result.ts";
import { lastLines } from "../util/text.ts";
import { packageFile, readAsset, type ChildAsset } from "./assets.ts";
import { findBun } from "./bun.ts";
import { packageDir, packageEntry, splitSpecifier } from "./package-entry.ts";
import { bundleTarget } from "./runtimes.ts";
import { runToEnd } from "./spawn.ts";
import { readByVitest, VITEST_GLOBALS, type VitestSetup, vitestSetup } from "./vitest-config.ts";

/** A bench file or the driver could not be compiled (or no bun to compile with). */
export class BundleError extends XbenchError {
  override name = "BundleError";
}

/**
 * Virtual modules a bundle is built from: bare names a bench file imports, mapped to assets.
 * Each benchmark API a bench file may be written with resolves to a stand-in that registers
 * its benchmarks for xbench's sampler, whatever the project has installed.
 */
const VIRTUAL: Record<string, ChildAsset> = {
  mitata: "shim",
  vitest: "vitest",
  tinybench: "tinybench",
  benchmark: "benchmarkjs",
  "@codspeed/tinybench-plugin": "codspeed",
  "@codspeed/benchmark.js-plugin": "codspeed",
  xbench: "api",
  "xbench-internal:mitata": "mitataMain",
  "xbench-internal:shim": "shim",
  "xbench-internal:api": "api",
  "xbench-internal:side": "side",
  "xbench-internal:driver": "driver",
  "xbench-internal:sampler": "sampler",
  "xbench-internal:counter": "counter",
  "xbench-internal:count-sampler": "countSampler",
  "xbench-internal:extras": "extras",
  "xbench-internal:registry": "registry",
  "xbench-internal:deno": "deno",
  "xbench-internal:vitest": "vitest",
};

/** A module made here, not read from an asset: vitest's `globals: true`, from the side's own stand-in. */
const VITEST_GLOBALS_MODULE = "xbench-internal:vitest-globals";

const VIRTUAL_NAME = new RegExp(
  `^(${Object.keys(VIRTUAL)
    .map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
    .join("|")})$`,
);

type BunRuntime = typeof Bun;

/** The Bun xbench runs in (the binary, or `bun`), whose bundler can be called directly. */
function bunHere(): BunRuntime | undefined {
  return (globalThis as unknown as { Bun?: BunRuntime }).Bun;
}

const NO_BUN =
  "compare compiles bench files with Bun's bundler, and found no bun: install it (npm i -D bun, or put bun on PATH), or use the xbench binary";

/** Throws the one-line error up front when bench files cannot be compiled (node or deno, and no bun to call). */
export function requireBundler(): void {
  if (!bunHere() && !findBun(process.cwd())) throw new BundleError(NO_BUN);
}

/**
 * Resolves `mitata` to xbench's measuring shim and `xbench` to the bench API, whatever the
 * project has installed, so every bench process speaks the same protocol.
 */
const virtualModules: import("bun").BunPlugin = {
  name: "xbench-virtual",
  setup(build) {
    build.onResolve({ filter: VIRTUAL_NAME }, (args) => ({
      path: VIRTUAL[args.path]!,
      namespace: "xbench",
    }));
    build.onResolve({ filter: /^xbench-internal:vitest-globals$/ }, () => ({ path: VITEST_GLOBALS_MODULE, namespace: "xbench" }));
    // mitata's main imports its sibling lib by relative path.
    build.onResolve({ filter: /^\.\/lib\.mjs$/ }, (args) =>
      args.importer === "mitataMain" || args.importer.endsWith(":mitataMain") ? { path: "mitataLib", namespace: "xbench" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "xbench" }, (args) => {
      if (args.path === VITEST_GLOBALS_MODULE) {
        const names = JSON.stringify(VITEST_GLOBALS);
        return {
          contents: `import * as api from "xbench-internal:vitest";\nfor (const name of ${names}) globalThis[name] = api[name];\n`,
          loader: "js",
        };
      }
      const asset = args.path as ChildAsset;
      return { contents: readAsset(asset), loader: asset.startsWith("mitata") ? "js" : "ts" };
    });
  },
};

/**
 * A package's JSON file is bundled, not left external: the bundler writes an external import
 * without its `with { type: "json" }`, and node refuses a JSON module imported without it. The
 * file is the one the side would load at run time (resolved from the importing file's folder).
 */
const packageJsonFiles: import("bun").BunPlugin = {
  name: "xbench-package-json",
  setup(build) {
    build.onResolve({ filter: /\.json$/ }, (args) => {
      if (/^(\.|\/|[a-z]+:)/i.test(args.path)) return undefined;
      try {
        return { path: Bun.resolveSync(args.path, args.resolveDir) };
      } catch {
        return undefined; // the bundler's own resolution says what is missing
      }
    });
  },
};

/** Whether `path` is `dir` or below it. */
const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);

/**
 * A package of the project's own (a workspace package, linked into node_modules by npm, pnpm,
 * yarn or bun) is project code: bundled from this side's copy, never left external, so its
 * files are part of what the side's bundle is made of (compare/sides/unchanged.ts) and base never
 * runs head's copy through the node_modules it links. A link resolves to the real folder:
 * where that is in the repository whose node_modules a worktree links (`linkedFrom`), the same
 * path in this side's checkout is taken. Dependencies (real paths under a node_modules) stay
 * external; one a workspace package imports that the bench file's own folder cannot resolve
 * (pnpm keeps each package's dependencies beside it) is left external by its absolute path.
 */
function workspacePackages(request: Extract<BundleRequest, { kind: "side" }>): import("bun").BunPlugin {
  const root = request.root ?? dirname(request.benchFile);
  const fromBench = dirname(request.benchFile);
  const conditions = bundleTarget(request.runtime) === "bun" ? ["bun", "node", "import", "module"] : ["node", "import", "module"];
  return {
    name: "xbench-workspace-packages",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind.startsWith("entry-point") || /^[a-z]+:/i.test(args.path) || !isAbsolute(args.importer)) return undefined;
        if (args.importer.includes("/node_modules/")) return undefined;
        const { name, subpath } = splitSpecifier(args.path);
        const dir = packageDir(args.resolveDir, name);
        if (!dir) return undefined;
        if (dir.includes("/node_modules/")) {
          if (packageDir(fromBench, name) === dir) return undefined;
          const entry = packageEntry(dir, subpath, conditions);
          return entry && existsSync(entry) ? { path: entry, external: true } : undefined;
        }
        const linked = request.linkedFrom && !inside(dir, root) && inside(dir, request.linkedFrom);
        const own = linked ? join(root, relative(request.linkedFrom!, dir)) : dir;
        if (!inside(own, root)) return undefined;
        const file = packageEntry(own, subpath, conditions);
        if (file === undefined) return undefined;
        if (!existsSync(file)) {
          throw new Error(
            `${args.path}, a package of this repository, resolves to ${relative(root, file)}, which this side does not have: build output? --build CMD builds each side before bundling`,
          );
        }
        return { path: file };
      });
    },
  };
}

const LOADERS: Record<string, "ts" | "tsx" | "js" | "jsx"> = {
  ts: "ts",
  mts: "ts",
  cts: "ts",
  tsx: "tsx",
  js: "js",
  mjs: "js",
  cjs: "js",
  jsx: "jsx",
};

/**
 * Inlines each source file's own location, so `import.meta.dirname` and friends still point
 * next to the file when it runs from the bundle (bench files read fixtures beside them).
 */
export function pinFileLocation(source: string, file: string): string {
  const dir = JSON.stringify(dirname(file));
  const path = JSON.stringify(file);
  return source
    .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(file).href))
    .replace(/\bimport\.meta\.(dirname|dir)\b/g, dir)
    .replace(/\bimport\.meta\.(filename|path)\b/g, path)
    .replace(/(?<![.\w$])__dirname\b/g, dir)
    .replace(/(?<![.\w$])__filename\b/g, path);
}

const hashText = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Pins each project source's location (see pinFileLocation), and notes every project file the
 * bundle is made of with a hash of its text: two sides whose bundles hold the same files with
 * the same text run the same code (compare/sides/unchanged.ts), whatever order the bundler wrote.
 */
function sourceLocations(entry: string, sources: Array<[string, string]>): import("bun").BunPlugin {
  return {
    name: "xbench-source-locations",
    setup(build) {
      build.onLoad({ filter: /\.(m|c)?(t|j)sx?$/, namespace: "file" }, (args) => {
        if (args.path.includes("/node_modules/")) return undefined;
        const text = readFileSync(args.path, "utf8");
        // The generated entry names the side's own path: not project code.
        if (args.path !== entry) sources.push([args.path, hashText(text)]);
        const ext = args.path.split(".").pop()!;
        return { contents: pinFileLocation(text, args.path), loader: LOADERS[ext] ?? "js" };
      });
    },
  };
}

/** Beside a side's bundle: the project files it was made of, as [absolute path, sha256]. */
export const BUNDLE_SOURCES = "sources.json";

/** A side's copy of one bench file, or the bench process's main module (one per run). */
export type BundleRequest =
  | {
      kind: "side";
      /** Absolute path of the bench file on this side. */
      benchFile: string;
      /** Folder the bundle goes to; bare imports resolve from here upward, so keep it inside the side. */
      outDir: string;
      runtime: Runtime;
      /** The side's checkout: a workspace package's files are bundled from here. */
      root?: string;
      /** The repository whose node_modules this side links (a worktree's), where its links resolve to. */
      linkedFrom?: string;
    }
  | { kind: "driver"; outDir: string; runtime: Runtime };

/**
 * Compiles one bench file and everything it imports from its own side into a single ES
 * module that runs unchanged under node, bun and deno, or the driver that loads such modules.
 * Packages stay external: they load from the side's node_modules at run time, as the
 * project's own code would.
 */
export async function bundle(request: BundleRequest): Promise<string> {
  const bun = bunHere();
  return bun ? bundleWith(bun, request) : bundleInBunProcess(request);
}

/** Under node or deno: the same bundler, in a Bun process (runner/bundle-main). */
async function bundleInBunProcess(request: BundleRequest): Promise<string> {
  const bun = findBun(process.cwd());
  if (!bun) throw new BundleError(NO_BUN);
  const main = packageFile("runner/bundle-main.mjs", "runner/bundle-main.ts");
  const done = await runToEnd([bun.file, main, JSON.stringify(request)], { env: bun.env });
  if (done.code === 0) return done.stdout.trimEnd().split("\n").pop()!;
  const why =
    done.error ?? (lastLines(done.stderr, 1) || `${bun.file} ${done.signal ? `killed by ${done.signal}` : `exited ${done.code}`}`);
  throw new BundleError(why.startsWith("cannot compile") ? why : `cannot compile ${describe(request)}: ${why}`);
}

function describe(request: BundleRequest): string {
  return request.kind === "side" ? request.benchFile : "the bench-process driver";
}

/**
 * The entry of a bundle. A side's bench file is imported for its side effects (its `bench()`
 * calls), which a project's `"sideEffects": false` would let the bundler drop: the build
 * ignores such annotations (ignoreDCEAnnotations) and the entry keeps the module's namespace.
 * A vitest file gets what the project's vitest config does before it loads: the globals, then
 * the setup files, in order (ES modules evaluate their imports in the order written).
 */
function entrySource(request: BundleRequest, vitest: VitestSetup | undefined): string {
  if (request.kind === "driver") return 'import "xbench-internal:driver";\n';
  // Deno.bench is a global, not an import: its stand-in is put in place before the file loads.
  const callsDenoBench = /\bDeno\s*\.\s*bench\b/.test(readFileSync(request.benchFile, "utf8"));
  return [
    ...(callsDenoBench ? ['import "xbench-internal:deno";'] : []),
    ...(vitest?.globals ? [`import "${VITEST_GLOBALS_MODULE}";`] : []),
    ...(vitest?.setupFiles ?? []).map((file) => `import ${JSON.stringify(file)};`),
    `import * as benchFile from ${JSON.stringify(request.benchFile)};`,
    'export { describeSide } from "xbench-internal:side";',
    "export const loaded = benchFile;",
    "",
  ].join("\n");
}

/** What each stand-in provides, for a file that imports more of the package than that. */
const STAND_IN_PROVIDES: Partial<Record<ChildAsset, string>> = {
  vitest: "bench, describe, suite, the hooks (beforeAll, afterAll, beforeEach, afterEach), and test/it (skipped, as vitest bench does)",
  tinybench: "Bench, Task and the time helpers",
  benchmarkjs: "Benchmark and Benchmark.Suite",
};

/** `No matching export in "xbench:vitest" for import "expect"` as a user can act on it. */
function explainMissingExport(message: string | undefined): string | undefined {
  const match = /No matching export in "xbench:(\w+)" for import "([^"]+)"/.exec(message ?? "");
  if (!match) return undefined;
  const asset = match[1] as ChildAsset;
  const name = Object.keys(VIRTUAL).find((key) => VIRTUAL[key] === asset) ?? asset;
  const provides = STAND_IN_PROVIDES[asset];
  return `it imports ${match[2]} from "${name}", which a bench process does not provide${provides ? ` (it provides ${provides})` : ""}; keep assertions in test files`;
}

/** The tsconfig.json nearest a folder, looking up to the root of its checkout (a `.git` beside it). */
export function nearestTsconfig(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, "tsconfig.json");
    if (existsSync(candidate)) return candidate;
    if (existsSync(join(at, ".git")) || dirname(at) === at) return undefined;
  }
}

/** The vitest config's part in a bench file vitest would run: one that uses no other benchmark API. */
function vitestSetupFor(benchFile: string): VitestSetup | undefined {
  return readByVitest(readFileSync(benchFile, "utf8")) ? vitestSetup(benchFile) : undefined;
}

async function bundleWith(bun: BunRuntime, request: BundleRequest): Promise<string> {
  // Bench processes execute what is in here: private to this user whatever the umask, so no
  // one else can swap a bundle between its writing and its loading.
  mkdirSync(request.outDir, { recursive: true, mode: 0o700 });
  chmodSync(request.outDir, 0o700);
  const entry = join(request.outDir, "entry.mjs");
  const vitest = request.kind === "side" ? vitestSetupFor(request.benchFile) : undefined;
  writeFileSync(entry, entrySource(request, vitest), { mode: 0o600 });
  // The config decides what runs before the file, so it is part of what the bundle is made of.
  const sources: Array<[string, string]> = vitest ? [[vitest.config, hashText(readFileSync(vitest.config, "utf8"))]] : [];
  // A compiled xbench's Bun.build reads no tsconfig.json by itself: the project's `paths` (a
  // package importing itself by name, from source) are passed as `bun build` would find them.
  const tsconfig = request.kind === "side" ? nearestTsconfig(dirname(request.benchFile)) : undefined;
  const result = await bun.build({
    ...(tsconfig ? { tsconfig } : {}),
    entrypoints: [entry],
    outdir: request.outDir,
    naming: `${request.kind}.[ext]`,
    target: bundleTarget(request.runtime),
    format: "esm",
    packages: "external",
    external: ["@mitata/counters", "bun:jsc"],
    plugins: [
      virtualModules,
      packageJsonFiles,
      ...(request.kind === "side" ? [workspacePackages(request)] : []),
      sourceLocations(entry, sources),
    ],
    ignoreDCEAnnotations: true,
    // `side.js.map` beside the bundle: compare --profile maps functions back to their files.
    sourcemap: "external",
    throw: false,
  } as Parameters<BunRuntime["build"]>[0]);
  if (!result.success) {
    const first = result.logs.map((l) => (typeof l === "string" ? l : (l.message ?? String(l)))).find(Boolean);
    throw new BundleError(`cannot compile ${describe(request)}: ${explainMissingExport(first) ?? first ?? "unknown error"}`);
  }
  writeFileSync(join(request.outDir, BUNDLE_SOURCES), JSON.stringify(sources.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), {
    mode: 0o600,
  });
  // The bundler creates its files by the umask: made private as the folder is.
  for (const name of readdirSync(request.outDir)) chmodSync(join(request.outDir, name), 0o600);
  return join(request.outDir, `${request.kind}.js`);
}
