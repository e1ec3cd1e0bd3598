/**
 * What citty's lenient parse lets through, read off the tokens a user typed: an unknown name
 * (with a guess), a flag without its value, a value on a switch; and what it keeps no record
 * of: which flags were typed, in order, and every value of a flag typed more than once. The
 * values themselves are citty's (or, on the fast path, mri's); this module only walks the
 * flag-shaped tokens of argv by the command's table.
 */
import { usageError } from "../errors.ts";
import { closest } from "../util/suggest.ts";
import { valueHint } from "./hint.ts";
import type { AnyCommand, Args, Flag } from "./types.ts";

/** `--help` or `-h` before any `--`. */
export function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** The flags and positionals, and the command line after the first `--` (undefined when none). */
export function splitPassthrough(argv: string[]): { args: string[]; command: string[] | undefined } {
  const end = argv.indexOf("--");
  return end === -1 ? { args: argv, command: undefined } : { args: argv.slice(0, end), command: argv.slice(end + 1) };
}

/** A token that names a flag: not a positional, not `-` (stdout), not a negative number. */
function flagShaped(token: string): boolean {
  return token.startsWith("-") && token !== "-" && !/^-\d/.test(token);
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

/**
 * argv as both parsers read it alike: `-o=x` as `--output=x` (citty would keep the `=`), and an
 * enum with a `bare` value typed alone as `--profile=verdict` (citty would take the next
 * argument as its value).
 */
export function normalizeArgv(args: Args, argv: string[]): string[] {
  const names = spellings(args);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const short = /^-([^-])=(.*)$/s.exec(token);
    const aliased = short && names.get(short[1]!);
    if (aliased) {
      out.push(`--${aliased}=${short![2]}`);
      continue;
    }
    const name = token.startsWith("--") && !token.includes("=") ? names.get(token.slice(2)) : undefined;
    const flag = name === undefined ? undefined : args[name];
    if (flag?.type === "enum" && flag.bare !== undefined && !flag.options.includes(argv[i + 1] as never)) {
      out.push(`--${name}=${flag.bare}`);
      continue;
    }
    out.push(token);
  }
  return out;
}

/** The flags typed, the values of each repeatable one in order, and each switch typed more than once. */
export interface Typed {
  given: string[];
  repeated: Map<string, string[]>;
  /** The last of a switch typed both ways (`--all --no-all`): citty applies every `--no-` after the rest. */
  switched: Map<string, boolean>;
}

/** `Unknown option: --rouds (did you mean --rounds?)`. */
function unknown(typed: string, names: Iterable<string>): never {
  const bare = typed.replace(/^--?/, "");
  const guess = bare.length > 1 ? closest(bare, names) : undefined;
  if (guess) throw usageError(`Unknown option: ${typed} (did you mean --${guess}?)`);
  throw usageError(`Unknown option: ${typed}`, true);
}

/**
 * Checks the flag-shaped tokens of `argv` (normalized, without a passthrough command) against
 * `args`; throws the usage error of the first that is wrong.
 */
export function readTyped(args: Args, argv: string[]): Typed {
  const names = spellings(args);
  const flagNames = [...new Set(names.values())];
  const given: string[] = [];
  const repeated = new Map<string, string[]>();
  const switched = new Map<string, boolean>();
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") break;
    if (!flagShaped(token)) continue;
    const eq = token.indexOf("=");
    const spelled = eq === -1 ? token : token.slice(0, eq);
    const inline = eq === -1 ? undefined : token.slice(eq + 1);
    const long = spelled.startsWith("--") ? spelled.slice(2) : undefined;
    let name = long === undefined ? (spelled.length === 2 ? names.get(spelled.slice(1)) : undefined) : names.get(long);
    let negated = false;
    if (name === undefined && long?.startsWith("no-") && args[names.get(long.slice(3)) ?? ""]?.type === "boolean") {
      name = names.get(long.slice(3));
      negated = true;
    }
    if (name === undefined) unknown(spelled, flagNames);
    const flag = args[name] as Flag;
    given.push(`--${name}`);
    if (flag.type === "boolean") {
      if (inline !== undefined && (negated || (inline !== "true" && inline !== "false"))) {
        throw usageError(`Option ${spelled} takes no value (got ${inline})`);
      }
      if (given.indexOf(`--${name}`) !== given.length - 1) switched.set(name, !negated && inline !== "false");
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next === "--" || flagShaped(next)) {
        throw usageError(`Option ${spelled} needs a value: --${name} <${valueHint(name, flag)}>`, true);
      }
      value = next;
      i++;
    }
    if (flag.type === "string" && flag.repeatable) repeated.set(name, [...(repeated.get(name) ?? []), value]);
  }
  return { given, repeated, switched };
}

/** What both parsers are given, and what the checks read: argv normalized, its typed flags, the command after `--`. */
export interface Prepared {
  argv: string[];
  typed: Typed;
  passthrough: string[] | undefined;
}

/** Splits off a passthrough command, normalizes argv and checks its tokens; throws a usage error. */
export function prepareArgv(command: AnyCommand, argv: string[]): Prepared {
  const args: Args = command.args ?? {};
  const split = command.passthrough ? splitPassthrough(argv) : { args: argv, command: undefined };
  const normal = normalizeArgv(args, split.args);
  return { argv: normal, typed: readTyped(args, normal), passthrough: split.command };
}
