import { readFileSync } from "node:fs";
import { defineCommand } from "citty";
import { usageError } from "../errors.ts";
import { withMinEffectResult } from "../report/analyze.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import { parsePercent } from "./flags.ts";
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
  meta: { name: "report", description: "Re-render a saved result file" },
  args: {
    file: { type: "positional", description: "Result JSON written by compare --json" },
    format: { type: "enum", options: ["term", "md", "json"], description: "Output format", default: "term" },
    "min-effect": {
      type: "string",
      valueHint: "PCT",
      description: `Read the verdicts again: a row whose interval lies within ±PCT percent is "same" (default: the file's own, else ${DEFAULT_MIN_EFFECT * 100})`,
    },
  },
  run({ args }) {
    const file = args.file as string | undefined;
    if (!file) throw usageError("report needs a result file: xbench report FILE.json", true);
    const saved = parseResult(readResultFile(file), file);
    // A file from before --min-effect has verdicts that never read `same`: it gets the default.
    const given = args["min-effect"] !== undefined ? parsePercent("min-effect", args["min-effect"]) : undefined;
    const result = withMinEffectResult(saved, given ?? saved.minEffect ?? DEFAULT_MIN_EFFECT);
    const format = args.format as "term" | "md" | "json";
    const text =
      format === "md" ? renderMarkdown(result) : format === "json" ? renderJson(result) : renderTerminal(result, { color: wantsColor() });
    process.stdout.write(text);
  },
});
