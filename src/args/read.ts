/**
 * argv to a command's flags, for a caller that has no help to give (tests, a library): one walk
 * by the command's table (`typed.ts`), then the checks (`check.ts`). A usage error is one line
 * (with a guess when one is close); `--help` is an unknown option here, as the CLI answers it.
 */
import { checkArgs } from "./check.ts";
import { readTyped } from "./typed.ts";
import type { AnyCommand, ParsedArgs } from "./types.ts";

/** Parses `argv` (what follows the command's name) by `command`'s table; throws a usage error. */
export function readArgs<C extends AnyCommand>(command: C, argv: string[], cwd = process.cwd()): ParsedArgs<NonNullable<C["args"]>> {
  return checkArgs(command, readTyped(command, argv), cwd);
}
