/**
 * Signals sent to the process that runs a trace, passed on to the command the way a shell or
 * `timeout` would: the command decides what they mean, and the caller then exits as it did.
 */
import { readFileSync } from "node:fs";
import { constants } from "node:os";

/** The signals a user or a service manager sends to stop or reload a program. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT"];

/** The ones a terminal also sends, to its whole foreground process group (the command too). */
const TERMINAL_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set(["SIGHUP", "SIGINT", "SIGQUIT"]);

/**
 * True when this process is in its terminal's foreground process group: a Ctrl-C (or a hangup)
 * then reached the command as well, and a second copy would be one too many (Python's second
 * KeyboardInterrupt, make's second "Interrupt"). /proc/self/stat: pgrp is field 5, tpgid field 8.
 */
export function inForeground(stat?: string): boolean {
  let text = stat;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/self/stat", "latin1");
    } catch {
      return process.stdin.isTTY === true; // no /proc (macOS): a terminal's job is in front
    }
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" "); // the name may hold spaces
  const pgrp = Number(fields[2]);
  const tpgid = Number(fields[5]);
  return tpgid > 0 && tpgid === pgrp;
}

/** Whether `signal`, received by this process, should be sent on to the command. */
export function shouldForward(signal: NodeJS.Signals, foreground: () => boolean = inForeground): boolean {
  return !TERMINAL_SIGNALS.has(signal) || !foreground();
}

/**
 * The signals this process was started with ignored (SigIgn in /proc/self/status, a hex mask
 * with bit n-1 for signal n): `nohup` ignores HUP, a non-interactive shell's `&` INT and QUIT.
 * Untraced, the command would have inherited that and never seen them; so they are not sent on.
 */
export function ignoredSignals(status?: string): Set<NodeJS.Signals> {
  let text = status;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/self/status", "latin1");
    } catch {
      return new Set(); // no /proc: forward them all
    }
  }
  const mask = BigInt(`0x${/^SigIgn:\s*([0-9a-f]+)/m.exec(text)?.[1] ?? "0"}`);
  return new Set(FORWARDED_SIGNALS.filter((s) => (mask >> BigInt(constants.signals[s] - 1)) & 1n));
}

/** Read once, before this module's handlers change any disposition. */
let ignoredAtStart: Set<NodeJS.Signals> | undefined;

/** The numbers of the FORWARDED_SIGNALS this process was started with ignored (see ignoredSignals). */
export function ignoredAtStartNumbers(): number[] {
  ignoredAtStart ??= ignoredSignals();
  return [...ignoredAtStart].map((s) => constants.signals[s]);
}

export interface SignalForwarder {
  /** The process to forward to, once it exists; a signal that came before is sent then. */
  attach(pid: number): void;
  /** Restores the default handling. */
  remove(): void;
}

/**
 * Installs handlers that keep this process alive and send FORWARDED_SIGNALS on to `attach`'s
 * pid (the launcher, which relays kill()-sent signals to the command).
 */
export function forwardSignals(): SignalForwarder {
  ignoredAtStart ??= ignoredSignals();
  const ignored = ignoredAtStart;
  let pid: number | undefined;
  const early: NodeJS.Signals[] = [];
  const send = (signal: NodeJS.Signals) => {
    try {
      process.kill(pid!, signal);
    } catch {
      // already gone: its status is on its way
    }
  };
  const handler = (signal: NodeJS.Signals) => {
    // Windows has no kill(): process.kill would terminate the launcher, not signal it; there
    // the console's Ctrl-C reaches the command itself, and xbench only waits for it.
    if (process.platform === "win32" || ignored.has(signal) || !shouldForward(signal)) return;
    if (pid === undefined) early.push(signal);
    else send(signal);
  };
  for (const s of FORWARDED_SIGNALS) process.on(s, handler);
  return {
    attach(p) {
      pid = p;
      for (const s of early.splice(0)) send(s);
    },
    remove() {
      for (const s of FORWARDED_SIGNALS) process.off(s, handler);
    },
  };
}
