/**
 * Commands answered before the full CLI loads: `--version` and `trace -- CMD`. The full CLI
 * (subcommand lookup, help, every command's table) costs more start-up than tracing `true`
 * does, so these paths load only what they run: trace's own table and the parser every
 * command uses (`args/parse.ts`). Help and any argv the parser refuses go to the full CLI,
 * which parses it the same way and reports the usage error with the command's help.
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
  const [{ traceCommand }, { fastParse }] = await Promise.all([import("../commands/trace.ts"), import("../args/parse.ts")]);
  const parsed = fastParse(traceCommand, argv.slice(1));
  if (!parsed) return undefined;
  try {
    const status = await traceCommand.run?.(parsed);
    return typeof status === "number" ? status : 0;
  } catch (error) {
    const { printFailure } = await import("./errors.ts");
    return printFailure(error);
  }
}
