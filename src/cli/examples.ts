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
    "xbench compare --base main --fail-above 10      # exit 1 when a row is confidently >10% slower",
  ],
  bisect: [
    "xbench bisect --good v1.2.0 --above 10          # the first commit since v1.2.0 >10% slower",
    "xbench bisect --good main~40 --bad main --above 5 parse --markdown bisect.md",
  ],
  trace: [
    "xbench trace -- make -j4",
    "xbench trace --format ndjson -o accesses.ndjson -- npm test",
    "xbench trace --backend seccomp -- go build ./...",
  ],
  bench: ["xbench bench config", "xbench bench tracer --iterations 24"],
  "bench config": ["xbench bench config", "xbench bench config --sizes 50,500 --json results.json"],
  "bench tracer": ["xbench bench tracer", "xbench bench tracer --backends preload --markdown tracer.md"],
  report: [
    "xbench report result.json",
    "xbench report --format md result.json > comment.md",
    "xbench report --fail-on slower result.json      # judge a saved result",
  ],
  helpers: ["xbench helpers"],
  "exec-stats": ["xbench exec-stats --out stats.json -- true"],
};

/**
 * Exit statuses shown in --help, for commands whose status is an answer (a gate, a bisect),
 * keyed like EXAMPLES. The numbers are src/errors.ts's.
 */
export const EXIT_STATUSES: Record<string, string[]> = {
  compare: [
    "0    finished; with --fail-on or --fail-above, the gate passed (undecided rows pass)",
    "1    the gate failed: a row's interval lies wholly past its line (or xbench itself failed: a build, the PR comment)",
    "2    bad input: a flag, a ref, no bench files",
    "3    a benchmark failed to run, or nothing was measured on both sides",
    "125  with a gate, under git bisect run: this commit cannot be judged (undecided, not measured, a failed build); git skips it",
    "130  interrupted (Ctrl-C); --resume continues",
  ],
  bisect: [
    "0    a first bad commit, or the smallest range of commits holding it, was found",
    "1    --bad is not confidently more than PCT slower than --good: nothing to find (or xbench itself failed)",
    "2    bad input: a flag, a ref, --good not a first-parent ancestor of --bad",
    "130  interrupted (Ctrl-C); worktrees and bundles are removed",
  ],
  report: [
    "0    rendered; with --fail-on or --fail-above, the gate passed",
    "1    the gate failed",
    "2    bad input: no such file, not a result, a bad flag",
    "3    with a gate: a row of the saved result failed to run, or nothing was measured",
  ],
};
