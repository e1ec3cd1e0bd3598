/**
 * What to say about a bench file that registers nothing: it speaks an API xbench reads and
 * declared nothing, it times itself, it uses a benchmark library xbench does not read, or it
 * is a helper module a glob happened to match. Pure: the file's source and what its sides
 * reported in, a verdict out.
 */

/** The APIs xbench reads, for messages. */
export const SUPPORTED_APIS = "mitata, vitest (bench), tinybench, Benchmark.js and Deno.bench";

/** Module names a bench file imports for each API xbench reads. */
const KNOWN_IMPORTS: Record<string, string> = {
  mitata: "mitata",
  vitest: "vitest",
  tinybench: "tinybench",
  benchmark: "Benchmark.js",
};

/** Benchmark libraries xbench does not read: by name, and anything called *bench* or *perf*. */
const OTHER_LIBRARY = /bench|perf|^(benny|cronometro|kelonio|matcha)$/i;

/** Ways a script times itself instead of registering benchmarks. */
const SELF_TIMING: Array<[RegExp, string]> = [
  [/\bperformance\s*\.\s*now\s*\(/, "performance.now()"],
  [/\bprocess\s*\.\s*hrtime\b/, "process.hrtime()"],
  [/\bBun\s*\.\s*nanoseconds\s*\(/, "Bun.nanoseconds()"],
  [/\bconsole\s*\.\s*time\s*\(/, "console.time()"],
  [/\bDate\s*\.\s*now\s*\(/, "Date.now()"],
];

export interface SourceSignals {
  /** APIs xbench reads that the source imports or calls. */
  apis: string[];
  /** Other packages with "bench" in their name that the source imports (benny, bench-node, …). */
  otherLibraries: string[];
  /** How the source times itself, when it does. */
  timesItself?: string;
}

/** Bare module names a source imports or requires. */
export function importedModules(source: string): string[] {
  const names = new Set<string>();
  const patterns = [/\bfrom\s*["']([^"']+)["']/g, /\bimport\s*\(?\s*["']([^"']+)["']/g, /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g];
  for (const pattern of patterns) for (const [, name] of source.matchAll(pattern)) names.add(name!);
  return [...names].filter((name) => !name.startsWith(".") && !name.startsWith("/"));
}

/** The package a module specifier belongs to: `@scope/name` or `name`, without a subpath or `npm:`. */
function packageOf(specifier: string): string {
  const bare = specifier.replace(/^(npm|jsr):/, "").replace(/@[^/@]*$/, "");
  const parts = bare.split("/");
  return bare.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

export function scanBenchSource(source: string): SourceSignals {
  const packages = importedModules(source).map(packageOf);
  const apis = new Set(packages.flatMap((name) => (KNOWN_IMPORTS[name] ? [KNOWN_IMPORTS[name]!] : [])));
  if (/\bDeno\s*\.\s*bench\b/.test(source)) apis.add("Deno.bench");
  const otherLibraries = packages.filter((name) => !KNOWN_IMPORTS[name] && OTHER_LIBRARY.test(name) && name !== "xbench");
  const timing = SELF_TIMING.find(([pattern]) => pattern.test(source));
  return { apis: [...apis], otherLibraries: [...new Set(otherLibraries)], ...(timing ? { timesItself: timing[1] } : {}) };
}

export type EmptyFileVerdict = { kind: "skip"; note: string } | { kind: "error"; message: string };

/**
 * A file that registered nothing on any side. `apisLoaded`: the stand-ins its sides loaded
 * (through a helper module too). `named`: the user named this very file (a plain path, not a
 * glob or the default search), so a helper module cannot have been matched by accident.
 */
export function emptyFileVerdict(file: string, signals: SourceSignals, apisLoaded: string[], named: boolean): EmptyFileVerdict {
  const apis = [...new Set([...signals.apis, ...apisLoaded])];
  if (apis.length > 0) {
    return {
      kind: "error",
      message: `${file} uses ${apis.join(" and ")} but registered no benchmark when it loaded (benchmarks declared inside a function the file does not call at load time are not seen)`,
    };
  }
  if (signals.otherLibraries.length > 0) {
    return {
      kind: "error",
      message: `${file} imports ${signals.otherLibraries.join(", ")}, which xbench does not read; xbench reads benchmarks written with ${SUPPORTED_APIS}`,
    };
  }
  if (signals.timesItself) {
    return {
      kind: "error",
      message: `${file} times itself with ${signals.timesItself} and registers no benchmark; xbench measures benchmarks registered with ${SUPPORTED_APIS} (see "Writing bench files" in the README)`,
    };
  }
  if (named) {
    return {
      kind: "error",
      message: `${file} registers no benchmark and uses no benchmark API; xbench reads benchmarks written with ${SUPPORTED_APIS}`,
    };
  }
  return {
    kind: "skip",
    note: `${file}: skipped, it registers no benchmark and uses no benchmark API (a helper module matched by the pattern)`,
  };
}

/** What makes a file another runtime's: `it imports jsr:@std/assert`, `it uses Bun.file`. */
export interface RuntimeSignal {
  runtime: "deno" | "bun";
  why: string;
  /** Counts only when the load failed resolving a module or a global (a deno.json beside a node project). */
  weak?: boolean;
}

/**
 * A load error from resolving a module, not from the code itself: what a deno.json import map
 * beside a file would explain. A global that is not defined is not one (deno.json defines none).
 */
const UNRESOLVED = /Cannot find (package|module)|Could not resolve|ERR_UNSUPPORTED_ESM_URL_SCHEME|Only URLs with a scheme/i;

/** A deno.json that resolves bare imports: an import map, inline or in a file, or a workspace of members. */
export const DENO_RESOLVES = /"(imports|importMap|workspace)"\s*:/;

/** Globals Deno (and browsers) have that node 20 does not: a file using one is written for Deno. */
const DENO_GLOBALS = ["URLPattern"];

/**
 * Why a bench file is written for Deno or Bun, from its source and the Deno config beside it
 * (the one that resolves its imports, with its name: `runtime-fit.ts`): `jsr:` and
 * `npm:` specifiers, an import map or workspace in deno.json, `Deno.*` beyond `Deno.bench`,
 * Deno's web globals; `bun`/`bun:*` imports and the `Bun` global. Undefined when nothing does.
 */
export function runtimeSignals(source: string, denoConfig?: { name: string; text: string }): RuntimeSignal[] {
  const signals: RuntimeSignal[] = [];
  const modules = importedModules(source);
  const specifier = modules.find((name) => /^(jsr|npm):/.test(name));
  if (specifier) signals.push({ runtime: "deno", why: `imports ${specifier}` });
  const deno = /\bDeno\s*\.\s*([A-Za-z_$][\w$]*)/g;
  const api = [...source.matchAll(deno)].map((m) => m[1]).find((name) => name !== "bench");
  if (api) signals.push({ runtime: "deno", why: `uses Deno.${api}` });
  const global = DENO_GLOBALS.find((name) => new RegExp(`\\b${name}\\b`).test(source));
  if (global) signals.push({ runtime: "deno", why: `uses ${global}` });
  if (denoConfig && DENO_RESOLVES.test(denoConfig.text)) {
    signals.push({ runtime: "deno", why: `resolves its imports through ${denoConfig.name}`, weak: true });
  }
  const bunModule = modules.find((name) => name === "bun" || name.startsWith("bun:"));
  if (bunModule) signals.push({ runtime: "bun", why: `imports ${bunModule}` });
  const bun = /\bBun\s*\.\s*([A-Za-z_$][\w$]*)/.exec(source);
  if (bun) signals.push({ runtime: "bun", why: `uses Bun.${bun[1]}` });
  return signals;
}

/**
 * A file that cannot load on head under `runtime` and is written for another runtime: one line
 * that says which and names the flag, instead of the runtime's own error in every round.
 */
export function wrongRuntime(file: string, runtime: string, signals: RuntimeSignal[], loadError: string): string | undefined {
  // A weak signal counts where the error is a module that did not resolve, or beside a strong one.
  const strong = new Set(signals.filter((s) => !s.weak).map((s) => s.runtime));
  const other = signals.filter((s) => s.runtime !== runtime && (!s.weak || strong.has(s.runtime) || UNRESOLVED.test(loadError)));
  if (other.length === 0) return undefined;
  const target = other[0]!.runtime;
  const reasons = other.filter((s) => s.runtime === target).map((s) => s.why);
  const name = target === "deno" ? "Deno" : "Bun";
  // Where the bundle sits in a temporary folder says nothing to the user.
  const error = loadError
    .split("\n")[0]!
    .replace(/ imported from \S+$/, "")
    .replace(/\s+/g, " ")
    .trim();
  const shown = error.length > 120 ? `${error.slice(0, 117)}…` : error;
  return `${file} is written for ${name} (it ${reasons.join(", ")}) and cannot load under ${runtime} (${shown}); run with --runtime ${target}`;
}

/** The name in `X is not defined`, the load error of a global that does not exist. */
export function undefinedGlobal(loadError: string): string | undefined {
  return /(?:^|\s)([A-Za-z_$][\w$]*) is not defined\b/.exec(loadError)?.[1];
}

/** What the project's vitest config did before a file loaded, as vitest-config.ts read it. */
export interface VitestSetupSeen {
  /** The config, relative to the checkout's root. */
  config: string;
  globals: boolean;
  setupFiles: string[];
}

/**
 * A vitest file that calls one of vitest's names (`describe`, `bench`) without importing it and
 * found it undefined: the project's vitest config, not the runtime, is what decides that. One
 * line naming the config and what it set up, undefined for any other load error.
 */
export function missingVitestGlobal(
  file: string,
  loadError: string,
  vitestNames: readonly string[],
  setup?: VitestSetupSeen,
): string | undefined {
  const name = undefinedGlobal(loadError);
  if (!name || !vitestNames.includes(name)) return undefined;
  const fix = `import { ${name} } from "vitest" in the file`;
  if (!setup) {
    return `${file} calls ${name} without importing it, and no vitest.config.* or vite.config.* from its folder up to the repository's root sets up vitest's globals (globals: true, setupFiles): ${fix}, or add that config`;
  }
  const did = [
    setup.globals
      ? `globals: true (${name === "bench" ? "vitest's globals do not include bench" : "yet it is not defined"})`
      : "no globals: true",
    setup.setupFiles.length > 0 ? `setup files ${setup.setupFiles.join(", ")}, which do not define ${name}` : "no setupFiles",
  ].join(", ");
  return `${file} calls ${name} without importing it, and ${setup.config} defines it nowhere before the file loads (${did}): ${fix}, or put it on globalThis in a setup file`;
}
