/**
 * Everything a run must undo (worktrees, temp folders, child processes), run once on
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

interface Scope {
  cleanup: Cleanup;
  onSignal: (signal: string) => void;
}

/** Open scopes, innermost last: one signal unwinds all of them, not just the first registered. */
const scopes: Scope[] = [];

function unwind(signal: string): never {
  for (const scope of [...scopes].reverse()) {
    try {
      scope.onSignal(signal);
    } catch {
      // Saying what happened must not stop the cleanup.
    }
    scope.cleanup.run();
  }
  process.exit(SIGNAL_EXIT[signal]);
}

const handlers = Object.fromEntries(Object.keys(SIGNAL_EXIT).map((signal) => [signal, () => unwind(signal)]));

/**
 * On SIGINT/SIGTERM/SIGHUP: run `onSignal` (save what was measured, say how to resume), then
 * the cleanup (of this scope and of every scope opened inside it), then exit the shell's
 * way. Returns a function that closes the scope.
 */
export function exitOnSignals(cleanup: Cleanup, onSignal: (signal: string) => void): () => void {
  const scope = { cleanup, onSignal };
  if (scopes.length === 0) for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
  scopes.push(scope);
  return () => {
    const i = scopes.indexOf(scope);
    if (i !== -1) scopes.splice(i, 1);
    if (scopes.length === 0) for (const [signal, handler] of Object.entries(handlers)) process.off(signal, handler);
  };
}

/**
 * Runs `body` in a cleanup scope: what it registers is undone on return, on a throw, and on
 * SIGINT/SIGTERM/SIGHUP (after `onSignal`, which says what happened, before the exit).
 */
export async function withCleanup<T>(onSignal: (signal: string) => void, body: (cleanup: Cleanup) => T | Promise<T>): Promise<T> {
  const cleanup = createCleanup();
  const closeScope = exitOnSignals(cleanup, onSignal);
  try {
    return await body(cleanup);
  } finally {
    closeScope();
    cleanup.run();
  }
}
