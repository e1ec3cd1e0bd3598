/**
 * The `<VALUE>` a flag takes, as help and usage errors name it. Its own module: the trace fast
 * path checks flags (and names a missing value) without loading the help renderer.
 */
import type { Flag } from "./types.ts";

/** The `<VALUE>` of a flag: its hint, an enum's options, FILE or DIR for a path, else its name. */
export function valueHint(name: string, flag: Flag): string | undefined {
  if (flag.type === "boolean") return undefined;
  if (flag.valueHint) return flag.valueHint;
  if (flag.type === "enum") return flag.options.join("|");
  if (flag.path === "file") return "FILE";
  if (flag.path === "dir") return "DIR";
  return name.toUpperCase().replace(/-/g, "_");
}
