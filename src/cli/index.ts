#!/usr/bin/env node
// Only dynamic imports here: a static one would load before the fast path could skip it.
const argv = process.argv.slice(2);
const fast = await import("./fast.ts").then((m) => m.runFast(argv));
if (fast !== undefined) process.exitCode = fast;
else {
  const [{ runCli }, { rootCommand }, { VERSION }] = await Promise.all([
    import("./main.ts"),
    import("../commands/root.ts"),
    import("../version.ts"),
  ]);
  process.exitCode = await runCli(rootCommand, argv, VERSION);
}
export {};
