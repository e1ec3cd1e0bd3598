/**
 * argv to a command's flags: citty parses it by the command's own table, `typed.ts` checks the
 * tokens citty lets through, `check.ts` makes the values what `run` reads. A usage error is one
 * line (with a guess when one is close).
 */
import { parseArgs, type ArgsDef } from "citty";
import { usageError } from "../errors.ts";
import { checkArgs } from "./check.ts";
import { prepareArgv } from "./typed.ts";
import type { AnyCommand, Args, ParsedArgs } from "./types.ts";

/**
 * The table as citty parses it: an enum as a string, so that a bad value is checked here with a
 * guess (citty's own check names no guess).
 */
function parserTable(args: Args): ArgsDef {
  const table: ArgsDef = {};
  for (const [name, arg] of Object.entries(args)) table[name] = arg.type === "enum" ? { ...arg, type: "string" } : (arg as ArgsDef[string]);
  return table;
}

/** Parses `argv` (what follows the command's name) by `command`'s table; throws a usage error. */
export function readArgs<C extends AnyCommand>(command: C, argv: string[], cwd = process.cwd()): ParsedArgs<NonNullable<C["args"]>> {
  const prepared = prepareArgv(command, argv);
  let record: Record<string, unknown>;
  try {
    record = parseArgs(prepared.argv, parserTable(command.args ?? {}));
  } catch (error) {
    // citty's own usage errors (a missing required flag or positional) are one line too.
    throw usageError((error as Error).message, true);
  }
  return checkArgs(command, record, prepared.typed, prepared.passthrough, cwd);
}
