/**
 * What a user typed (`typed.ts`) made into what a command's `run` reads, by its table: the
 * required flags and positionals, enum values checked with a guess, paths made absolute, each
 * flag's own `parse`, repeatable flags' every value, surplus arguments, and the command line
 * after `--`.
 */
import { resolve } from "pathe";
import { usageError } from "../errors.ts";
import { closest } from "../util/suggest.ts";
import type { Typed } from "./typed.ts";
import type { AnyCommand, Args, Flag, ParsedArgs } from "./types.ts";

/** `--runtime must be one of node, bun, deno (got nod; did you mean node?)`. */
function checkChoice(name: string, options: readonly string[], given: string): void {
  if (options.includes(given)) return;
  const guess = closest(given, options);
  throw usageError(`--${name} must be one of ${options.join(", ")} (got ${given}${guess ? `; did you mean ${guess}?` : ""})`);
}

/** A value as the flag's table says: an enum's option, a path made absolute, the flag's own parse. */
function convert(name: string, flag: Flag, text: string, cwd: string): unknown {
  if (flag.type === "enum") {
    checkChoice(name, flag.options, text);
    return text;
  }
  if (flag.type !== "string") return text;
  const value = flag.path && text !== "" && text !== "-" ? resolve(cwd, text) : text;
  return flag.parse ? flag.parse(value, name) : value;
}

/**
 * What is missing, in table order (a positional or a required flag), before any value is
 * checked: the order citty's own check said it in.
 */
function checkPresent(args: Args, typed: Typed): void {
  let position = 0;
  for (const [name, arg] of Object.entries(args)) {
    if (arg.type === "positional") {
      if (typed.positionals[position++] === undefined && arg.required !== false) {
        throw usageError(`Missing required positional argument: ${name.toUpperCase()}`, true);
      }
    } else if (arg.type === "string" && arg.required && !typed.values.has(name) && arg.default === undefined) {
      throw usageError(`Missing required argument: --${name}`, true);
    }
  }
}

/** The flags `run` reads, from what `typed` read; throws a usage error. */
export function checkArgs<C extends AnyCommand>(command: C, typed: Typed, cwd = process.cwd()): ParsedArgs<NonNullable<C["args"]>> {
  const args: Args = command.args ?? {};
  checkPresent(args, typed);
  const flags: Record<string, unknown> = {};
  for (const [name, arg] of Object.entries(args)) {
    if (arg.type === "positional") continue;
    if (arg.type === "boolean") {
      flags[name] = typed.switches.get(name) ?? false;
      continue;
    }
    const texts = typed.values.get(name) ?? (arg.default === undefined ? [] : [arg.default]);
    if (arg.type === "string" && arg.repeatable) flags[name] = texts.map((text) => convert(name, arg, text, cwd));
    else if (texts.length > 0) flags[name] = convert(name, arg, texts.at(-1)!, cwd);
  }

  const { positionals, passthrough } = typed;
  const declared = Object.values(args).filter((arg) => arg.type === "positional");
  const takesRest = declared.some((arg) => arg.rest);
  if (!takesRest && positionals.length > declared.length) {
    const surplus = positionals[declared.length]!;
    const name = command.meta.name;
    const hint = command.passthrough && !passthrough ? ` (the command goes after --: xbench ${name} -- ${surplus})` : "";
    throw usageError(`Unexpected argument: ${surplus}${hint}`, !hint);
  }
  if (command.passthrough && !passthrough?.length) {
    const name = command.meta.name;
    throw usageError(`${name} needs a command after --, e.g. xbench ${name} -- ${command.passthrough.example}`, true);
  }
  return {
    flags: flags as ParsedArgs<NonNullable<C["args"]>>["flags"],
    positionals,
    command: passthrough ?? [],
    given: typed.given as ParsedArgs<NonNullable<C["args"]>>["given"],
  };
}
