/**
 * `defineCommand`: a table and its `run` as a citty command. No runtime import of citty here, so
 * a command module loads nothing beyond what its own values need: the trace fast path loads
 * trace's command without citty.
 */
import type { Arg, Args, Command, CommandInput, ParsedArgs } from "./types.ts";

/**
 * A citty command from `input`: its `run` hands `action` the flags as `args/read.ts` checked
 * them, or, when citty is run on it directly, reads them first (the reader loads only then).
 */
export function defineCommand<const A extends Args = Record<never, Arg>>(input: CommandInput<A>): Command<A> {
  const { run: action, ...rest } = input;
  if (!action) return rest as Command<A>;
  const command: Command<A> = {
    ...rest,
    action,
    async run(context) {
      const parsed = (context.data as ParsedArgs<A> | undefined) ?? (await import("./read.ts")).readArgs(command, context.rawArgs);
      const status = await action(parsed);
      return typeof status === "number" ? status : 0;
    },
  };
  return command;
}
