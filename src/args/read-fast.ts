/**
 * The fast path's read of argv (`cli/fast.ts`): the same walk and checks as the full CLI's
 * (`typed.ts`, `check.ts`), with help and refused argv left to the full CLI, which reads them
 * again the same way and reports them with the command's usage.
 */
import { checkArgs } from "./check.ts";
import { readTyped } from "./typed.ts";
import type { AnyCommand, ParsedArgs } from "./types.ts";

/** The flags of `argv` by `command`'s table, or undefined for help and for argv the checks refuse. */
export function fastParse<C extends AnyCommand>(
  command: C,
  argv: string[],
  cwd = process.cwd(),
): ParsedArgs<NonNullable<C["args"]>> | undefined {
  try {
    const typed = readTyped(command, argv, { help: true });
    return typed.help ? undefined : checkArgs(command, typed, cwd);
  } catch {
    return undefined;
  }
}
