/** Escape sequences that colour text. */
const ANSI = /\u001B\[[0-9;]*m/g;

/** `text` as it may go to a stream: colours kept on a terminal, stripped on pipes and files. */
export function forStream(text: string, tty: boolean): string {
  return tty ? text : text.replace(ANSI, "");
}

/** Errors are one plain line so scripts and tests can match them. */
export function printError(message: string): void {
  process.stderr.write(`xbench: ${forStream(message, !!process.stderr.isTTY)}\n`);
}
