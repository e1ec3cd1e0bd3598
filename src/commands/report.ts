import { readFileSync } from "node:fs";
import { defineCommand } from "citty";
import { usageError } from "../errors.ts";
import { failureLines, nothingCompared } from "../report/analyze.ts";
import { decideGate, exitStatus } from "../report/gate.ts";
import { GATE_ARGS, gateRule } from "./flags.ts";
import { parseResult, renderJson } from "../report/json.ts";
import { renderMarkdown } from "../report/markdown.ts";
import { renderTerminal } from "../report/terminal.ts";

/** Colour on a terminal only, and never when NO_COLOR is set (https://no-color.org). */
function wantsColor(): boolean {
  return !!process.stdout.isTTY && !process.env.NO_COLOR;
}

function readResultFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a folder" : (code ?? "unreadable");
    throw usageError(`cannot read ${file}: ${why}`);
  }
}

export const reportCommand = defineCommand({
  meta: { name: "report", description: "Re-render a saved result file, and with --fail-on or --fail-above judge it" },
  args: {
    file: { type: "positional", description: "Result JSON written by compare --json" },
    format: { type: "enum", options: ["term", "md", "json"], description: "Output format", default: "term" },
    ...GATE_ARGS,
  },
  run({ args }) {
    const file = args.file as string | undefined;
    if (!file) throw usageError("report needs a result file: xbench report FILE.json", true);
    const rule = gateRule(args);
    const saved = parseResult(readResultFile(file), file);
    // A gate given here judges the saved table; without one, a saved gate is decided again from
    // its rule, so the rows it names always match the table.
    const gateBy = rule ?? saved.gate?.rule;
    const result = gateBy ? { ...saved, gate: decideGate(saved.rows, gateBy) } : saved;
    const format = args.format as "term" | "md" | "json";
    const text =
      format === "md" ? renderMarkdown(result) : format === "json" ? renderJson(result) : renderTerminal(result, { color: wantsColor() });
    process.stdout.write(text);
    if (!rule) return 0;
    const notMeasured = failureLines(result.rows).length > 0 || nothingCompared(result.rows) !== undefined;
    return exitStatus({ gate: result.gate, notMeasured, bisecting: false });
  },
});
