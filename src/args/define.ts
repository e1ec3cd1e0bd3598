/**
 * `defineCommand`: a table and its `run` as a citty command. No runtime import of citty here, so
 * a command module loads nothing beyond what its own values need: the trace fast path loads
 * trace's command without citty.
 */
import type { Arg, Args, Command, CommandInput } from "./types.ts";

/**
 * A citty command from `input`: the CLI calls `action` with the flags it read and checked
 * (`cli/main.ts`); `run` is for citty running the command itself (`runCommand`), and reads
 * them from citty's `rawArgs` the same way (the reader loads only then).
 */
export function defineCommand<const A extends Args = Record<never, Arg>>(input: CommandInput<A>): Command<A> {
  const { run: action, ...rest } = input;
  if (!action) return rest as Command<A>;
  const command: Command<A> = {
    ...rest,
    action,
    async run(context) {
      const status = await action((await import("./read.ts")).readArgs(command, context.rawArgs));
      return typeof status === "number" ? status : 0;
    },
  };
  return command;
}
