/**
 * Where a command's report goes: the table on stdout (on stderr when `--json -` takes stdout),
 * `--json FILE`, `--markdown FILE`, `--html FILE`. The targets are checked before a run starts, so a typo in
 * a path fails at once rather than after minutes of measuring.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname, resolve } from "pathe";
import { usageError, XbenchError } from "../errors.ts";
import { ioReason, writeFileAtomic } from "../util/atomic-write.ts";

/** Output flags as given; `json: "-"` means stdout, an empty string means not given. */
export interface OutputTargets {
  json?: string;
  markdown?: string;
  html?: string;
}

/** The texts of one report, ready to write. */
export interface ReportTexts {
  table: string;
  json: string;
  markdown?: string;
  /** Rendered only when `--html` asks for it. */
  html?: string;
}

/** `--json -`: the JSON takes stdout and everything human goes to stderr. */
export function jsonTakesStdout(targets: OutputTargets): boolean {
  return targets.json === "-";
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

/** Writes the table, then the JSON, the markdown and the HTML where the targets say; `intact` as for writeReportFile. */
export function writeReport(texts: ReportTexts, targets: OutputTargets, intact?: string): void {
  const toStdout = jsonTakesStdout(targets);
  (toStdout ? process.stderr : process.stdout).write(texts.table);
  if (toStdout) process.stdout.write(texts.json.endsWith("\n") ? texts.json : `${texts.json}\n`);
  else if (targets.json) writeReportFile(targets.json, texts.json, intact);
  if (targets.markdown && texts.markdown !== undefined) writeReportFile(targets.markdown, texts.markdown, intact);
  if (targets.html && texts.html !== undefined) writeReportFile(targets.html, texts.html, intact);
}

/** A result as indented JSON with a final newline, as the suites write it. */
export function prettyJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
