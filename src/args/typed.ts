/**
 * The one walk over a command's argv, by its table: every value typed (in order, by the flag's
 * name), each switch's last setting, the flags typed in order, the positionals, the command
 * after `--`, whether help was asked; and the first token that is wrong (an unknown name with a
 * guess, a flag without its value, a value on a switch) as a usage error. `check.ts` makes the
 * values what `run` reads. The full CLI and the fast path read argv with this walk alone.
 * citty's parse keeps no order, no repeated value and no `--no-` in its place, and lets unknown
 * flags through; node:util's `parseArgs` (what citty parses with) would, with its tokens, but
 * loading it adds about a fifth to a Bun binary's start-up (docs/measurements.md, Start-up),
 * and its tokens would still need this table's reading: `-o=x`, an enum typed alone, a
 * flag-shaped argument refused as a value, `--no-` only for switches.
 */
import { usageError } from "../errors.ts";
import { closest } from "../util/suggest.ts";
import { valueHint } from "./hint.ts";
import type { AnyCommand, Args, Flag } from "./types.ts";

/** What a user typed after a command's name, read by its table. */
export interface Typed {
  /** `--help` or `-h` typed before any `--`: the rest is not checked. */
  help: boolean;
  /** The flags typed, in order, by their long names (`-o` as `--output`). */
  given: string[];
  /** Every value typed of each value flag, in order (a repeatable flag keeps them all, others the last). */
  values: Map<string, string[]>;
  /** The last setting of each switch typed (`--all --no-all` is off). */
  switches: Map<string, boolean>;
  positionals: string[];
  /** The command line after the first `--`, for a command that takes one (undefined when none). */
  passthrough: string[] | undefined;
}

/** A token that names a flag: not a positional, not `-` (stdout), not a negative number. */
function flagShaped(token: string): boolean {
  return token.startsWith("-") && token !== "-" && !/^-\d/.test(token);
}

function isHelp(token: string): boolean {
  return token === "--help" || token === "-h";
}

/** `max-time` as citty also accepts it: `maxTime`. */
function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The table's flags by every spelling citty accepts: the name, its camelCase, the alias. */
function spellings(args: Args): Map<string, string> {
  const names = new Map<string, string>();
  for (const [name, arg] of Object.entries(args)) {
    if (arg.type === "positional") continue;
    names.set(name, name);
    names.set(camel(name), name);
    if (arg.alias) names.set(arg.alias, name);
  }
  return names;
}

/** `Unknown option: --rouds (did you mean --rounds?)`. */
function unknown(typed: string, names: Iterable<string>): never {
  const bare = typed.replace(/^--?/, "");
  const guess = bare.length > 1 ? closest(bare, names) : undefined;
  if (guess) throw usageError(`Unknown option: ${typed} (did you mean --${guess}?)`);
  throw usageError(`Unknown option: ${typed}`, true);
}

/** A flag token split: `-o=x` reads as `--output=x`, as it would be typed long. */
function splitToken(token: string, names: Map<string, string>): { spelled: string; inline: string | undefined } {
  const eq = token.indexOf("=");
  if (eq === -1) return { spelled: token, inline: undefined };
  const spelled = token.slice(0, eq);
  const aliased = /^-[^-]$/.test(spelled) ? names.get(spelled.slice(1)) : undefined;
  return { spelled: aliased ? `--${aliased}` : spelled, inline: token.slice(eq + 1) };
}

/**
 * Reads `argv` (what follows the command's name) by `command`'s table. With `help`, `--help`
 * and `-h` ask for help, whatever else is typed (even a wrong token before them); without it
 * they are unknown options, as for any table. Throws the usage error of the first wrong token.
 */
export function readTyped(command: AnyCommand, argv: string[], { help = false } = {}): Typed {
  const args: Args = command.args ?? {};
  const names = spellings(args);
  const typed: Typed = { help: false, given: [], values: new Map(), switches: new Map(), positionals: [], passthrough: undefined };
  const end = argv.indexOf("--");
  const flags = end === -1 ? argv : argv.slice(0, end);
  const after = end === -1 ? [] : argv.slice(end + 1);
  if (end !== -1 && command.passthrough) typed.passthrough = after;
  for (let i = 0; i < flags.length; i++) {
    const token = flags[i]!;
    if (help && isHelp(token)) return { ...typed, help: true };
    if (!flagShaped(token)) {
      // A negative number (`-1`) is neither flag nor positional: dropped, as citty's parse read it.
      if (!token.startsWith("-") || token === "-") typed.positionals.push(token);
      continue;
    }
    try {
      i = readFlag(args, names, flags, i, typed);
    } catch (error) {
      if (help && flags.slice(i + 1).some(isHelp)) return { ...typed, help: true };
      throw error;
    }
  }
  // After `--`, every argument is a positional, unless the command runs them.
  if (!command.passthrough) typed.positionals.push(...after);
  return typed;
}

/** Reads the flag at `flags[i]` into `typed`; returns the index of the last token it took. */
function readFlag(args: Args, names: Map<string, string>, flags: string[], i: number, typed: Typed): number {
  const { spelled, inline } = splitToken(flags[i]!, names);
  const long = spelled.startsWith("--") ? spelled.slice(2) : undefined;
  let name = long === undefined ? (spelled.length === 2 ? names.get(spelled.slice(1)) : undefined) : names.get(long);
  let negated = false;
  if (name === undefined && long?.startsWith("no-") && args[names.get(long.slice(3)) ?? ""]?.type === "boolean") {
    name = names.get(long.slice(3));
    negated = true;
  }
  if (name === undefined) unknown(spelled, new Set(names.values()));
  const flag = args[name] as Flag;
  typed.given.push(`--${name}`);
  if (flag.type === "boolean") {
    if (inline !== undefined && (negated || (inline !== "true" && inline !== "false"))) {
      throw usageError(`Option ${spelled} takes no value (got ${inline})`);
    }
    typed.switches.set(name, !negated && inline !== "false");
    return i;
  }
  let value = inline;
  let last = i;
  const next = flags[i + 1];
  if (
    value === undefined &&
    long !== undefined &&
    flag.type === "enum" &&
    flag.bare !== undefined &&
    !flag.options.includes(next as never)
  ) {
    // An enum typed alone takes its bare value; the next argument stays a positional.
    value = flag.bare;
  }
  if (value === undefined) {
    if (next === undefined || flagShaped(next)) {
      throw usageError(`Option ${spelled} needs a value: --${name} <${valueHint(name, flag)}>`, true);
    }
    value = next;
    last = i + 1;
  }
  typed.values.set(name, [...(typed.values.get(name) ?? []), value]);
  return last;
}
