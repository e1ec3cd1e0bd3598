/**
 * The output formats of a compare, shared by `compare` and `report`: the names `report --format`
 * takes, the flag that writes each to a file (`--json FILE`, `--markdown FILE`, `--html FILE`),
 * and its renderer. Every renderer takes the one analysis of the result (analysis.ts). A new
 * format is an entry here and its renderer; both commands' flags and help follow.
 */
import type { Analysis } from "./analysis.ts";
import { renderHtml } from "./html.ts";
import { renderJson } from "./json.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderTerminal } from "./terminal.ts";

/** What the terminal table reads; the other formats ignore it. */
export interface RenderOptions {
  color: boolean;
  /** The run's first line already said the head is dirty and why. */
  dirtyStated?: boolean;
  /** A note per row that missed the sampling target. */
  verbose?: boolean;
}

export interface OutputFormat {
  /** The names `report --format` takes for it. */
  names: readonly string[];
  /** The help of its file flag, named as the format's key (`--markdown FILE`); none for the terminal table. */
  file?: string;
  render: (analysis: Analysis, options: RenderOptions) => string;
}

export const FORMATS = {
  term: { names: ["term"], render: renderTerminal },
  json: {
    names: ["json"],
    file: "Write the result (JSON schema with raw rounds) to FILE, - for stdout",
    render: (analysis) => renderJson(analysis.result),
  },
  // `md` as `report --format` has always taken it; `markdown` as the file flag spells it.
  markdown: { names: ["md", "markdown"], file: "Write the markdown report to FILE", render: renderMarkdown },
  html: { names: ["html"], file: "Write a self-contained HTML report (plots, table) to FILE", render: renderHtml },
} as const satisfies Record<string, OutputFormat>;

export type FormatKey = keyof typeof FORMATS;
export type FormatName = (typeof FORMATS)[FormatKey]["names"][number];
/** The formats with a file flag. */
export type FileFormat = { [K in FormatKey]: (typeof FORMATS)[K] extends { file: string } ? K : never }[FormatKey];

const KEYS = Object.keys(FORMATS) as FormatKey[];
const FILE_KEYS = KEYS.filter((key): key is FileFormat => "file" in FORMATS[key]);

/** Every name `--format` takes, in the registry's order. */
export const FORMAT_NAMES = KEYS.flatMap((key) => FORMATS[key].names) as FormatName[];

/** The format a `--format` name stands for (the flag's options are FORMAT_NAMES, so it is one). */
export function formatNamed(name: FormatName): FormatKey {
  return KEYS.find((key) => (FORMATS[key].names as readonly string[]).includes(name))!;
}

/** The file flags of both commands, as flag-table entries: `--json FILE`, `--markdown FILE`, `--html FILE`. */
export const FILE_FLAGS = Object.fromEntries(
  FILE_KEYS.map((key) => [key, { type: "string", path: "file", description: (FORMATS[key] as OutputFormat).file! }]),
) as { [K in FileFormat]: { type: "string"; path: "file"; description: string } };

/** The file flags as given, an empty one as not given. */
export function fileTargets(flags: { [K in FileFormat]?: string }): { [K in FileFormat]?: string } {
  return Object.fromEntries(FILE_KEYS.map((key) => [key, flags[key] || undefined]));
}

/**
 * The formats of one analysis, each rendered at most once however often it is asked for (compare
 * writes the markdown to a file, the job summary and the comment).
 */
export function renderer(analysis: Analysis, options: RenderOptions): (format: FormatKey) => string {
  const done = new Map<FormatKey, string>();
  return (format) => {
    if (!done.has(format)) done.set(format, FORMATS[format].render(analysis, options));
    return done.get(format)!;
  };
}

/** The text of every file target given, by its flag. */
export function fileTexts(targets: { [K in FileFormat]?: string }, render: (format: FormatKey) => string): { [K in FileFormat]?: string } {
  return Object.fromEntries(FILE_KEYS.filter((key) => targets[key]).map((key) => [key, render(key)]));
}
