/**
 * The `<VALUE>` a flag takes, as help and usage errors name it. Its own module: the trace fast
 * path parses flags (and names a missing value) without loading the help renderer.
 */
import type { Flag } from "./spec.ts";

/** The `<VALUE>` of a flag: its hint, an enum's options, FILE or DIR for a path, else its name. */
export function valueHint(name: string, flag: Flag): string | undefined {
  if (flag.type === "boolean") return undefined;
  if (flag.hint) return flag.hint;
  if (flag.type === "enum") return flag.options.join("|");
  if (flag.type === "file") return "FILE";
  if (flag.type === "dir") return "DIR";
  return name.toUpperCase().replace(/-/g, "_");
}
