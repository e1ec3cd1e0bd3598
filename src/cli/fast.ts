/**
 * Commands answered before the full CLI loads: `--version` and `trace -- CMD`. Start-up is
 * most of what tracing `true` costs, so these paths load only what they run: for trace, its
 * own module, which reads argv by its table with the walk every command's argv gets
 * (`args/typed.ts`). Help and any argv the walk refuses go to the full CLI, which reads it the
 * same way and reports the usage error with the command's usage.
 */

/** `--version` / `-v` alone, or with `--verbose` (either order). */
export function versionRequest(argv: string[]): "plain" | "verbose" | undefined {
  if (argv.length > 2) return undefined;
  const flags = new Set(argv);
  if (!flags.has("--version") && !flags.has("-V") && !flags.has("-v")) return undefined;
  if (argv.length === 1) return "plain";
  return argv.length === 2 && flags.has("--verbose") ? "verbose" : undefined;
}

/** The exit status when `argv` was handled here; undefined to hand it to the full CLI. */
export async function runFast(argv: string[]): Promise<number | undefined> {
  const version = versionRequest(argv);
  if (version) {
    const [text, { printOnce }] = await Promise.all([
      version === "verbose" ? import("../build-info.ts").then((m) => m.verboseVersion()) : import("../version.ts").then((m) => m.VERSION),
      import("../output/print-once.ts"),
    ]);
    return printOnce(`${text}\n`);
  }
  if (argv[0] !== "trace") return undefined;
  const { runFastTrace } = await import("../commands/trace.ts");
  try {
    return await runFastTrace(argv.slice(1));
  } catch (error) {
    const { printFailure } = await import("./errors.ts");
    return printFailure(error);
  }
}
