import { parseArgs, type ArgsDef, type CommandDef } from "citty";
import { resolve } from "pathe";
import { verboseVersion } from "../version.ts";
import { EXIT_USAGE, XbenchError, printFailure, usageError } from "./errors.ts";
import { versionRequest } from "./fast.ts";
import { forStream } from "../output/errors.ts";
import { closest, renderHelp, value, visibleSubCommands } from "./usage.ts";

type AnyCommand = CommandDef<ArgsDef>;

/** The command a raw argv resolves to, with its parent and its own arguments. */
export interface ResolvedCommand {
  command: AnyCommand;
  path: string[];
  args: string[];
}

/** Walks subcommand names at the front of argv down to the command that runs. */
export async function resolveCommand(root: AnyCommand, argv: string[]): Promise<ResolvedCommand> {
  let command = root;
  const path: string[] = [];
  let args = argv;
  for (;;) {
    const subs = await value(command.subCommands);
    const first = args[0];
    if (!subs || first === undefined || first.startsWith("-")) break;
    const sub = subs[first];
    if (!sub) {
      const guess = closest(
        first,
        (await visibleSubCommands(command)).map(([name]) => name),
      );
      const hint = guess ? ` (did you mean \`${[...path, guess].join(" ")}\`?)` : "";
      throw new XbenchError(`Unknown command: ${first}${hint}`, { kind: "usage", usage: !guess, cause: { command, path } });
    }
    command = (await value(sub)) as AnyCommand;
    path.push(first);
    args = args.slice(1);
  }
  return { command, path, args };
}

/** Rejects flags the command does not declare and surplus positionals; citty itself lets both through. */
export async function checkArgs(command: AnyCommand, args: string[]): Promise<void> {
  const defs = (await value(command.args)) ?? {};
  const known = new Map<string, string>();
  // citty rejects a bad enum value with the whole help page; one line with a guess helps more.
  const choices = new Map<string, { flag: string; options: string[] }>();
  let positionals = 0;
  let restPositional = false;
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") {
      positionals++;
      if ((def as { rest?: boolean }).rest) restPositional = true;
      continue;
    }
    const options = def.type === "enum" ? (def as { options?: string[] }).options : undefined;
    for (const key of [name, ...[(def as { alias?: string | string[] }).alias ?? []].flat()]) {
      known.set(key, def.type ?? "string");
      if (options) choices.set(key, { flag: `--${name}`, options });
    }
  }
  let seenPositionals = 0;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return;
    if (arg.startsWith("-") && arg !== "-") {
      const bare = arg.replace(/^--?/, "").split("=")[0]!;
      const name = known.has(bare) ? bare : bare.replace(/^no-/, "");
      const type = known.get(name);
      if (!type) {
        const guess =
          bare.length > 1
            ? closest(
                bare,
                [...known.keys()].filter((k) => k.length > 1),
              )
            : undefined;
        if (guess) throw usageError(`Unknown option: ${arg.split("=")[0]} (did you mean --${guess}?)`);
        throw usageError(`Unknown option: ${arg.split("=")[0]}`, true);
      }
      if (type !== "boolean" && !arg.includes("=")) {
        const next = args[i + 1];
        if (next === undefined || (next.startsWith("-") && next !== "-" && !/^-\d/.test(next))) {
          throw usageError(`Option ${arg} needs a value`, true);
        }
        i++;
      }
      const choice = choices.get(name);
      if (choice) checkChoice(choice, arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[i]!);
      continue;
    }
    seenPositionals++;
    if (!restPositional && seenPositionals > positionals) throw usageError(`Unexpected argument: ${arg}`, true);
  }
}

/** Options that name a file or folder: `<FILE>` or `<DIR>` in the help (`usage.ts` says which). */
function isPathArg(def: { type?: string; valueHint?: string; description?: string }): boolean {
  if (def.type !== "string") return false;
  return def.valueHint ? /^(FILE|DIR)$/.test(def.valueHint) : /\bFILE\b/.test(def.description ?? "");
}

/**
 * Makes file and folder options absolute once, as parsed: a path means where the user typed
 * it, whatever the command's later working folder, and Bun's Windows build fails to write a
 * relative one under Wine. `-` (stdout) stays as it is.
 */
export function resolvePathArgs(defs: ArgsDef, parsed: Record<string, unknown>, cwd: string): void {
  for (const [name, def] of Object.entries(defs)) {
    if (!isPathArg(def as { type?: string })) continue;
    for (const key of [name, ...[(def as { alias?: string | string[] }).alias ?? []].flat()]) {
      const given = parsed[key];
      if (typeof given === "string" && given !== "" && given !== "-") parsed[key] = resolve(cwd, given);
    }
  }
}

/** `--runtime must be one of node, bun, deno (got nod; did you mean node?)`. */
function checkChoice({ flag, options }: { flag: string; options: string[] }, given: string): void {
  if (options.includes(given)) return;
  const guess = closest(given, options);
  throw usageError(`${flag} must be one of ${options.join(", ")} (got ${given}${guess ? `; did you mean ${guess}?` : ""})`);
}

function wantsHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

async function usageText(resolved: { command: AnyCommand; path?: string[] }, tty: boolean, version?: string): Promise<string> {
  const path = resolved.path ?? [];
  const text = await renderHelp(resolved.command, path, path.length === 0 ? version : undefined);
  return forStream(text, tty);
}

/** Runs the CLI and returns the exit code; never throws. */
export async function runCli(root: AnyCommand, argv: string[], version: string): Promise<number> {
  let resolved: ResolvedCommand | undefined;
  try {
    const versionAsked = versionRequest(argv);
    if (versionAsked) {
      process.stdout.write(`${versionAsked === "verbose" ? verboseVersion() : version}\n`);
      return 0;
    }
    resolved = await resolveCommand(root, argv);
    if (wantsHelp(resolved.args)) {
      process.stdout.write(`${await usageText(resolved, !!process.stdout.isTTY, version)}\n`);
      return 0;
    }
    const { command, args } = resolved;
    if (!command.run) {
      process.stderr.write(`${await usageText(resolved, !!process.stderr.isTTY, version)}\n`);
      return EXIT_USAGE;
    }
    await checkArgs(command, args);
    const defs = (await value(command.args)) ?? {};
    let parsed;
    try {
      parsed = parseArgs(args, defs);
    } catch (error) {
      throw usageError((error as Error).message, true);
    }
    resolvePathArgs(defs, parsed, process.cwd());
    const result = await command.run({ rawArgs: args, args: parsed, cmd: command, data: undefined });
    return typeof result === "number" ? result : 0;
  } catch (error) {
    return reportError(error, resolved);
  }
}

async function reportError(error: unknown, resolved: ResolvedCommand | undefined): Promise<number> {
  const status = printFailure(error);
  if (error instanceof XbenchError && error.usage) {
    const where = resolved ?? (error.cause as ResolvedCommand | undefined);
    if (where?.command) process.stderr.write(`\n${await usageText(where, !!process.stderr.isTTY)}\n`);
  }
  return status;
}
