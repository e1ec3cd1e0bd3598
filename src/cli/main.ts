/**
 * argv to a command: subcommand lookup through citty's lazy `subCommands` (with "did you
 * mean"), then one walk over the rest by the command's table (`args/typed.ts`), which also says
 * whether help was asked (`args/help.ts`, citty's rendering); the flags checked
 * (`args/check.ts`) and given to the command's `action`; and the exit status of what went wrong.
 *
 * Neither citty's `runMain` nor its `runCommand` dispatches or runs here. `runCommand` parses
 * argv again at every level (refusing a bad enum value in its own words, before the checks here
 * could guess), keeps a subcommand's result from its caller (the exit status), runs a parent's
 * `run` after its subcommand's, and skips a parent's flags to find a subcommand's name;
 * `runMain` exits the process itself, with 1 for a usage error, and takes `--help` after `--`.
 */
import { checkArgs } from "../args/check.ts";
import { renderHelp, usageLine, visibleSubcommands } from "../args/help.ts";
import { readTyped, type Typed } from "../args/typed.ts";
import type { AnyCommand } from "../args/types.ts";
import { closest } from "../util/suggest.ts";
import { verboseVersion } from "../build-info.ts";
import { EXIT_USAGE, XbenchError, printFailure } from "./errors.ts";
import { versionRequest } from "./fast.ts";
import { colorFor, forStream } from "../output/color.ts";

/** The command a raw argv resolves to, with the path of names to it and its own arguments. */
export interface ResolvedCommand {
  command: AnyCommand;
  path: string[];
  args: string[];
}

/** Walks subcommand names at the front of argv down to the command that runs. */
export async function resolveCommand(root: AnyCommand, argv: string[]): Promise<ResolvedCommand> {
  let command = root;
  const path: string[] = [];
  let args = argv;
  for (;;) {
    const subs = command.subCommands;
    const first = args[0];
    if (!subs || first === undefined || first.startsWith("-")) break;
    const load = subs[first];
    if (!load) {
      const guess = closest(
        first,
        (await visibleSubcommands(command)).map(([name]) => name),
      );
      const hint = guess ? ` (did you mean \`${[...path, guess].join(" ")}\`?)` : "";
      throw new XbenchError(`Unknown command: ${first}${hint}`, { kind: "usage", usage: !guess, cause: { command, path } });
    }
    command = await load();
    path.push(first);
    args = args.slice(1);
  }
  return { command, path, args };
}

/** The help of a command as it goes to `stream`: citty's colour kept or stripped by the one decision. */
async function usageText(resolved: { command: AnyCommand; path?: string[] }, stream: NodeJS.WriteStream): Promise<string> {
  return forStream(await renderHelp(resolved.command, resolved.path ?? []), colorFor(stream));
}

/** Runs the CLI from its root table and returns the exit code; never throws. */
export async function runCli(root: AnyCommand, argv: string[]): Promise<number> {
  let resolved: ResolvedCommand | undefined;
  try {
    const versionAsked = versionRequest(argv);
    if (versionAsked) {
      process.stdout.write(`${versionAsked === "verbose" ? verboseVersion() : root.meta.version}\n`);
      return 0;
    }
    resolved = await resolveCommand(root, argv);
    const { command, args } = resolved;
    let typed: Typed | undefined;
    try {
      typed = readTyped(command, args, { help: true });
    } catch (error) {
      // A command that only groups others answers any argv but help with its usage.
      if (command.action) throw error;
    }
    if (typed?.help) {
      process.stdout.write(`${await usageText(resolved, process.stdout)}\n`);
      return 0;
    }
    if (!command.action || !typed) {
      process.stderr.write(`${await usageText(resolved, process.stderr)}\n`);
      return EXIT_USAGE;
    }
    const status = await command.action(checkArgs(command, typed));
    return typeof status === "number" ? status : 0;
  } catch (error) {
    return reportError(error, resolved);
  }
}

/**
 * After a usage error: a command that has subcommands shows its help (the list to choose
 * from); any other shows its usage line and where its options are, so the error stays on screen.
 */
async function reportError(error: unknown, resolved: ResolvedCommand | undefined): Promise<number> {
  const status = printFailure(error);
  const where = error instanceof XbenchError && error.usage ? (resolved ?? (error.cause as ResolvedCommand | undefined)) : undefined;
  if (!where?.command) return status;
  const path = where.path ?? [];
  if ((await visibleSubcommands(where.command)).length > 0) process.stderr.write(`\n${await usageText(where, process.stderr)}\n`);
  else
    process.stderr.write(
      `\n${forStream(await usageLine(where.command, path), colorFor(process.stderr))}\n\nRun ${["xbench", ...path].join(" ")} --help for its options.\n`,
    );
  return status;
}
