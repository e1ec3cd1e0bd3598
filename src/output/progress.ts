import { loadavg } from "node:os";

/** Formats seconds as `1:05` or `1:02:03`. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

export interface ProgressState {
  /** Rounds finished. */
  round: number;
  /** Rounds planned, when the run has a fixed number. */
  rounds?: number;
  elapsedS: number;
  /** How far the run is from its stopping rule, when it samples until narrow. */
  note?: string;
  load: number[];
}

/** One status line: round, elapsed, ETA (fixed runs) or the widest interval so far, load. */
export function progressLine(state: ProgressState): string {
  const load = state.load.map((l) => l.toFixed(2)).join(" ");
  const parts = [state.rounds ? `round ${state.round}/${state.rounds}` : `round ${state.round}`, `${clock(state.elapsedS)} elapsed`];
  if (state.rounds) parts.push(`ETA ${clock((state.elapsedS / state.round) * (state.rounds - state.round))}`);
  if (state.note) parts.push(state.note);
  parts.push(`load ${load}`);
  return parts.join(" · ");
}

/** Without a budget or a fixed number of rounds, a log gets a progress line this often. */
const LOG_ROUND_EVERY_S = 10;

/**
 * Progress on stderr: one line redrawn in place on a TTY. A log (not a TTY) keeps every line,
 * so it gets one on the first round, then one on each tenth of the run: of its rounds when
 * they are fixed, else of `budgetS` (`--max-time`), else every 10 s; and the last state when
 * the run ends, if that was not its line already. A 60 s run writes about a dozen lines, not
 * one per round.
 */
export function createProgress(stream: NodeJS.WriteStream = process.stderr, options: { budgetS?: number } = {}) {
  const tty = !!stream.isTTY;
  let lastRound = 0;
  let drawn = false;
  let logged: ProgressState | undefined;
  let pending: ProgressState | undefined;
  const step = options.budgetS !== undefined && options.budgetS > 0 ? options.budgetS / 10 : LOG_ROUND_EVERY_S;
  const due = (state: Omit<ProgressState, "load">): boolean => {
    if (!logged) return true;
    if (state.rounds) return Math.floor((10 * state.round) / state.rounds) > Math.floor((10 * logged.round) / state.rounds);
    return Math.floor(state.elapsedS / step) > Math.floor(logged.elapsedS / step);
  };
  const log = (state: ProgressState) => {
    stream.write(`${progressLine(state)}\n`);
    logged = state;
    pending = undefined;
  };
  return {
    update(state: Omit<ProgressState, "load">) {
      const full = { ...state, load: loadavg() };
      if (tty) {
        stream.write(`\r\u001b[2K${progressLine(full)}`);
        drawn = true;
      } else if (state.round !== lastRound) {
        if (due(state)) log(full);
        else pending = full;
      }
      lastRound = state.round;
    },
    done() {
      if (tty && drawn) stream.write("\r\u001b[2K");
      if (!tty && pending) log(pending);
      drawn = false;
    },
  };
}

/** How often a phase that is still going is repeated in a log (not a TTY), after it first shows. */
const LOG_EVERY_S = 30;
/** A phase shorter than this never shows in a log. */
const LOG_AFTER_S = 5;

/**
 * A phase that may take long (`loading bench/x.ts`), with its elapsed time: redrawn every
 * second on a TTY; in a log, one line once it has lasted 5 s and then one every 30 s, so
 * quick phases add nothing and a slow one is never silent.
 */
export function createTicker(stream: NodeJS.WriteStream = process.stderr) {
  const tty = !!stream.isTTY;
  let phase: { what: string; since: number; logged: number } | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const tick = () => {
    if (!phase) return;
    const elapsed = (performance.now() - phase.since) / 1000;
    const line = `${phase.what} · ${clock(elapsed)} elapsed`;
    if (tty) stream.write(`\r\u001b[2K${line}`);
    else if (elapsed >= LOG_AFTER_S && elapsed - phase.logged >= LOG_EVERY_S) {
      stream.write(`${line}\n`);
      phase.logged = elapsed;
    }
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (tty && phase) stream.write("\r\u001b[2K");
    phase = undefined;
  };
  return {
    start(what: string) {
      stop();
      phase = { what, since: performance.now(), logged: -Infinity };
      tick();
      timer = setInterval(tick, 1000);
      timer.unref?.();
    },
    stop,
  };
}
