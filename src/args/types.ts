/**
 * A command is a citty command (`meta`, `args`, lazy `subCommands`, `run`), and its `args` are
 * the one flag table: citty reads them to render help, the walk over argv (`typed.ts`) and the
 * checks (`check.ts`) read the same entries, on the full CLI and the fast path alike. This
 * module holds the types; `define.ts` makes a command of a table.
 *
 * An entry is citty's `ArgDef`, in the order its help line reads, with five fields of xbench's
 * own that citty passes over:
 *
 *     rounds: { type: "string", valueHint: "N", description: "Rounds of each step", default: "6", parse: positiveInt(2) },
 *
 * - citty's: `type` (`boolean`: `--all`, `--no-all`; `string`: `--base REF`; `enum` with
 *   `options`; `positional`), `description`, `valueHint` (the `<VALUE>` of the help: the name
 *   upper-cased when absent, FILE or DIR for a path, the options for an enum), `alias` (a
 *   one-letter `-o`), `default` (the text used when the flag is not typed, parsed like a typed
 *   value), `required`.
 * - `parse`: checks and converts the text (`values.ts`: durations, percentages, counts); its
 *   usage error is the one line the user sees.
 * - `path: "file" | "dir"`: made absolute where it was typed; `-` stays, for stdout.
 * - `repeatable`: every value is kept, in order (`--bench a --bench b`), where citty keeps the last.
 * - `bare` (an enum's): its value when typed alone (`--profile`); the next argument is then its
 *   value only when it is one of the options (`--profile all`), else it stays a positional.
 * - `rest` (a positional's): takes every further positional.
 *
 * A command that takes a command line after `--` says so with `passthrough`; its help gets
 * EXIT STATUS and EXAMPLES from `exitStatuses` and `examples`.
 */
import type { CommandContext, CommandDef } from "citty";

interface ArgCommon {
  description: string;
  /** The `<VALUE>` shown in help. */
  valueHint?: string;
}

export interface BooleanFlag extends ArgCommon {
  type: "boolean";
  /** A one-letter alias: `-o`. */
  alias?: string;
}

export interface ValueFlag<T = unknown> extends ArgCommon {
  type: "string";
  alias?: string;
  default?: string;
  /** A missing one is a usage error with the command's usage line. */
  required?: boolean;
  repeatable?: boolean;
  /** A path, made absolute where it was typed (`-` stays). */
  path?: "file" | "dir";
  /** Checks the text and converts it; throws a usage error naming `--flag`. */
  parse?: (text: string, flag: string) => T;
}

export interface EnumFlag<O extends string = string> extends ArgCommon {
  type: "enum";
  options: readonly O[];
  alias?: string;
  default?: NoInfer<O>;
  /** The value of the flag typed alone (`--profile`). */
  bare?: NoInfer<O>;
}

export interface PositionalArg extends ArgCommon {
  type: "positional";
  /** Required unless `false`. */
  required?: boolean;
  /** Takes every further positional. */
  rest?: boolean;
}

export type Flag = BooleanFlag | ValueFlag | EnumFlag;
export type Arg = Flag | PositionalArg;
export type Args = Record<string, Arg>;
/** A table of flags alone, as shared tables (`commands/flags.ts`) are. */
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

/** The flags of a table (positionals left out), by name. */
export type FlagName<A extends Args> = Extract<{ [K in keyof A]: A[K] extends PositionalArg ? never : K }[keyof A], string>;

export type FlagValues<A extends Args> = { -readonly [K in FlagName<A>]: FlagValue<A[K]> };

export interface ParsedArgs<A extends Args = Args> {
  flags: FlagValues<A>;
  /** Every positional, in order (the named ones first). */
  positionals: string[];
  /** The command line after `--`, for a command that takes one (`trace -- make -j4`). */
  command: string[];
  /** The flags typed, in order, by their long names (`-o` as `--output`): a default is not a choice. */
  given: Array<`--${FlagName<A>}`>;
}

export interface CommandMeta {
  name: string;
  description: string;
  /** The root's: `--version` prints it, its help names it. */
  version?: string;
  /** Not listed in help, never offered as "did you mean". */
  hidden?: boolean;
}

type Status = number | undefined;

/** What a command module writes: citty's fields, with `run` taking the checked flags. */
export interface CommandInput<A extends Args> {
  meta: CommandMeta;
  args?: A;
  subCommands?: Record<string, () => Promise<AnyCommand>>;
  /** Takes a command line after `--`; `example` completes "needs a command after --, e.g. …". */
  passthrough?: { example: string };
  /** Lines of EXIT STATUS and EXAMPLES in help. */
  exitStatuses?: readonly string[];
  examples?: readonly string[];
  /** The exit status (0 when it returns undefined). */
  run?: (args: ParsedArgs<A>) => Status | Promise<Status>;
}

/** A command as citty runs it; `action` is the command's own `run`, given the checked flags (what the CLI calls). */
export interface Command<A extends Args = Args>
  extends Omit<CommandInput<A>, "run">,
    Omit<CommandDef, "meta" | "args" | "subCommands" | "run"> {
  args?: A;
  action?: (args: ParsedArgs<A>) => Status | Promise<Status>;
  run?: (context: CommandContext) => Promise<Status>;
}

// biome-ignore lint/suspicious/noExplicitAny: a command of any table, as the CLI walks it
export type AnyCommand = Command<any>;
