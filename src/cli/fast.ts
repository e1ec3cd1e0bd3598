/**
 * Commands answered before the full CLI loads: `--version` and a plain `trace -- CMD`.
 * Loading citty (and node:util with it) and the command table costs more start-up than
 * tracing `true` does, so these paths load only what they run. Every other argv, malformed
 * ones included, goes to the full CLI, which owns help and usage errors.
 */

/** `--version` / `-v` alone, or with `--verbose` (either order). */
export function versionRequest(argv: string[]): "plain" | "verbose" | undefined {
  const flags = new Set(argv);
  if (!flags.has("--version") && !flags.has("-V") && !flags.has("-v")) return undefined;
  if (argv.length === 1) return "plain";
  return argv.length === 2 && flags.has("--verbose") ? "verbose" : undefined;
}

/** The exit status when `argv` was handled here; undefined to hand it to the full CLI. */
export async function runFast(argv: string[]): Promise<number | undefined> {
  const version = versionRequest(argv);
  if (version) {
    const [{ VERSION, verboseVersion }, { writeDirect }] = await Promise.all([import("../version.ts"), import("../output/direct.ts")]);
    writeDirect(1, `${version === "verbose" ? verboseVersion() : VERSION}\n`);
    return 0;
  }
  if (argv[0] !== "trace") return undefined;
  const { parsePlainTrace, runTrace } = await import("../commands/trace-run.ts");
  const plain = parsePlainTrace(argv.slice(1));
  if (!plain) return undefined;
  try {
    return await runTrace(plain.flags, plain.command);
  } catch (error) {
    const { printFailure } = await import("./errors.ts");
    return printFailure(error);
  }
}
