/**
 * --help text from a command's table (`spec.ts`), in the shape users of cargo, gh and hyperfine
 * read: description, USAGE, ARGUMENTS, OPTIONS (`--name <VALUE>` and a `(default: …)` in one
 * spelling), COMMANDS, EXIT STATUS, EXAMPLES. Columns are measured on plain text and no line
 * ends in spaces.
 */
import { valueHint } from "./hint.ts";
import type { AnyCommand, Flag } from "./spec.ts";

/** `(default: 10)` unless the description already says its default. */
function withDefault(flag: Flag): string {
  const text = flag.description;
  if (flag.type === "boolean" || flag.default === undefined || /\(default: /.test(text)) return text;
  return `${text} (default: ${flag.default})`;
}

function optionName(name: string, flag: Flag): string {
  const spelled = `${flag.short ? `-${flag.short}, ` : "    "}--${name}`;
  const hint = valueHint(name, flag);
  return hint === undefined ? spelled : `${spelled} <${hint}>`;
}

/** Two columns, the first padded to its widest cell. */
function columns(rows: Array<[string, string]>): string[] {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd());
}

/** Subcommands a user is shown (and offered in "did you mean"): name and description. */
export async function visibleSubcommands(command: AnyCommand): Promise<Array<[string, string]>> {
  const shown: Array<[string, string]> = [];
  for (const [name, load] of Object.entries(command.subcommands ?? {})) {
    const sub = await load();
    if (!sub.hidden) shown.push([name, sub.description]);
  }
  return shown;
}

/** `USAGE xbench compare [OPTIONS] [FILTER]`: the line help and usage errors both print. */
export function usageLine(command: AnyCommand, path: string[], hasSubcommands: boolean): string {
  const usage = [["xbench", ...path].join(" ")];
  if (hasSubcommands) usage.push(command.run ? "[COMMAND]" : "<COMMAND>");
  usage.push("[OPTIONS]");
  for (const p of command.positionals ?? []) usage.push(p.required === false ? `[${p.name.toUpperCase()}]` : `<${p.name.toUpperCase()}>`);
  if (command.command) usage.push("-- CMD [ARGS...]");
  return `USAGE ${usage.join(" ")}`;
}

/** The help of `command`, reached by `path` (`["bench", "config"]`). */
export async function renderHelp(command: AnyCommand, path: string[]): Promise<string> {
  const name = ["xbench", ...path].join(" ");
  const positionals = command.positionals ?? [];
  const out: string[] = [];
  out.push(`${command.description}${command.version ? ` (xbench ${command.version})` : ""}`, "");

  const visibleSubs = await visibleSubcommands(command);
  out.push(usageLine(command, path, visibleSubs.length > 0), "");

  if (positionals.length > 0) {
    out.push("ARGUMENTS", "", ...columns(positionals.map((p) => [p.name.toUpperCase(), p.description])), "");
  }
  const optionRows = Object.entries(command.flags ?? {}).map(([flagName, flag]): [string, string] => [
    optionName(flagName, flag as Flag),
    withDefault(flag as Flag),
  ]);
  optionRows.push(["-h, --help", "Print help"]);
  if (path.length === 0) optionRows.push(["-V, --version", "Print version"]);
  out.push("OPTIONS", "", ...columns(optionRows), "");
  if (visibleSubs.length > 0) {
    out.push("COMMANDS", "", ...columns(visibleSubs), "");
    out.push(`Use ${name} <command> --help for more about a command.`, "");
  }
  if (command.exitStatuses) out.push("EXIT STATUS", "", ...command.exitStatuses.map((s) => `  ${s}`), "");
  if (command.examples) out.push("EXAMPLES", "", ...command.examples.map((e) => `  ${e}`), "");
  return out
    .map((line) => line.trimEnd())
    .join("\n")
    .trimEnd();
}
