/**
 * The fast path's read of argv (`cli/fast.ts`): mri parses it by the command's own table (its
 * booleans, strings, aliases and defaults), and the same checks as the full CLI's (`typed.ts`,
 * `check.ts`) make it what `run` reads. mri loads in a fraction of citty's time (citty loads
 * node:util); anything refused here goes to the full CLI, which parses it with citty and
 * reports it with the command's usage, so mri's reading only ever decides what runs fast.
 */
import mri from "mri";
import { checkArgs } from "./check.ts";
import { prepareArgv, wantsHelp } from "./typed.ts";
import type { AnyCommand, Args, ParsedArgs } from "./types.ts";

/** The table as mri's options. */
function mriOptions(args: Args): mri.Options {
  const boolean: string[] = [];
  const string: string[] = [];
  const alias: Record<string, string> = {};
  const defaults: Record<string, string> = {};
  for (const [name, arg] of Object.entries(args)) {
    if (arg.type === "positional") continue;
    (arg.type === "boolean" ? boolean : string).push(name);
    if (arg.alias) alias[name] = arg.alias;
    if (arg.type !== "boolean" && arg.default !== undefined) defaults[name] = arg.default;
  }
  return { boolean, string, alias, default: defaults };
}

/** The flags of `argv` by `command`'s table, or undefined for help and for argv the checks refuse. */
export function fastParse<C extends AnyCommand>(
  command: C,
  argv: string[],
  cwd = process.cwd(),
): ParsedArgs<NonNullable<C["args"]>> | undefined {
  if (wantsHelp(argv)) return undefined;
  try {
    const prepared = prepareArgv(command, argv);
    return checkArgs(command, mri(prepared.argv, mriOptions(command.args ?? {})), prepared.typed, prepared.passthrough, cwd);
  } catch {
    return undefined;
  }
}
