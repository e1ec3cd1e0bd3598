import type { CompareEvent } from "../compare/events.ts";
import { formatHalfWidth, formatWiderThan } from "../report/text.ts";
import { log } from "./log.ts";
import { createProgress, createTicker } from "./progress.ts";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `50 ms`, `12.5 ms`: a sampling time as set. */
const formatMs = (ms: number) => `${Number(ms.toFixed(1))} ms`;

/** The one-line message an event gets on stderr, if any (rounds draw the progress line instead). */
export function eventMessage(event: CompareEvent): { level: "info" | "warn"; text: string } | undefined {
  switch (event.type) {
    case "isolated":
      return { level: "info", text: `${event.file}: one side per process (${event.because})` };
    case "interrupted":
      return {
        level: "warn",
        text: event.runDir
          ? `${event.signal}: stopped. Measured rounds are saved; continue with: ${event.resume ?? `xbench compare --resume ${event.runDir}`}`
          : `${event.signal}: stopped`,
      };
    case "reclaimed": {
      const what = `${plural(event.worktrees, "worktree")} and ${plural(event.pids.length, "temp folder")}`;
      return {
        level: "info",
        text: `reclaimed ${what} left by dead xbench run${event.pids.length === 1 ? "" : "s"} (pid ${event.pids.join(", ")})`,
      };
    }
    case "submodule-empty":
      return {
        level: "warn",
        text:
          event.why === "not-checked-out"
            ? `submodule ${event.path} is not checked out in this repository, so it is empty on ${event.side} (git submodule update --init fixes that)`
            : `submodule ${event.path}: its clone here lacks commit ${event.sha.slice(0, 12)}, so it is empty on ${event.side} (git -C ${event.path} fetch fixes that)`,
      };
    case "skipped":
      return { level: "info", text: event.note };
    case "budget":
      return {
        level: "info",
        text: `sampling each row ${formatMs(event.sideMs)} per side and process (not ${formatMs(event.fromMs)}), so that the first ${event.minRounds} rounds leave most of --max-time to the rows still wide after them`,
      };
    case "over-budget":
      return {
        level: "warn",
        text: `the first ${event.minRounds} rounds need about ${Math.ceil(event.minimumS)} s, more than --max-time ${event.maxTimeS} s: they run anyway (an interval needs them); narrow the bench files (FILTER) or raise --max-time to stay within it`,
      };
    case "installed":
      return {
        level: "info",
        text: `installed ${event.side}'s dependencies (${event.command.join(" ")}) in ${event.seconds.toFixed(1)} s`,
      };
    case "running-long":
      return {
        level: "warn",
        text: `${event.files.join(", ")}: a bench process has run ${event.seconds} s and not ended; it is stopped at ${event.timeoutS} s (--timeout), and a benchmark that never returns may be stuck`,
      };
    case "building-helpers":
      return { level: "info", text: `building ${event.side}'s helpers (${event.sha.slice(0, 12)})` };
    default:
      return undefined;
  }
}

/**
 * Renders a compare's events on stderr: the progress line (per round on a terminal; in a log,
 * on each tenth of `budgetS`, the run's `--max-time`), one line for each notice. `done` clears
 * the progress line; call it however the run ends.
 */
export function renderCompareEvents(stream: NodeJS.WriteStream = process.stderr, options: { budgetS?: number } = {}) {
  const progress = createProgress(stream, options);
  const ticker = createTicker(stream);
  return {
    onEvent(event: CompareEvent): void {
      if (event.type === "working") {
        ticker.start(event.what);
        return;
      }
      ticker.stop();
      if (event.type === "round") {
        const { round, rounds, elapsedS, widest, open } = event;
        const rows = open && open.rows < open.of ? `, ${open.rows} of ${open.of} rows still measured` : "";
        const note = widest
          ? `widest ${formatWiderThan(widest.halfWidth, widest.target)} (target ${formatHalfWidth(widest.target)})${rows}`
          : undefined;
        progress.update({ round, elapsedS, ...(rounds !== undefined ? { rounds } : {}), note });
        return;
      }
      if (event.type === "stopped" || event.type === "interrupted") progress.done();
      const message = eventMessage(event);
      if (message) log[message.level](message.text);
    },
    done: () => {
      ticker.stop();
      progress.done();
    },
  };
}
