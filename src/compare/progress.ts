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
  round: number;
  rounds: number;
  /** Bench processes finished and planned, over the whole run. */
  done: number;
  total: number;
  elapsedS: number;
  load: number[];
}

/** One status line: round, elapsed, ETA from the processes still to run, load. */
export function progressLine(state: ProgressState): string {
  const rate = state.done > 0 ? state.elapsedS / state.done : undefined;
  const eta = rate === undefined ? "?" : clock(rate * (state.total - state.done));
  const load = state.load.map((l) => l.toFixed(2)).join(" ");
  return `round ${state.round}/${state.rounds} · ${clock(state.elapsedS)} elapsed · ETA ${eta} · load ${load}`;
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
