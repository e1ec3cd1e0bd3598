import { readFileSync } from "node:fs";
import { defineCommand } from "../args/define.ts";
import { minEffect } from "../args/values.ts";
import { pullRequestTarget, upsertComment, writeJobSummary, writeStepOutput } from "../output/github.ts";
import { mergeShards } from "../compare/shard.ts";
import { usageError } from "../errors.ts";
import type { CompareResult } from "../model/result.ts";
import { colorFor } from "../output/color.ts";
import { log } from "../output/log.ts";
import { checkOutputTargets, tableStream, writeReport } from "../output/writer.ts";
import { analyzeResult } from "../report/analysis.ts";
import { failureLines, nothingCompared, withMinEffectResult } from "../report/row-stats.ts";
import { FILE_FLAGS, FORMAT_NAMES, fileTargets, fileTexts, formatNamed, renderer } from "../report/outputs.ts";
import { decideGate, exitStatus } from "../report/gate.ts";
import { GATE_FLAGS, gateRule } from "./flags.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import { parseResult } from "../report/json.ts";
import { COMMENT_MARKER } from "../report/markdown.ts";

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

export const reportCommand = defineCommand({
  meta: {
    name: "report",
    description: "Re-render a saved result file, merge the shards of one compare (--merge), and with --fail-on or --fail-above judge it",
  },
  args: {
    file: { type: "positional", description: "Result JSON written by compare --json (with --merge: every shard's)", rest: true },
    format: { type: "enum", options: FORMAT_NAMES, description: "Output format", default: "term" },
    merge: { type: "boolean", description: "The files are the shards of one compare (compare --shard I/N): check and merge them" },
    verbose: { type: "boolean", description: "A note for each row that missed the sampling target, not only one for all" },
    ...FILE_FLAGS,
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
    const targets = fileTargets(flags);
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
    // One analysis of the result, each format rendered from it at most once. The format asked for
    // takes the table's place: on stdout, or on stderr when `--json -` takes stdout.
    const render = renderer(analyzeResult(result), { color: colorFor(tableStream(targets)), verbose: flags.verbose });
    writeReport({ ...fileTexts(targets, render), table: render(formatNamed(flags.format)), json: render("json") }, targets);
    if (flags.merge && writeJobSummary(render("markdown"))) log.info("report added to the job summary");
    if (commentTarget) log.info(`PR comment ${await upsertComment(commentTarget, COMMENT_MARKER, render("markdown"))}`);
    if (!rule) return 0;
    if (result.gate) writeStepOutput("outcome", result.gate.outcome);
    const notMeasured = failureLines(result.rows).length > 0 || nothingCompared(result.rows) !== undefined;
    return exitStatus({ gate: result.gate, notMeasured, bisecting: false });
  },
});
