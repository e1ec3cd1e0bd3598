/**
 * A parser's record (citty's, or mri's on the fast path: `{ _: positionals, name: value }`)
 * made into what a command's `run` reads, by its table: enum values checked with a guess,
 * paths made absolute, each flag's own `parse`, repeatable flags' every value, required flags
 * and positionals, surplus arguments, and the command line after `--`.
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

/** One value of a parser's record: the last of a repeated flag (mri keeps them all), as text. */
function lastText(value: unknown): string | undefined {
  const last = Array.isArray(value) ? value.at(-1) : value;
  return last === undefined || last === null || typeof last === "boolean" ? undefined : String(last);
}

/** The flags `run` reads, from `record` and the tokens `typed` read; throws a usage error. */
export function checkArgs<C extends AnyCommand>(
  command: C,
  record: Record<string, unknown>,
  typed: Typed,
  passthrough: string[] | undefined,
  cwd: string,
): ParsedArgs<NonNullable<C["args"]>> {
  const args: Args = command.args ?? {};
  const flags: Record<string, unknown> = {};
  for (const [name, arg] of Object.entries(args)) {
    if (arg.type === "positional") continue;
    if (arg.type === "boolean") {
      flags[name] = typed.switched.get(name) ?? record[name] === true;
      continue;
    }
    if (arg.type === "string" && arg.repeatable) {
      const texts = typed.repeated.get(name) ?? (arg.default === undefined ? [] : [arg.default]);
      flags[name] = texts.map((text) => convert(name, arg, text, cwd));
      continue;
    }
    const text = lastText(record[name]) ?? arg.default;
    if (text !== undefined) flags[name] = convert(name, arg, text, cwd);
    else if (arg.type === "string" && arg.required) throw usageError(`Missing required argument: --${name}`, true);
  }

  const positionals = ((record._ as unknown[] | undefined) ?? []).map(String);
  const declared = Object.entries(args).flatMap(([name, arg]) => (arg.type === "positional" ? [{ name, ...arg }] : []));
  const takesRest = declared.some((arg) => arg.rest);
  if (!takesRest && positionals.length > declared.length) {
    const surplus = positionals[declared.length]!;
    const name = command.meta.name;
    const hint = command.passthrough && !passthrough ? ` (the command goes after --: xbench ${name} -- ${surplus})` : "";
    throw usageError(`Unexpected argument: ${surplus}${hint}`, !hint);
  }
  const missing = declared.find((arg, i) => arg.required !== false && positionals[i] === undefined);
  if (missing) throw usageError(`Missing required positional argument: ${missing.name.toUpperCase()}`, true);
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
