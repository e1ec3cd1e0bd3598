/**
 * Everything a compare must undo (worktrees, temp folders, child processes), run once on
 * every exit path: normal return, thrown error, SIGINT, SIGTERM.
 */
export interface Cleanup {
  /** Registers an undo step; steps run last-registered first. */
  add(step: () => void): void;
  run(): void;
}

export function createCleanup(): Cleanup {
  const steps: Array<() => void> = [];
  let done = false;
  return {
    add(step) {
      steps.push(step);
    },
    run() {
      if (done) return;
      done = true;
      for (const step of steps.reverse()) {
        try {
          step();
        } catch {
          // One failed undo step must not keep the others from running.
        }
      }
    },
  };
}

const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/**
 * On SIGINT/SIGTERM/SIGHUP: run `onSignal` (save what was measured, say how to resume), then
 * the cleanup, then exit the shell's way. Returns a function that removes the handlers.
 */
export function exitOnSignals(cleanup: Cleanup, onSignal: (signal: string) => void): () => void {
  const handlers = Object.keys(SIGNAL_EXIT).map((signal) => {
    const handler = () => {
      try {
        onSignal(signal);
      } finally {
        cleanup.run();
        process.exit(SIGNAL_EXIT[signal]);
      }
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  return () => handlers.forEach((off) => off());
}
