/**
 * A command as one declarative table: its flags, positionals, the command line it takes after
 * `--`, its help extras and its `run`. Help (`help.ts`), strict checking and parsing
 * (`parse.ts`) and the CLI's fast path (`cli/fast.ts`) all read this table, so a flag added
 * here is shown, checked and parsed everywhere. This module holds types and `defineCommand`
 * only, so a table loads nothing beyond what its own values need.
 *
 * A flag, in the order its help line reads:
 *
 *     rounds: { type: "string", hint: "N", description: "Rounds of each step", default: "6", parse: positiveInt(2) },
 *
 * - `type`: `boolean` (`--all`, `--no-all`), `string` (`--base REF`), `enum` (`options`, a bad
 *   value is one line with a guess), `file` or `dir` (a path, made absolute where it was
 *   typed; `-` stays, for stdout). An enum with `bare` may be typed alone: `--profile`, or
 *   `--profile all`.
 * - `short`: a one-letter alias (`-o`); `hint`: the `<VALUE>` of the help (the name upper-cased
 *   when absent; FILE or DIR for paths; the options for an enum).
 * - `default`: the text used when the flag is not typed, shown as `(default: …)` and parsed
 *   like a typed value; `repeatable`: every value is kept, in order (`--bench a --bench b`);
 *   `required`: a missing one is a usage error.
 * - `parse`: checks and converts the text (`values.ts`: durations, percentages, counts); its
 *   usage error is the one line the user sees.
 */

interface FlagCommon {
  description: string;
  /** A one-letter alias: `-o`. */
  short?: string;
  /** The `<VALUE>` shown in help. */
  hint?: string;
}

export interface BooleanFlag extends FlagCommon {
  type: "boolean";
}

export interface ValueFlag<T = unknown> extends FlagCommon {
  type: "string" | "file" | "dir";
  default?: string;
  repeatable?: boolean;
  /** A missing one is a usage error with the command's help. */
  required?: boolean;
  /** Checks the text and converts it; throws a usage error naming `--flag`. */
  parse?: (text: string, flag: string) => T;
}

export interface EnumFlag<O extends string = string> extends FlagCommon {
  type: "enum";
  options: readonly O[];
  default?: NoInfer<O>;
  /**
   * The value of the flag typed alone (`--profile`); the next argument is then its value only
   * when it is one of the options (`--profile all`), else it stays a positional.
   */
  bare?: NoInfer<O>;
}

export type Flag = BooleanFlag | ValueFlag | EnumFlag;
export type Flags = Record<string, Flag>;

type Parsed<F> = F extends { parse: (text: string, flag: string) => infer T } ? T : string;

/** What `run` reads for a flag: its parsed value, the default's when not typed. */
export type FlagValue<F> = F extends BooleanFlag
  ? boolean
  : F extends { type: "enum"; options: readonly (infer O)[] }
    ? F extends { default: string }
      ? O
      : O | undefined
    : F extends { repeatable: true }
      ? Parsed<F>[]
      : F extends { default: string } | { required: true }
        ? Parsed<F>
        : Parsed<F> | undefined;

export type FlagValues<F extends Flags> = { -readonly [K in keyof F]: FlagValue<F[K]> };

export interface Positional {
  name: string;
  description: string;
  /** Required unless `false`. */
  required?: boolean;
  /** Takes every further positional. */
  rest?: boolean;
}

export interface ParsedArgs<F extends Flags = Flags> {
  flags: FlagValues<F>;
  positionals: string[];
  /** The command line after `--`, for a command that takes one (`trace -- make -j4`). */
  command: string[];
  /** The flags typed, in order, by their long names (`-o` as `--output`): a default is not a choice. */
  given: Array<`--${Extract<keyof F, string>}`>;
}

export interface CommandSpec<F extends Flags = Flags> {
  name: string;
  description: string;
  /** The root's: `--version` prints it, its help names it. */
  version?: string;
  /** Not listed in help, never offered as "did you mean". */
  hidden?: boolean;
  flags?: F;
  positionals?: readonly Positional[];
  /** Takes a command line after `--`; `example` completes "needs a command after --, e.g. …". */
  command?: { example: string };
  /** Lines of EXIT STATUS and EXAMPLES in help. */
  exitStatuses?: readonly string[];
  examples?: readonly string[];
  subcommands?: Record<string, () => Promise<AnyCommand>>;
  /** The exit status (0 when it returns undefined). */
  run?: (args: ParsedArgs<F>) => number | undefined | Promise<number | undefined>;
}

// biome-ignore lint/suspicious/noExplicitAny: a table of any flags, as the CLI walks it
export type AnyCommand = CommandSpec<any>;

/** A command table, its flags' types kept for `run`. */
export function defineCommand<const F extends Flags = Record<never, Flag>>(spec: CommandSpec<F>): CommandSpec<F> {
  return spec;
}
