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

/**
 * Progress on stderr: one line redrawn in place on a TTY, a plain line per round elsewhere
 * (CI logs keep every line, so redraws would only add noise there).
 */
export function createProgress(stream: NodeJS.WriteStream = process.stderr) {
  const tty = !!stream.isTTY;
  let lastRound = 0;
  let drawn = false;
  return {
    update(state: Omit<ProgressState, "load">) {
      const line = progressLine({ ...state, load: loadavg() });
      if (tty) {
        stream.write(`\r\u001b[2K${line}`);
        drawn = true;
      } else if (state.round !== lastRound) {
        stream.write(`${line}\n`);
      }
      lastRound = state.round;
    },
    done() {
      if (tty && drawn) stream.write("\r\u001b[2K");
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
