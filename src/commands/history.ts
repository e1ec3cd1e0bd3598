import { defineCommand } from "../args/define.ts";
import { minEffect } from "../args/values.ts";
import { usageError } from "../errors.ts";
import { commitSubject, firstParentPath, git, repoRoot, resolveCommit, tryResolveCommit } from "../git/git.ts";
import { buildHistory, type PathCommit } from "../history/chain.ts";
import { renderHistoryHtml } from "../history/html.ts";
import { HISTORY_REF, readHistory } from "../history/store.ts";
import { renderHistoryTerminal } from "../history/terminal.ts";
import { log } from "../output/log.ts";
import { checkOutputTargets, prettyJson, writeReport } from "../output/writer.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import type { HistoryEntry } from "../history/entry.ts";

const FETCH_HINT = `git fetch origin ${HISTORY_REF}:${HISTORY_REF} brings a remote's`;

export const historyCommand = defineCommand({
  meta: {
    name: "history",
    description:
      "The story of HEAD's first-parent line from the commits recorded with `xbench history record`: per row, the cumulative change with an interval, gaps, and the commits that moved it",
  },
  subCommands: {
    record: () => import("./history-record.ts").then((m) => m.historyRecordCommand),
  },
  args: {
    since: {
      type: "string",
      valueHint: "REF",
      description: "Start from this commit (default: the parent of the oldest recorded commit on HEAD's line)",
    },
    rows: { type: "string", valueHint: "FILTER", description: "Substring or glob that narrows the rows (their name, id, file or label)" },
    "min-effect": {
      type: "string",
      valueHint: "PCT",
      description: `A commit moved a row when its own step's 95% interval lies wholly beyond ±PCT percent (default: ${DEFAULT_MIN_EFFECT * 100})`,
      parse: minEffect,
    },
    json: {
      type: "string",
      path: "file",
      description: "Write the history (steps, cumulatives, moves per row) as JSON to FILE, - for stdout",
    },
    html: { type: "string", path: "file", description: "Write a self-contained HTML page (a trend plot per row) to FILE" },
  },
  exitStatuses: ["0    the history was shown", "2    bad input: a flag, a ref, nothing recorded on HEAD's first-parent line"],
  examples: [
    "xbench history record --push origin              # on each push to main (the GitHub Action does it)",
    "xbench history                                   # every row since the oldest recorded commit",
    "xbench history --since v1.2.0 --rows parse --html history.html",
  ],
  run({ flags }) {
    const targets = { json: flags.json || undefined, html: flags.html || undefined };
    checkOutputTargets(targets);
    const root = repoRoot(process.cwd());
    const head = resolveCommit(root, "HEAD", "HEAD");
    const entries = readHistory(root, HISTORY_REF, (why) => log.warn(why));
    const start = flags.since ? sinceCommit(root, flags.since, head) : oldestStart(root, head, entries);
    const path = firstParentPath(root, start.sha, head);
    const report = buildHistory({ start, path, entries, minEffect: flags["min-effect"] ?? DEFAULT_MIN_EFFECT, rows: flags.rows });
    writeReport(
      { table: renderHistoryTerminal(report), json: prettyJson(report), html: targets.html ? renderHistoryHtml(report) : undefined },
      targets,
    );
    return 0;
  },
});

/** `--since REF`: a commit on HEAD's first-parent line, before HEAD. */
function sinceCommit(root: string, ref: string, head: string): PathCommit {
  const sha = resolveCommit(root, ref, "--since");
  if (sha === head) throw usageError(`--since ${ref} is HEAD: no commit after it to show`);
  const path = firstParentPath(root, sha, head);
  // A commit off the line (a merge's second parent, or not an ancestor) would be walked past.
  if (path.length === 0 || tryResolveCommit(root, `${path[0]!.sha}^1`) !== sha) {
    throw usageError(`--since ${ref} is not on HEAD's first-parent line`);
  }
  return { sha, subject: commitSubject(root, sha) };
}

/** The parent of the oldest recorded commit on HEAD's first-parent line: the chains start there. */
function oldestStart(root: string, head: string, entries: ReadonlyMap<string, HistoryEntry>): PathCommit {
  if (entries.size === 0) {
    throw usageError(`nothing recorded in ${HISTORY_REF}: run xbench history record (${FETCH_HINT})`);
  }
  const line = git(root, ["rev-list", "--first-parent", head]).split("\n");
  const oldest = line.findLast((sha) => entries.has(sha));
  if (!oldest) throw usageError(`no commit on HEAD's first-parent line is recorded in ${HISTORY_REF} (${FETCH_HINT})`);
  const parent = tryResolveCommit(root, `${oldest}^1`)!;
  return { sha: parent, subject: commitSubject(root, parent) };
}
