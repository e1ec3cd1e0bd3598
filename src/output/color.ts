/**
 * Whether a report drawn on a stream gets colour, one decision for every command: `NO_COLOR` set
 * to anything but the empty string turns it off (https://no-color.org), `FORCE_COLOR` turns it on
 * into a pipe or a file (`0` and `false` turn it off, as Node reads them), and otherwise a
 * terminal gets colour and anything else does not.
 */
type Env = Record<string, string | undefined>;

export function wantsColor(isTTY: boolean, env: Env = process.env): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  return isTTY;
}

/** The decision for a stream the report is written to. */
export function colorFor(stream: { isTTY?: boolean }, env: Env = process.env): boolean {
  return wantsColor(stream.isTTY === true, env);
}
