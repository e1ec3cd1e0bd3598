/**
 * --help through citty's `renderUsage`, given the command's own table with what help adds to
 * it: `-h, --help` (and the root's `-V, --version`), each value flag's `<VALUE>` (`hint.ts`),
 * and the whole command path as its name. Around citty's text: no line ends in spaces, one
 * spelling of defaults (`(default: 600)`), `-- CMD [ARGS...]` in the usage of a command that
 * takes one, and EXIT STATUS and EXAMPLES at the end.
 */
import { type ArgsDef, type CommandDef, renderUsage } from "citty";
import { valueHint } from "./hint.ts";
import type { AnyCommand, Args } from "./types.ts";

const HELP_FLAGS: ArgsDef = { help: { type: "boolean", alias: "h", description: "Print help" } };
const ROOT_FLAGS: ArgsDef = { ...HELP_FLAGS, version: { type: "boolean", alias: "V", description: "Print version" } };

/** The table as help shows it: a value hint on every value flag, a default said once. */
function helpTable(args: Args, root: boolean): ArgsDef {
  const table: ArgsDef = {};
  for (const [name, arg] of Object.entries(args)) {
    if (arg.type === "positional" || arg.type === "boolean") {
      table[name] = arg as ArgsDef[string];
      continue;
    }
    const { default: given, ...rest } = arg;
    const saysDefault = /\(default: /.test(arg.description);
    table[name] = { ...rest, valueHint: valueHint(name, arg), ...(saysDefault ? {} : { default: given }) } as ArgsDef[string];
  }
  return { ...table, ...(root ? ROOT_FLAGS : HELP_FLAGS) };
}

/** Subcommands a user is shown (and offered in "did you mean"): name and description. */
export async function visibleSubcommands(command: AnyCommand): Promise<Array<[string, string]>> {
  const shown: Array<[string, string]> = [];
  for (const [name, load] of Object.entries(command.subCommands ?? {})) {
    const sub = await load();
    if (!sub.meta.hidden) shown.push([name, sub.meta.description]);
  }
  return shown;
}

/** citty's text for `command`, reached by `path` (`["bench", "config"]`), lines trimmed. */
async function cittyUsage(command: AnyCommand, path: string[]): Promise<string[]> {
  const view = {
    ...command,
    meta: { ...command.meta, name: path.at(-1) ?? "xbench" },
    args: helpTable(command.args ?? {}, path.length === 0),
  };
  const parent = path.length > 0 ? { meta: { name: ["xbench", ...path.slice(0, -1)].join(" ") } } : undefined;
  const text = await renderUsage(view as CommandDef, parent as CommandDef | undefined);
  return text.split("\n").map((line) => {
    // Spaces before colour codes at the end count as trailing too.
    const trimmed = line.replace(/\s+((?:\u001B\[[0-9;]*m)*)$/, "$1").replace(/\(Default: /g, "(default: ");
    return command.passthrough && /^\S*USAGE\b/.test(trimmed) ? `${trimmed} -- CMD [ARGS...]` : trimmed;
  });
}

/** `USAGE xbench compare [OPTIONS] [FILTER]`: the line help and usage errors both print. */
export async function usageLine(command: AnyCommand, path: string[]): Promise<string> {
  return (await cittyUsage(command, path)).find((line) => /^\S*USAGE\b/.test(line)) ?? "";
}

/** The help of `command`, reached by `path` (`["bench", "config"]`). */
export async function renderHelp(command: AnyCommand, path: string[]): Promise<string> {
  const out = await cittyUsage(command, path);
  while (out.at(-1) === "") out.pop();
  if (command.exitStatuses) out.push("", "EXIT STATUS", "", ...command.exitStatuses.map((s) => `  ${s}`));
  if (command.examples) out.push("", "EXAMPLES", "", ...command.examples.map((e) => `  ${e}`));
  return out.join("\n").trimEnd();
}
