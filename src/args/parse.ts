/**
 * argv to a command's flags, strictly, from its table (`spec.ts`): an unknown flag, a missing
 * value, a value its flag refuses or a surplus argument is one usage line, with a guess when
 * one is close. The CLI (`cli/main.ts`) and its fast path (`cli/fast.ts`) both parse here.
 */
import { resolve } from "pathe";
import { usageError } from "../errors.ts";
import { closest } from "../util/suggest.ts";
import { valueHint } from "./hint.ts";
import type { AnyCommand, CommandSpec, Flag, Flags, ParsedArgs } from "./spec.ts";

/** `--help` or `-h` before any `--`. */
export function wantsHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** `--runtime must be one of node, bun, deno (got nod; did you mean node?)`. */
function checkChoice(name: string, options: readonly string[], given: string): void {
  if (options.includes(given)) return;
  const guess = closest(given, options);
  throw usageError(`--${name} must be one of ${options.join(", ")} (got ${given}${guess ? `; did you mean ${guess}?` : ""})`);
}

/** A value as the flag's table says: an enum's option, a path made absolute, the flag's own parse. */
function convert(name: string, flag: Flag, text: string, cwd: string): unknown {
  if (flag.type === "enum") checkChoice(name, flag.options, text);
  if ((flag.type === "file" || flag.type === "dir") && text !== "" && text !== "-") text = resolve(cwd, text);
  return flag.type !== "boolean" && flag.type !== "enum" && flag.parse ? flag.parse(text, name) : text;
}

/** The table's flag of that name (never one of Object's own properties: `--constructor` is unknown). */
function flagOf(flags: Flags, name: string): Flag | undefined {
  return Object.hasOwn(flags, name) ? flags[name] : undefined;
}

/** The next argument can be a flag's value: not a flag itself (`-` and `-5` are values). */
function isValue(next: string | undefined): next is string {
  return next !== undefined && (!next.startsWith("-") || next === "-" || /^-\d/.test(next));
}

/** Parses `args` (what follows the command's name) by `spec`'s table; throws a usage error. */
export function parseArgs<F extends Flags>(spec: CommandSpec<F>, args: string[], cwd = process.cwd()): ParsedArgs<F> {
  const flags: Flags = spec.flags ?? {};
  const shorts = new Map<string, string>();
  for (const [name, flag] of Object.entries(flags)) if (flag.short) shorts.set(flag.short, name);
  const declared = spec.positionals ?? [];
  const takesRest = declared.some((p) => p.rest);
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const given: ParsedArgs<F>["given"] = [];
  let command: string[] = [];
  let dashed = false;

  const positional = (arg: string) => {
    if (!takesRest && positionals.length >= declared.length) {
      const hint = spec.command && !args.includes("--") ? ` (the command goes after --: xbench ${spec.name} -- ${arg})` : "";
      throw usageError(`Unexpected argument: ${arg}${hint}`, !hint);
    }
    positionals.push(arg);
  };

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (dashed) {
      positional(arg);
      continue;
    }
    if (arg === "--") {
      if (spec.command) {
        command = args.slice(i + 1);
        break;
      }
      dashed = true;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positional(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const typed = eq === -1 ? arg : arg.slice(0, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const long = typed.startsWith("--") ? typed.slice(2) : undefined;
    let name = long ?? shorts.get(typed.slice(1));
    let negated = false;
    if (long !== undefined && !Object.hasOwn(flags, long) && long.startsWith("no-") && flagOf(flags, long.slice(3))?.type === "boolean") {
      name = long.slice(3);
      negated = true;
    }
    const flag = name === undefined ? undefined : flagOf(flags, name);
    if (!flag) {
      const bare = typed.replace(/^--?/, "");
      const guess = bare.length > 1 ? closest(bare, Object.keys(flags)) : undefined;
      if (guess) throw usageError(`Unknown option: ${typed} (did you mean --${guess}?)`);
      throw usageError(`Unknown option: ${typed}`, true);
    }
    const key = name!;
    given.push(`--${key}` as ParsedArgs<F>["given"][number]);
    if (flag.type === "boolean") {
      if (inline !== undefined && inline !== "true" && inline !== "false") {
        throw usageError(`Option ${typed} takes no value (got ${inline})`);
      }
      values[key] = negated !== (inline !== "false");
      continue;
    }
    let text = inline;
    if (text === undefined && flag.type === "enum" && flag.bare !== undefined) {
      const next = args[i + 1];
      text = next !== undefined && flag.options.includes(next) ? args[++i]! : flag.bare;
    }
    if (text === undefined) {
      if (!isValue(args[i + 1])) throw usageError(`Option ${typed} needs a value: --${key} <${valueHint(key, flag)}>`, true);
      text = args[++i]!;
    }
    const value = convert(key, flag, text, cwd);
    if (flag.type !== "enum" && flag.repeatable) ((values[key] ??= []) as unknown[]).push(value);
    else values[key] = value;
  }

  for (const [name, flag] of Object.entries(flags)) {
    if (Object.hasOwn(values, name)) continue;
    if (flag.type === "boolean") values[name] = false;
    else if (flag.type !== "enum" && flag.repeatable)
      values[name] = flag.default === undefined ? [] : [convert(name, flag, flag.default, cwd)];
    else if (flag.default !== undefined) values[name] = convert(name, flag, flag.default, cwd);
    else if (flag.type !== "enum" && flag.required) throw usageError(`Missing required argument: --${name}`, true);
  }
  const missing = declared.find((p, i) => p.required !== false && positionals[i] === undefined);
  if (missing) throw usageError(`Missing required positional argument: ${missing.name.toUpperCase()}`, true);
  if (spec.command && command.length === 0) {
    throw usageError(`${spec.name} needs a command after --, e.g. xbench ${spec.name} -- ${spec.command.example}`, true);
  }
  return { flags: values as ParsedArgs<F>["flags"], positionals, command, given };
}

/**
 * The fast path's parse (cli/fast.ts): the same as `parseArgs`, or undefined for help and for
 * argv it refuses, which the full CLI then parses again to report with the command's help.
 */
export function fastParse<F extends Flags>(spec: CommandSpec<F>, args: string[], cwd = process.cwd()): ParsedArgs<F> | undefined {
  if (wantsHelp(args)) return undefined;
  try {
    return parseArgs(spec, args, cwd);
  } catch {
    return undefined;
  }
}

/** Parses `args` by `command`'s table and runs it; its exit status (0 when it returns none). */
export async function runCommand(command: AnyCommand, args: string[], cwd = process.cwd()): Promise<number> {
  if (!command.run) throw new Error(`${command.name} has subcommands and no run of its own`);
  const result = await command.run(parseArgs(command, args, cwd));
  return typeof result === "number" ? result : 0;
}
