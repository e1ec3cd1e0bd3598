/**
 * --help text for a command, in the shape users of cargo, gh and hyperfine read: description,
 * USAGE, ARGUMENTS, OPTIONS (`--name <VALUE>` and a `(default: …)` in one spelling), COMMANDS,
 * EXAMPLES. Columns are measured on plain text and no line ends in spaces.
 */
import type { ArgsDef, CommandDef } from "citty";
import { EXAMPLES, EXIT_STATUSES } from "./examples.ts";

type AnyCommand = CommandDef<ArgsDef>;

/** A citty field that may be a value, a promise, or a function returning either. */
export async function value<T>(input: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T | undefined> {
  return typeof input === "function" ? await (input as () => T | Promise<T>)() : await input;
}

interface ArgLike {
  type?: string;
  description?: string;
  alias?: string | string[];
  default?: unknown;
  required?: boolean;
  valueHint?: string;
  options?: string[];
}

/** `(default: 10)` unless the description already says its default. */
function withDefault(def: ArgLike): string {
  const text = def.description ?? "";
  if (def.default === undefined || def.default === false || /\(default: /.test(text)) return text;
  return `${text} (default: ${String(def.default)})`;
}

function optionName(name: string, def: ArgLike): string {
  const aliases = [def.alias ?? []].flat();
  const short = aliases.find((a) => a.length === 1);
  const flag = `${short ? `-${short}, ` : "    "}--${name}`;
  if (def.type === "boolean") return flag;
  const hint =
    def.type === "enum" && def.options
      ? def.options.join("|")
      : (def.valueHint ?? (/\bFILE\b/.test(def.description ?? "") ? "FILE" : name.toUpperCase().replace(/-/g, "_")));
  return `${flag} <${hint}>`;
}

/** Two columns, the first padded to its widest cell. */
function columns(rows: Array<[string, string]>): string[] {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd());
}

/** Subcommands a user is shown (and offered in "did you mean"): name and description. */
export async function visibleSubCommands(command: AnyCommand): Promise<Array<[string, string]>> {
  const shown: Array<[string, string]> = [];
  for (const [name, sub] of Object.entries((await value(command.subCommands)) ?? {})) {
    const meta = (await value(((await value(sub)) as AnyCommand).meta)) ?? {};
    if (!meta.hidden) shown.push([name, meta.description ?? ""]);
  }
  return shown;
}

export async function renderHelp(command: AnyCommand, path: string[], version?: string): Promise<string> {
  const meta = (await value(command.meta)) ?? {};
  const args = ((await value(command.args)) ?? {}) as Record<string, ArgLike>;
  const name = ["xbench", ...path].join(" ");
  const positionals = Object.entries(args).filter(([, def]) => def.type === "positional");
  const options = Object.entries(args).filter(([, def]) => def.type !== "positional");

  const out: string[] = [];
  out.push(`${meta.description ?? ""}${version ? ` (xbench ${version})` : ""}`, "");

  const visibleSubs = await visibleSubCommands(command);
  const usage = [name];
  if (visibleSubs.length > 0) usage.push(command.run ? "[COMMAND]" : "<COMMAND>");
  usage.push("[OPTIONS]");
  for (const [argName, def] of positionals) {
    const label = argName.toUpperCase();
    usage.push(label === "COMMAND" ? "-- CMD [ARGS...]" : def.required === false ? `[${label}]` : `<${label}>`);
  }
  out.push(`USAGE ${usage.join(" ")}`, "");

  const shownPositionals = positionals.filter(([argName]) => argName !== "command");
  if (shownPositionals.length > 0) {
    out.push("ARGUMENTS", "", ...columns(shownPositionals.map(([argName, def]) => [argName.toUpperCase(), def.description ?? ""])), "");
  }
  const optionRows: Array<[string, string]> = options.map(([argName, def]) => [optionName(argName, def), withDefault(def)]);
  optionRows.push(["-h, --help", "Print help"]);
  if (path.length === 0) optionRows.push(["-V, --version", "Print version"]);
  out.push("OPTIONS", "", ...columns(optionRows), "");
  if (visibleSubs.length > 0) {
    out.push("COMMANDS", "", ...columns(visibleSubs), "");
    out.push(`Use ${name} <command> --help for more about a command.`, "");
  }
  const statuses = EXIT_STATUSES[path.join(" ")];
  if (statuses) out.push("EXIT STATUS", "", ...statuses.map((s) => `  ${s}`), "");
  const examples = EXAMPLES[path.join(" ")];
  if (examples) out.push("EXAMPLES", "", ...examples.map((e) => `  ${e}`), "");
  return out
    .map((line) => line.trimEnd())
    .join("\n")
    .trimEnd();
}

export { closest, editDistance } from "../util/suggest.ts";
