/**
 * Where a command's report goes: the table on stdout (on stderr when `--json -` takes stdout),
 * and each file flag's text to its file (`--json FILE`, `--markdown FILE`, `--html FILE`: the
 * formats of report/outputs.ts, or a suite's own). The targets are checked before a run starts,
 * so a typo in a path fails at once rather than after minutes of measuring.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname, resolve } from "pathe";
import { usageError, XbenchError } from "../errors.ts";
import { ioReason, writeFileAtomic } from "../util/atomic-write.ts";

/** File flags as given, by flag name; `json: "-"` means stdout, an empty string means not given. */
export type OutputTargets = { json?: string } & Record<string, string | undefined>;

/** The texts of one report, ready to write: the table, the JSON, and a text per other file flag given. */
export type ReportTexts = { table: string; json: string } & Record<string, string | undefined>;

/** `--json -`: the JSON takes stdout and everything human goes to stderr. */
export function jsonTakesStdout(targets: OutputTargets): boolean {
  return targets.json === "-";
}

/** The stream the table goes to, whose terminal or not decides its colour. */
export function tableStream(targets: OutputTargets): NodeJS.WriteStream {
  return jsonTakesStdout(targets) ? process.stderr : process.stdout;
}

/** Fails with a usage error when a target file could not be written: no such folder, a folder in its place, no permission. */
export function checkOutputTargets(targets: OutputTargets): void {
  for (const [flag, path] of Object.entries(targets) as Array<[string, string | undefined]>) {
    if (!path || path === "-") continue;
    const file = resolve(path);
    const folder = dirname(file);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) throw usageError(`--${flag} ${path}: no folder ${folder}`);
    if (existsSync(file) && statSync(file).isDirectory()) throw usageError(`--${flag} ${path} is a folder`);
    try {
      accessSync(existsSync(file) ? file : folder, constants.W_OK);
    } catch {
      throw usageError(`--${flag} ${path}: not writable`);
    }
  }
}

/**
 * Writes one report file whole or not at all. A failure (a full disk) names the file, says the
 * previous one is unchanged, and where the result is kept whole (`intact`: the run folder's copy).
 */
export function writeReportFile(path: string, text: string, intact?: string): void {
  const existed = existsSync(path);
  try {
    writeFileAtomic(path, text);
  } catch (error) {
    const why = ioReason(error);
    if (!why) throw error;
    const left = existed ? "; the previous file is unchanged" : "";
    const kept = intact ? `; the result is saved in ${intact}` : "";
    throw new XbenchError(`cannot write ${path}: ${why}${left}${kept}`);
  }
}

/** Writes the table, then the JSON, then every other file where the targets say; `intact` as for writeReportFile. */
export function writeReport(texts: ReportTexts, targets: OutputTargets, intact?: string): void {
  const toStdout = jsonTakesStdout(targets);
  tableStream(targets).write(texts.table);
  if (toStdout) process.stdout.write(texts.json.endsWith("\n") ? texts.json : `${texts.json}\n`);
  else if (targets.json) writeReportFile(targets.json, texts.json, intact);
  for (const [flag, path] of Object.entries(targets)) {
    const text = texts[flag];
    if (flag !== "json" && path && text !== undefined) writeReportFile(path, text, intact);
  }
}

/** A result as indented JSON with a final newline, as the suites write it. */
export function prettyJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
