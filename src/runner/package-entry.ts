/**
 * Where a bare import lands, as node resolves it: the package's folder (node's lookup up the
 * node_modules folders, links followed) and the module its package.json's `exports`, `module`
 * or `main` names for the import's subpath under the given conditions. Read here rather than
 * asked of Bun: a compiled xbench's Bun.resolveSync finds no package in a node_modules.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "pathe";
import { isFile } from "../util/is-file.ts";

/** `@scope/name/sub/path` → `@scope/name` and `./sub/path`; `name` → `name` and `.`. */
export function splitSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split("/");
  const length = specifier.startsWith("@") ? 2 : 1;
  const rest = parts.slice(length).join("/");
  return { name: parts.slice(0, length).join("/"), subpath: rest ? `./${rest}` : "." };
}

/** The folder of package `name` that code in `dir` resolves to (node's lookup upwards), real path, if any. */
export function packageDir(dir: string, name: string): string | undefined {
  const pkg = splitSpecifier(name).name;
  for (let at = dir; ; at = join(at, "..")) {
    const candidate = join(at, "node_modules", pkg);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (at === "/" || at === join(at, "..")) return undefined;
  }
}

/** A target of `exports` under `conditions`: a string, the first of an array that gives one, or the first matching key. */
function conditional(target: unknown, conditions: readonly string[]): string | undefined {
  if (typeof target === "string") return target;
  if (Array.isArray(target)) {
    for (const item of target) {
      const found = conditional(item, conditions);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!target || typeof target !== "object") return undefined;
  for (const [key, value] of Object.entries(target)) {
    if (key !== "default" && !conditions.includes(key)) continue;
    const found = conditional(value, conditions);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `exports`' target for `subpath` (`.`, `./parse`): an exact key, else a `./*` pattern, else a conditions object for `.`. */
export function exportsTarget(exports: unknown, subpath: string, conditions: readonly string[]): string | undefined {
  const map = exports && typeof exports === "object" && !Array.isArray(exports) ? (exports as Record<string, unknown>) : undefined;
  if (!map || !Object.keys(map).some((key) => key.startsWith("."))) return subpath === "." ? conditional(exports, conditions) : undefined;
  if (subpath in map) return conditional(map[subpath], conditions);
  for (const [key, value] of Object.entries(map)) {
    const star = key.indexOf("*");
    if (star === -1 || !subpath.startsWith(key.slice(0, star)) || !subpath.endsWith(key.slice(star + 1))) continue;
    const matched = subpath.slice(star, subpath.length - (key.length - star - 1));
    return conditional(value, conditions)?.replaceAll("*", matched);
  }
  return undefined;
}

/** A path as node's CommonJS lookup completes it: itself, with an extension, or a folder's index. */
function completed(path: string): string | undefined {
  for (const candidate of [path, ...["js", "mjs", "cjs", "ts", "json"].flatMap((ext) => [`${path}.${ext}`, join(path, `index.${ext}`)])]) {
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The file package folder `dir` gives for `subpath` under `conditions`: its `exports` when it
 * has them (no completion, as node does), else `module`, `main` or `index.js` for `.` and the
 * path itself for a subpath. The path may not exist (build output not built yet); undefined
 * when the package names nothing for the subpath.
 */
export function packageEntry(dir: string, subpath: string, conditions: readonly string[]): string | undefined {
  let manifest: { exports?: unknown; module?: unknown; main?: unknown };
  try {
    manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
  if (manifest.exports !== undefined) {
    const target = exportsTarget(manifest.exports, subpath, conditions);
    return target === undefined ? undefined : join(dir, target);
  }
  if (subpath !== ".") return completed(join(dir, subpath)) ?? join(dir, subpath);
  const main = [manifest.module, manifest.main].find((m): m is string => typeof m === "string") ?? "index.js";
  return completed(join(dir, main)) ?? join(dir, main);
}
