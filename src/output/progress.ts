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
