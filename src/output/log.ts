import { colorFor } from "./color.ts";

type Env = Record<string, string | undefined>;

/** Runs `load` with `vars` set (undefined: unset) in the environment, then puts them back. */
async function loadedWith<T>(vars: Env, load: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const set = (values: Env) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(vars);
  try {
    return await load();
  } finally {
    set(saved);
  }
}

/** The logger writes to stderr, so stderr's colour decision (`color.ts`) is its own. */
const color = colorFor(process.stderr);

// consola picks its palette once, as it loads, from whether stdout is a terminal and its own
// reading of NO_COLOR and FORCE_COLOR: it is loaded with those two saying stderr's decision,
// and they are put back straight after, so what xbench runs sees the user's.
const { createConsola } = await loadedWith(
  { NO_COLOR: color ? undefined : "1", FORCE_COLOR: color ? "1" : undefined },
  () => import("consola"),
);

/**
 * Human output goes to stderr so that stdout carries only machine output
 * (`--json -`, a traced command's own stdout).
 */
export const log = createConsola({
  stdout: process.stderr,
  stderr: process.stderr,
  formatOptions: { date: false, colors: color },
});
