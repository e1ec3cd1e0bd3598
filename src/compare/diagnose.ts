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
function importedModules(source: string): string[] {
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
