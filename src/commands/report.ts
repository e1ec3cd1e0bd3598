import { readFileSync } from "node:fs";
import { defineCommand } from "../args/define.ts";
import { minEffect } from "../args/values.ts";
import { pullRequestTarget, upsertComment, writeJobSummary, writeStepOutput } from "../compare/github.ts";
import { mergeShards } from "../compare/shard.ts";
import { usageError } from "../errors.ts";
import type { CompareResult } from "../model/result.ts";
import { log } from "../output/log.ts";
import { checkOutputTargets, writeReport } from "../output/writer.ts";
import { failureLines, nothingCompared } from "../report/analyze.ts";
import { decideGate, exitStatus } from "../report/gate.ts";
import { GATE_FLAGS, gateRule } from "./flags.ts";
import { renderHtml } from "../report/html.ts";
import { withMinEffectResult } from "../report/analyze.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import { parseResult, renderJson } from "../report/json.ts";
import { COMMENT_MARKER, renderMarkdown } from "../report/markdown.ts";
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

/** The saved result, or with --merge the one result the shards' files make together. */
function loadResult(files: string[], merge: boolean): CompareResult {
  if (!merge) {
    if (files.length > 1)
      throw usageError(`report takes one result file (got ${files.length}); --merge combines the shards of one compare`);
    return parseResult(readResultFile(files[0]!), files[0]!);
  }
  return mergeShards(files.map((source) => ({ source, result: parseResult(readResultFile(source), source) })));
}

type Format = "term" | "md" | "json" | "html";

function render(result: CompareResult, format: Format, verbose: boolean): string {
  if (format === "md") return renderMarkdown(result);
  if (format === "json") return renderJson(result);
  if (format === "html") return renderHtml(result);
  return renderTerminal(result, { color: wantsColor(), verbose });
}

export const reportCommand = defineCommand({
  meta: {
    name: "report",
    description: "Re-render a saved result file, merge the shards of one compare (--merge), and with --fail-on or --fail-above judge it",
  },
  args: {
    file: { type: "positional", description: "Result JSON written by compare --json (with --merge: every shard's)", rest: true },
    format: { type: "enum", options: ["term", "md", "json", "html"], description: "Output format", default: "term" },
    merge: { type: "boolean", description: "The files are the shards of one compare (compare --shard I/N): check and merge them" },
    verbose: { type: "boolean", description: "A note for each row that missed the sampling target, not only one for all" },
    json: { type: "string", path: "file", description: "Also write the result as JSON to FILE" },
    markdown: { type: "string", path: "file", description: "Also write the markdown report to FILE" },
    html: { type: "string", path: "file", description: "Also write the self-contained HTML report to FILE" },
    "min-effect": {
      type: "string",
      valueHint: "PCT",
      description: `Read the verdicts again: a row whose interval lies within ±PCT percent is "same" (default: the file's own, else ${DEFAULT_MIN_EFFECT * 100})`,
      parse: minEffect,
    },
    comment: { type: "boolean", description: "On GitHub Actions, create or update the sticky PR comment with this report" },
    ...GATE_FLAGS,
  },
  exitStatuses: [
    "0    rendered; with --fail-on or --fail-above, the gate passed",
    "1    the gate failed",
    "2    bad input: no such file, not a result, a bad flag",
    "3    with a gate: a row of the saved result failed to run, or nothing was measured",
  ],
  examples: [
    "xbench report result.json",
    "xbench report --format md result.json > comment.md",
    "xbench report --fail-on slower result.json      # judge a saved result",
  ],
  async run({ flags, positionals: files }) {
    const given = (value: string | undefined) => value || undefined;
    const targets = { json: given(flags.json), markdown: given(flags.markdown), html: given(flags.html) };
    checkOutputTargets(targets);
    const commentTarget = flags.comment ? pullRequestTarget() : undefined;
    const rule = gateRule(flags);
    const loaded = loadResult(files, flags.merge);
    // A file from before --min-effect has verdicts that never read `same`: it gets the default.
    const saved = withMinEffectResult(loaded, flags["min-effect"] ?? loaded.minEffect ?? DEFAULT_MIN_EFFECT);
    // A gate given here judges the saved table; without one, a saved gate is decided again from
    // its rule, so the rows it names always match the table.
    const gateBy = rule ?? saved.gate?.rule;
    const result = gateBy ? { ...saved, gate: decideGate(saved.rows, gateBy) } : saved;
    process.stdout.write(render(result, flags.format, flags.verbose));
    if (targets.json || targets.markdown || targets.html) {
      const html = targets.html ? renderHtml(result) : undefined;
      writeReport({ table: "", json: renderJson(result), markdown: renderMarkdown(result), html }, targets);
    }
    if (flags.merge && writeJobSummary(renderMarkdown(result))) log.info("report added to the job summary");
    if (commentTarget) log.info(`PR comment ${await upsertComment(commentTarget, COMMENT_MARKER, renderMarkdown(result))}`);
    if (!rule) return 0;
    if (result.gate) writeStepOutput("outcome", result.gate.outcome);
    const notMeasured = failureLines(result.rows).length > 0 || nothingCompared(result.rows) !== undefined;
    return exitStatus({ gate: result.gate, notMeasured, bisecting: false });
  },
});
