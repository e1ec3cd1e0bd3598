#!/usr/bin/env node
// fast.ts has no static imports of its own; everything else is imported dynamically, since a
// static import would load before the fast path could skip it.
import { runFast } from "./fast.ts";

const argv = process.argv.slice(2);
const fast = await runFast(argv);
if (fast !== undefined) process.exitCode = fast;
else {
  await (await import("../args/citty-load.ts")).loadCitty();
  const [{ runCli }, { rootCommand }, { guardStdout, stdoutFailed }] = await Promise.all([
    import("./main.ts"),
    import("../commands/root.ts"),
    import("../output/stdout.ts"),
  ]);
  guardStdout();
  const status = await runCli(rootCommand, argv);
  process.exitCode = status === 0 && stdoutFailed() ? 1 : status;
}
