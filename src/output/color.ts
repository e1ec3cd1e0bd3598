/**
 * Whether text drawn on a stream gets colour, one decision for every command and everything it
 * prints (reports, help and usage, error lines, the logger): `NO_COLOR` set to anything but the
 * empty string turns it off (https://no-color.org), `FORCE_COLOR` turns it on into a pipe or a
 * file (`0` and `false` turn it off, as Node reads them), and otherwise a terminal gets colour
 * and anything else does not. stdout and stderr are each asked about on their own.
 */
type Env = Record<string, string | undefined>;

export function wantsColor(isTTY: boolean, env: Env = process.env): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  return isTTY;
}

/** The decision for a stream the text is written to. */
export function colorFor(stream: { isTTY?: boolean }, env: Env = process.env): boolean {
  return wantsColor(stream.isTTY === true, env);
}

/** Escape sequences that colour text. */
const ANSI = /\u001B\[[0-9;]*m/g;

/** Text coloured by a library (citty's help) as it may be printed: kept with `color`, else stripped. */
export function forStream(text: string, color: boolean): string {
  return color ? text : text.replace(ANSI, "");
}
