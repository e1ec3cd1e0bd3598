/**
 * Examples shown at the end of each command's --help, keyed by the command's path. Plain
 * data in one place, so the help of every command reads the same way.
 */
export const EXAMPLES: Record<string, string[]> = {
  "": [
    "xbench compare --base main          # this branch against main, a verdict per benchmark",
    "xbench trace -- make -j4            # every file make reads, writes or executes",
    "xbench bench config                 # a built-in suite",
  ],
  compare: [
    "xbench compare --base main",
    "xbench compare --base HEAD --rounds 20          # A/A: the noise floor of this machine",
    "xbench compare --bench test/bench/index.ts      # a suite not named *.bench.ts",
    "xbench compare --base v1.2.0 --head v1.3.0 --markdown report.md",
    'xbench compare parse --json result.json         # bench files whose path has "parse"',
  ],
  trace: [
    "xbench trace -- make -j4",
    "xbench trace --format ndjson -o accesses.ndjson -- npm test",
    "xbench trace --backend seccomp -- go build ./...",
  ],
  bench: ["xbench bench config", "xbench bench tracer --iterations 24"],
  "bench config": ["xbench bench config", "xbench bench config --sizes 50,500 --json results.json"],
  "bench tracer": ["xbench bench tracer", "xbench bench tracer --backends preload --markdown tracer.md"],
  report: ["xbench report result.json", "xbench report --format md result.json > comment.md"],
  helpers: ["xbench helpers"],
  "exec-stats": ["xbench exec-stats --out stats.json -- true"],
};
