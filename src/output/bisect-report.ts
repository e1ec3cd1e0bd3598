/**
 * Bisect as text: one line per step as it ends, and the ending, for the terminal and as
 * markdown. Plain functions of the result; the command writes them.
 */
import type { BisectDirection, BisectResult, BisectStep, Commit } from "../compare/bisect/bisect.ts";
import type { BisectConclusion, Reverted } from "../compare/bisect/bisect.ts";
import { formatInterval, formatPercent, visible } from "../report/text.ts";
import { escapeMarkdown } from "../report/markdown.ts";

export const BISECT_MARKER = "<!-- xbench-bisect -->";

const short = (sha: string) => sha.slice(0, 12);
const percentText = (fraction: number) => `${+(fraction * 100).toFixed(4)}%`;

/** `+98.4% [+90.1%, +105.3%] (g.bench.ts › slow)`, or why the step measured nothing. */
function stepNumbers(step: BisectStep): string {
  if (step.notMeasured) return `not measured: ${step.notMeasured}`;
  const numbers = step.row ? `${formatPercent(step.row.delta)} ${formatInterval(step.row.ci)} (${step.row.name})` : "";
  if (step.sameCodeAs !== undefined)
    return `${numbers ? `${numbers}, ` : ""}as commit ${step.sameCodeAs}: the same bench code, not measured again`;
  return numbers || "no row with an interval";
}

/** `step 2  commit 8/15  1a2b3c4d5e6f  bad   +98.4% [+90.1%, +105.3%] (g.bench.ts › slow)  6 rounds  "subject"` */
export function stepLine(step: BisectStep, last: number): string {
  const verdict = step.verdict.padEnd(4);
  return visible(
    `step ${step.step}  commit ${step.index}/${last}  ${short(step.commit.sha)}  ${verdict}  ${stepNumbers(step)}  ${step.rounds} rounds  "${step.commit.subject}"`,
  );
}

function commitText(result: BisectResult, index: number): string {
  const commit: Commit = result.path[index]!;
  return `${short(commit.sha)} (commit ${index}/${result.path.length - 1}) "${commit.subject}"`;
}

/** Which step probed commit `index`, for "tested at step N" (good itself was never probed). */
function probedAt(result: BisectResult, index: number): string {
  if (index === 0) return "--good itself";
  const step = result.steps.find((s) => s.index === index);
  return step ? `step ${step.step}` : "not probed";
}

/** The words of each search: for a slowdown, or for a speed-up (`--faster`). */
const WORDS: Record<BisectDirection, { change: string; way: string; first: string; again: string }> = {
  slower: { change: "slowdown", way: "slower", first: "first bad commit", again: "good again" },
  faster: { change: "speed-up", way: "faster", first: "first faster commit", again: "slow again" },
};

function revertedLine(result: BisectResult, r: Reverted): string {
  const start = r.firstBad !== undefined ? `introduced at ${commitText(result, r.firstBad)}` : `present at ${commitText(result, r.bad)}`;
  const { change, again } = WORDS[result.direction];
  return `a ${change} ${start} was reverted: ${again} at ${commitText(result, r.goodAgain)}; it is not the one --bad has`;
}

/** The ending as plain lines: the first bad commit (checked: parent good, itself bad), or the smallest range, or why there was nothing to find. */
export function conclusionLines(result: BisectResult): string[] {
  const c: BisectConclusion = result.conclusion;
  const threshold = percentText(result.above);
  const { way, first } = WORDS[result.direction];
  const lines: string[] = [];
  if (c.kind === "not-bad") {
    const how =
      c.verdict === "good" ? `is not more than ${threshold} ${way} than` : `could not be told apart by more than ${threshold} from`;
    lines.push(
      `nothing to bisect: --bad ${result.bad.ref} (${short(result.bad.sha)}) ${how} --good ${result.good.ref} (${short(result.good.sha)})`,
    );
    const step = result.steps.find((s) => s.index === result.path.length - 1);
    if (step) lines.push(`  ${stepNumbers(step)}`);
    return lines;
  }
  if (c.kind === "found") {
    const step = result.steps.find((s) => s.index === c.firstBad)!;
    lines.push(`${first}: ${commitText(result, c.firstBad)}`);
    lines.push(`  more than ${threshold} ${way} than --good: ${stepNumbers(step)} (step ${step.step})`);
    lines.push(
      `  its parent ${commitText(result, c.firstBad - 1)} is good: not more than ${threshold} ${way} (${probedAt(result, c.firstBad - 1)})`,
    );
  } else {
    lines.push(`the ${first} is one of ${commitText(result, c.after + 1)} … ${commitText(result, c.upTo)}`);
    // A step skipped for a reason of its own (a build, a full disk) says it; only the others ran out of rounds.
    const why = (i: number) => result.steps.find((s) => s.index === i && s.notMeasured !== undefined)?.notMeasured;
    const undecided = c.skipped.filter((i) => why(i) === undefined);
    if (undecided.length > 0)
      lines.push(
        `  ${undecided.length} commit(s) in between could not be decided within the rounds budget (skipped): ${undecided.map((i) => short(result.path[i]!.sha)).join(", ")}`,
      );
    for (const i of c.skipped.filter((i) => why(i) !== undefined))
      lines.push(`  ${short(result.path[i]!.sha)} in between was skipped, not measured: ${why(i)!.split("\n")[0]}`);
  }
  for (const r of c.reverted) lines.push(`  note: ${revertedLine(result, r)}`);
  return lines;
}

/** The bookkeeping line: compares run, commits bundled, wall time. */
export function costLine(result: BisectResult): string {
  const commits = result.path.length - 1;
  const settled = result.steps.filter((s) => s.sameCodeAs !== undefined).length;
  const without = settled > 0 ? ` (${settled} without a compare: the same bench code as a commit measured)` : "";
  return `${result.steps.length} compare steps${without} over ${commits} commits; ${result.bundled.length} commits bundled, each once; ${(result.wallMs / 1000).toFixed(1)} s`;
}

export function renderBisectTerminal(result: BisectResult): string {
  return `${["", ...conclusionLines(result).map(visible), costLine(result)].join("\n")}\n`;
}

export function renderBisectMarkdown(result: BisectResult): string {
  const last = result.path.length - 1;
  const [headline, ...rest] = conclusionLines(result);
  const out = [
    BISECT_MARKER,
    "",
    `**xbench bisect** (${result.direction === "faster" ? "--faster" : "--above"} ${percentText(result.above)}): ${escapeMarkdown(headline!)}`,
    "",
  ];
  for (const line of rest) out.push(`- ${escapeMarkdown(line.trim())}`);
  out.push("", "| step | commit | | verdict | delta | 95% CI | row | rounds |", "|--:|:--|:--|:--|--:|--:|:--|--:|");
  for (const step of result.steps) {
    const numbers = step.row ? [formatPercent(step.row.delta), formatInterval(step.row.ci), escapeMarkdown(step.row.name)] : ["", "", ""];
    const subject = escapeMarkdown(step.commit.subject);
    const verdict = step.notMeasured ? `${step.verdict} (${escapeMarkdown(step.notMeasured)})` : step.verdict;
    out.push(
      `| ${step.step} | \`${short(step.commit.sha)}\` ${step.index}/${last} | ${subject} | ${verdict} | ${numbers.join(" | ")} | ${step.rounds} |`,
    );
  }
  out.push("", escapeMarkdown(costLine(result)), "");
  return `${out.join("\n")}`;
}
